// For the ThreadSanitizer build of the simulator (.ci/run stage 3): a tensor filled on one stream
// and read by a kernel on another. With "ordered" an event orders the read after the fill and
// TSan must stay quiet; with "unordered" nothing does, which on a GPU is a real race, and TSan
// must report it. The pair proves that TSan sees kernels' memory across streams, so the
// simulated CUDA tests that pass under TSan have their streams ordered. Not a gtest: the expected
// report ends the process (halt_on_error=1).
#include <cstdio>
#include <cstring>

#include "ember/cuda.h"
#include "ember/ops.h"

int main(int argc, char** argv) {
  using namespace ember;
  const bool ordered = argc > 1 && std::strcmp(argv[1], "ordered") == 0;
  if (argc < 2 || (!ordered && std::strcmp(argv[1], "unordered") != 0)) {
    std::fprintf(stderr, "usage: %s ordered|unordered\n", argv[0]);
    return 2;
  }
  cuda::Stream side = cuda::Stream::create();
  // Filled on the current stream. Large enough that the fill is still running when the side stream
  // reads (afterwards, any lock the two workers share would order them by chance).
  constexpr int64_t n = int64_t(1) << 22;
  Tensor t = ones({n}, TensorOptions().device("cuda"));
  if (ordered) {
    cuda::Event filled;
    filled.record();
    filled.wait(side);
  }
  Tensor doubled;
  {
    cuda::StreamGuard on_side(side);
    doubled = t * 2;  // reads t on the side stream
    t.record_stream(side);
  }
  // The sum below reads `doubled` back on the current stream: always after the side stream.
  cuda::Event doubled_ready;
  doubled_ready.record(side);
  doubled_ready.wait(cuda::current_stream());
  const double sum = doubled.sum().item<double>();
  cuda::synchronize();
  std::printf("sum %.0f\n", sum);
  return sum == 2.0 * n ? 0 : 1;
}
