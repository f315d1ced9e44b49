#pragma once
// The thread count of the CPU's parallel loops (ember/parallel.h sets it).
namespace ember::cpu {

// omp_get_max_threads() of the calling thread once it follows ember::set_num_threads: a thread
// whose OpenMP setting differs (one started before the call, or by another library) adopts the
// process-wide count first, so OpenBLAS and oneDNN called from it follow too.
int intra_op_threads();

}  // namespace ember::cpu
