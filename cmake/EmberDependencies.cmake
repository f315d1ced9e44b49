# The libraries libember builds on, found here; cmake/EmberBuildSettings.cmake hands them to the
# sources. Required: OpenMP, zlib, nlohmann-json, OpenBLAS (OpenMP flavour). Optional, each
# choosing folders of EMBER_FOLDER_CHOICES (cmake/EmberLayers.cmake):
#   EMBER_WITH_DNNL   oneDNN (Debian's libdnnl-dev): src/cpu_dnnl, else src/cpu_dnnl_off
#   EMBER_WITH_SLEEF  SLEEF (libsleef-dev) on x86-64: src/cpu/simd
#   EMBER_WITH_GLOO   Gloo (libgloo-dev): src/distributed/gloo, else gloo_unavailable
# (CUDA and NCCL: cmake/EmberCuda.cmake.)
find_package(OpenMP REQUIRED)
find_package(ZLIB REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_path(OPENBLAS_INCLUDE_DIR cblas.h
  PATHS /usr/include/x86_64-linux-gnu/openblas-openmp /usr/include/openblas NO_DEFAULT_PATH)
find_library(OPENBLAS_LIBRARY NAMES openblas
  PATHS /usr/lib/x86_64-linux-gnu/openblas-openmp NO_DEFAULT_PATH)
if(NOT OPENBLAS_INCLUDE_DIR OR NOT OPENBLAS_LIBRARY)
  message(FATAL_ERROR "OpenBLAS (OpenMP flavour) not found: apt-get install libopenblas-openmp-dev")
endif()

# oneDNN, optional: CPU bfloat16 GEMMs on the CPU's bfloat16 instructions; without it bfloat16
# GEMMs are widened to float32.
option(EMBER_DNNL "Use oneDNN for CPU bfloat16 GEMMs when it is installed" ON)
find_path(DNNL_INCLUDE_DIR dnnl.hpp)
find_library(DNNL_LIBRARY dnnl)
set(EMBER_WITH_DNNL OFF)
if(EMBER_DNNL AND DNNL_INCLUDE_DIR AND DNNL_LIBRARY)
  set(EMBER_WITH_DNNL ON)
endif()
message(STATUS "Ember oneDNN bfloat16 GEMMs: ${EMBER_WITH_DNNL}")

# SLEEF, the vector math libtorch uses: the CPU's exp/log/tanh/erf and softmax kernels, built once
# per instruction set (src/cpu/simd) and chosen at run time by src/cpu/vec_math.cpp, so the
# library itself stays built for the baseline x86-64.
find_path(SLEEF_INCLUDE_DIR sleef.h)
find_library(SLEEF_LIBRARY sleef)
set(EMBER_WITH_SLEEF OFF)
if(SLEEF_INCLUDE_DIR AND SLEEF_LIBRARY AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(EMBER_WITH_SLEEF ON)
  set_source_files_properties(src/cpu/simd/avx2.cpp PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
  set_source_files_properties(src/cpu/simd/avx512.cpp PROPERTIES COMPILE_OPTIONS "-mavx512f")
  message(STATUS "Ember CPU vector math: SLEEF (${SLEEF_LIBRARY}), AVX2 and AVX-512 kernels")
else()
  message(STATUS "SLEEF not found (apt-get install libsleef-dev): CPU exp/log/tanh/softmax stay scalar")
endif()

# torch.distributed's Gloo backend; without it the "gloo" backend says how to get it.
find_package(Gloo CONFIG QUIET)
set(EMBER_WITH_GLOO OFF)
if(Gloo_FOUND)
  set(EMBER_WITH_GLOO ON)
else()
  message(STATUS "Gloo not found (apt-get install libgloo-dev): the gloo backend is unavailable")
endif()
