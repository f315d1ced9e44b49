# The sanitizer builds of CI (.ci/run stages 2 and 3, docs/testing.md): flags for every target
# defined after this file is included.
option(EMBER_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
# ThreadSanitizer, for the tests that run threads. On the simulator, the code that runs on its
# kernel fibers is built without function entry and exit records (EMBER_SIM_KERNEL_OPTIONS in
# cmake/EmberCuda.cmake, src/cuda_sim/CMakeLists.txt).
option(EMBER_TSAN "Build with ThreadSanitizer" OFF)

if(EMBER_SANITIZE)
  if(EMBER_TSAN)
    message(FATAL_ERROR "EMBER_TSAN and EMBER_SANITIZE cannot be combined (one sanitizer runtime)")
  endif()
  # float-cast-overflow is not part of GCC's "undefined": a float cast to an integer it does not
  # fit (NaN, inf, 1e20 to int64) is undefined behaviour that kernel_math/cast_value.h avoids.
  add_compile_options(-fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer
    -fno-sanitize-recover=undefined,float-cast-overflow)
  add_link_options(-fsanitize=address,undefined,float-cast-overflow)
endif()
if(EMBER_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
