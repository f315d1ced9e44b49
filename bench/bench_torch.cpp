// The libtorch peer: the same rows as bench_ember (the same op_cases.h and train_cases.h,
// compiled against torch::), pinned to the same number of threads.
#include <torch/torch.h>
#include <torch/version.h>

namespace bench {
namespace tt = ::torch;
}

#include "op_cases.h"
#include "train_cases.h"

static const char* kUsage =
    "bench_torch [--groups small,elementwise,reduce,gemm,softmax,train,epoch] [--threads N]\n"
    "            [--epochs N] [--quick] [--list] [--out FILE]\n";

int main(int argc, char** argv) {
  bench::Options opts = bench::parse_args(argc, argv, kUsage);
  if (opts.list_only) {
    std::puts("small elementwise reduce gemm softmax train epoch");
    return 0;
  }
  torch::set_num_threads(opts.threads);
  bench::Runner r("libtorch", opts);
  bench::op_rows(r);
  bench::step_rows(r);
  bench::epoch_rows(r, opts.epochs);
  r.write_json("libtorch " + std::string(TORCH_VERSION) + ", intra-op threads " +
               std::to_string(torch::get_num_threads()));
  return 0;
}
