# The CUDA set-up, from EMBER_CUDA (AUTO, ON, OFF, SIM). Sets:
#   EMBER_WITH_CUDA          a GPU build: nvcc found (AUTO also looks in /usr/local/cuda), CUDA
#                            enabled, CUDAToolkit found
#   EMBER_CUDA_SIM           a simulated build: the same src/cuda sources, compiled by the host
#                            compiler against src/cuda_sim (no GPU, no toolkit)
#   EMBER_WITH_CUDA_BACKEND  either of the two (src/cuda is built, not src/cuda_stub)
#   EMBER_WITH_NCCL          NCCL found, on GPU builds only (EMBER_NCCL_LIBRARY, _INCLUDE_DIR)
#   EMBER_WITH_CUDNN         cuDNN found on GPU builds (EMBER_CUDNN_LIBRARY, _INCLUDE_DIR), or
#                            the simulator's shim; EMBER_CUDA_WITHOUT_CUDNN: a CUDA backend without
#                            it
#   EMBER_CUDA_TARGET_DIR    the folder of the build's half of the backend, on the include path of
#                            the CUDA sources: src/cuda_nvcc or src/cuda_sim/backend
#   EMBER_SIM_KERNEL_OPTIONS how a .cu file compiles as C++ on the simulator
# The folders these choose are the table EMBER_FOLDER_CHOICES of cmake/EmberLayers.cmake.
set(EMBER_CUDA "AUTO" CACHE STRING
  "Build the CUDA backend: AUTO (when nvcc is found), ON, OFF, or SIM (simulated devices, no GPU)")
set_property(CACHE EMBER_CUDA PROPERTY STRINGS AUTO ON OFF SIM)

set(EMBER_WITH_CUDA OFF)
set(EMBER_CUDA_SIM OFF)
if(EMBER_CUDA STREQUAL "SIM")
  set(EMBER_CUDA_SIM ON)
elseif(NOT EMBER_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 80-real 90)
    endif()
    enable_language(CUDA)
    # CMake 3.25 knows no C++20 flag for nvcc; the .cu files and the headers they use are C++17.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(EMBER_WITH_CUDA ON)
  elseif(EMBER_CUDA STREQUAL "ON")
    message(FATAL_ERROR "EMBER_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()
message(STATUS "Ember CUDA backend: ${EMBER_WITH_CUDA} (simulated: ${EMBER_CUDA_SIM})")

set(EMBER_WITH_CUDA_BACKEND OFF)
if(EMBER_WITH_CUDA OR EMBER_CUDA_SIM)
  set(EMBER_WITH_CUDA_BACKEND ON)
endif()

# NCCL is optional: no CUDA toolkit ships it (here it sits in /usr/local/cuda; PyTorch's GPU
# machines have it as a wheel's libnccl.so.2). Without it the "nccl" backend says so; the
# simulator has none.
set(EMBER_WITH_NCCL OFF)
if(EMBER_WITH_CUDA)
  find_library(EMBER_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
  find_path(EMBER_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  if(EMBER_NCCL_LIBRARY AND EMBER_NCCL_INCLUDE_DIR)
    set(EMBER_WITH_NCCL ON)
  else()
    message(STATUS "NCCL not found: the nccl backend is unavailable")
  endif()
endif()
if(NOT EMBER_WITH_NCCL)
  set(EMBER_NCCL_LIBRARY "")
endif()

# cuDNN is optional too (EMBER_CUDNN=OFF leaves it out): the toolkit here ships it in
# /usr/local/cuda, the GPU machine as PyTorch's nvidia-cudnn wheel. The simulator has its shim.
set(EMBER_CUDNN "AUTO" CACHE STRING "Use cuDNN for CUDA convolutions: AUTO (when found) or OFF")
set_property(CACHE EMBER_CUDNN PROPERTY STRINGS AUTO OFF)
set(EMBER_WITH_CUDNN OFF)
if(EMBER_CUDA_SIM AND NOT EMBER_CUDNN STREQUAL "OFF")
  set(EMBER_WITH_CUDNN ON)
elseif(EMBER_WITH_CUDA AND NOT EMBER_CUDNN STREQUAL "OFF")
  find_library(EMBER_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
  find_path(EMBER_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  if(EMBER_CUDNN_LIBRARY AND EMBER_CUDNN_INCLUDE_DIR)
    set(EMBER_WITH_CUDNN ON)
  else()
    message(STATUS "cuDNN not found: CUDA convolutions are im2col + cuBLAS")
  endif()
endif()
if(NOT EMBER_WITH_CUDNN OR EMBER_CUDA_SIM)
  set(EMBER_CUDNN_LIBRARY "")
endif()
set(EMBER_CUDA_WITHOUT_CUDNN OFF)
if(EMBER_WITH_CUDA_BACKEND AND NOT EMBER_WITH_CUDNN)
  set(EMBER_CUDA_WITHOUT_CUDNN ON)
endif()
message(STATUS "Ember cuDNN: ${EMBER_WITH_CUDNN}")

# What a GPU build and the simulator do differently is one folder per build: src/cuda_nvcc or
# src/cuda_sim/backend (the same file names). Their headers, included by src/cuda without a folder
# name, are found through the include path.
if(EMBER_CUDA_SIM)
  set(EMBER_CUDA_TARGET_DIR ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda_sim/backend)
elseif(EMBER_WITH_CUDA)
  set(EMBER_CUDA_TARGET_DIR ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda_nvcc)
endif()

if(EMBER_CUDA_SIM)
  # .cu files as C++, with what nvcc makes implicit (the runtime API and device built-ins); the
  # .cu files of libember (cmake/EmberLibrary.cmake) and the tests' own kernels
  # (tests/CMakeLists.txt) are compiled so.
  set(EMBER_SIM_KERNEL_OPTIONS "-xc++;-include;cuda_runtime.h;-Wno-unknown-pragmas")
  if(EMBER_TSAN)
    # Kernel bodies run on the simulator's fibers (src/cuda_sim/CMakeLists.txt says why): their
    # memory accesses are checked, their function entries are not recorded.
    list(APPEND EMBER_SIM_KERNEL_OPTIONS --param=tsan-instrument-func-entry-exit=0)
  endif()
  # RawKernel compiles kernels for simulated devices against the simulator's device header.
  set_source_files_properties(src/cuda_sim/backend/raw_kernel_code.cpp PROPERTIES COMPILE_DEFINITIONS
    "EMBER_SIM_INCLUDE_DIR=\"${CMAKE_CURRENT_SOURCE_DIR}/src/cuda_sim/include\"")
endif()
