#pragma once
// The CPU's intra-op threads: torch.set_num_threads / at::set_num_threads in C++. Ember's CPU
// kernels, OpenBLAS and oneDNN all run on OpenMP's threads, so the count is OpenMP's.
#include "ember/macros.h"

namespace ember {

// Sets the number of threads CPU ops use, for the whole process (every thread that runs ops
// takes it before its next parallel op). n must be positive.
EMBER_API void set_num_threads(int n);
// The number of threads CPU ops use: the last set_num_threads, else OpenMP's default
// (OMP_NUM_THREADS, or one per core).
EMBER_API int get_num_threads();

}  // namespace ember
