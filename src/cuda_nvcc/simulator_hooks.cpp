// A GPU build has no simulator to tell anything (see cuda/simulator_hooks.h).
#include "cuda/simulator_hooks.h"

#include "ember/cuda.h"

namespace ember::cuda {

bool is_simulated() {
  return false;
}

namespace detail {
void note_block_allocated(void*, size_t) {}
void note_block_freed(void*, size_t, cudaStream_t) {}
}  // namespace detail

}  // namespace ember::cuda
