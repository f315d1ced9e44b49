# What libember's sources compile with and link, from what cmake/EmberDependencies.cmake and
# cmake/EmberCuda.cmake found: two interface targets that cmake/EmberLibrary.cmake links.
#   ember_build_settings  every source, whatever its layer: flags, definitions, third-party
#                         include directories and libraries
#   ember_cuda_settings   the CUDA runtime's (or the simulator's) headers and libraries: linked by
#                         libember, and seen only by the sources that include CUDA headers
#                         (EMBER_CUDA_HEADER_FOLDERS). Every other source then compiles with the
#                         same command on a GPU build and a SIM build, so that ccache
#                         (CCACHE_BASEDIR, .ci/run) compiles it once for both.
add_library(ember_build_settings INTERFACE)
target_include_directories(ember_build_settings INTERFACE ${CMAKE_CURRENT_SOURCE_DIR}/include
  ${OPENBLAS_INCLUDE_DIR})
# -fno-math-errno lets sqrt/exp vectorise (no errno writes); results are unchanged.
target_compile_options(ember_build_settings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -fvisibility=hidden -fno-math-errno>)
target_link_libraries(ember_build_settings INTERFACE ${OPENBLAS_LIBRARY} OpenMP::OpenMP_CXX
  ZLIB::ZLIB nlohmann_json::nlohmann_json)
if(EMBER_WITH_DNNL)
  target_include_directories(ember_build_settings INTERFACE ${DNNL_INCLUDE_DIR})
  target_link_libraries(ember_build_settings INTERFACE ${DNNL_LIBRARY})
endif()
if(EMBER_WITH_GLOO)
  target_link_libraries(ember_build_settings INTERFACE gloo)
endif()
if(EMBER_WITH_SLEEF)
  target_compile_definitions(ember_build_settings INTERFACE EMBER_WITH_SLEEF=1)
  target_include_directories(ember_build_settings INTERFACE ${SLEEF_INCLUDE_DIR})
  target_link_libraries(ember_build_settings INTERFACE ${SLEEF_LIBRARY})
endif()

add_library(ember_cuda_settings INTERFACE)
if(EMBER_WITH_CUDA_BACKEND)
  target_compile_definitions(ember_build_settings INTERFACE EMBER_WITH_CUDA=1)
endif()
if(EMBER_WITH_CUDA)
  target_compile_options(ember_build_settings INTERFACE
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-fvisibility=hidden>)
  target_link_libraries(ember_cuda_settings INTERFACE CUDA::cudart CUDA::cublas CUDA::cublasLt
    CUDA::nvrtc ${EMBER_NCCL_LIBRARY} ${EMBER_CUDNN_LIBRARY})
  if(EMBER_WITH_CUDNN)
    target_include_directories(ember_cuda_settings INTERFACE ${EMBER_CUDNN_INCLUDE_DIR})
  endif()
  if(EMBER_WITH_NCCL)
    target_include_directories(ember_cuda_settings INTERFACE ${EMBER_NCCL_INCLUDE_DIR})
  endif()
elseif(EMBER_CUDA_SIM)
  target_link_libraries(ember_cuda_settings INTERFACE ember_cuda_sim)
endif()

# load_inline compiles extensions against these headers when Ember is not installed.
set_source_files_properties(src/extension/load_inline.cpp PROPERTIES COMPILE_DEFINITIONS
  "EMBER_BUILD_INCLUDE_DIR=\"${CMAKE_CURRENT_SOURCE_DIR}/include\";EMBER_VERSION_STRING_FOR_EXTENSIONS=\"${PROJECT_VERSION}\"")
