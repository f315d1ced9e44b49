// The libtorch peer: the same rows as bench_ember (the same op_cases.h and train_cases.h,
// compiled against torch::), pinned to the same number of threads.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

namespace bench {
namespace tt = ::torch;
// torch.autocast("cpu", dtype=torch.bfloat16): libtorch 1.13 has the switches, not the scope.
struct CpuBf16Autocast {
  CpuBf16Autocast() {
    at::autocast::set_cpu_enabled(true);
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    at::autocast::increment_nesting();
  }
  ~CpuBf16Autocast() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_cpu_enabled(false);
  }
};
// libtorch 1.13 has no fused attention: the composition its MultiheadAttention computes.
inline torch::Tensor attention(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, bool causal) {
  torch::Tensor s = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(double(q.size(-1)));
  if (causal) {
    const int64_t T = q.size(-2);
    s = s.masked_fill(torch::ones({T, T}, torch::kBool).triu(1), -INFINITY);
  }
  return torch::matmul(torch::softmax(s, -1), v);
}
}  // namespace bench

#include "amp_cases.h"
#include "attention_cases.h"
#include "layer_cases.h"
#include "op_cases.h"
#include "train_cases.h"

static const char* kUsage =
    "bench_torch [--groups small,elementwise,reduce,gemm,softmax,linalg,attention,layers,train,amp,"
    "epoch] [--threads N]\n"
    "            [--epochs N] [--quick] [--list] [--out FILE]\n";

int main(int argc, char** argv) {
  bench::Options opts = bench::parse_args(argc, argv, kUsage);
  if (opts.list_only) {
    std::puts("small elementwise reduce gemm softmax linalg attention layers train amp epoch");
    return 0;
  }
  torch::set_num_threads(opts.threads);
  bench::Runner r("libtorch", opts);
  bench::op_rows(r);
  bench::attention_rows(r);
  bench::layer_rows(r);
  bench::step_rows(r);
  bench::amp_rows(r);
  bench::epoch_rows(r, opts.epochs);
  r.write_json("libtorch " + std::string(TORCH_VERSION) + ", intra-op threads " +
               std::to_string(torch::get_num_threads()));
  return 0;
}
