// The CUDA backend's notes to the simulator (see cuda/simulator_hooks.h), passed on.
#include "cuda/simulator_hooks.h"

#include "cuda_sim.h"
#include "ember/cuda.h"

namespace ember::cuda {

bool is_simulated() {
  return true;
}

namespace detail {
void note_block_allocated(void* ptr, size_t nbytes) {
  cuda_sim::note_block_allocated(ptr, nbytes);
}
void note_block_freed(void* ptr, size_t nbytes, cudaStream_t stream) {
  cuda_sim::note_block_freed(ptr, nbytes, stream);
}
}  // namespace detail

}  // namespace ember::cuda
