#pragma once
// Portability macros shared by the public headers and the kernels.

#if defined(__CUDACC__) || defined(__HIPCC__)
#define EMBER_HD __host__ __device__
#define EMBER_HD_INLINE __host__ __device__ __forceinline__
#else
#define EMBER_HD
#define EMBER_HD_INLINE inline
#endif

#if defined(_WIN32)
#define EMBER_API __declspec(dllexport)
#else
#define EMBER_API __attribute__((visibility("default")))
#endif
