// Ember's CPU benchmark program: every row of op_cases.h and train_cases.h, plus the physical
// references (streaming loop, cblas_sgemm). Prints one JSON document; progress goes to stderr.
#include <cblas.h>
#include <omp.h>

#include <ember/ember.h>
#include <ember/nn.h>
#include <ember/optim.h>

namespace bench {
namespace tt = ::ember;
struct CpuBf16Autocast {
  ember::amp::autocast region{ember::kCPU, ember::kBFloat16};
};
}  // namespace bench
#define EMBER_BENCH_ATTENTION_MATH
#include "ember_attention.h"

#include "amp_cases.h"
#include "attention_cases.h"
#include "layer_cases.h"
#include "op_cases.h"
#include "reference.h"
#include "train_cases.h"

static const char* kUsage =
    "bench_ember [--groups small,elementwise,reduce,gemm,softmax,linalg,attention,layers,train,amp,"
    "epoch] [--threads N]\n"
    "            [--epochs N] [--quick] [--list] [--out FILE]\n";

int main(int argc, char** argv) {
  bench::Options opts = bench::parse_args(argc, argv, kUsage);
  if (opts.list_only) {
    std::puts("small elementwise reduce gemm softmax linalg attention layers train amp epoch");
    return 0;
  }
  // Ember's loops and OpenBLAS both run on OpenMP: one setting pins both.
  omp_set_num_threads(opts.threads);
  openblas_set_num_threads(opts.threads);
  bench::Runner r("ember", opts);
  bench::op_rows(r);
  bench::attention_rows(r);
  bench::layer_rows(r);
  bench::reference_rows(r);
  bench::step_rows(r);
  bench::amp_rows(r);
  bench::epoch_rows(r, opts.epochs);
  r.write_json("ember " + std::string(EMBER_BENCH_VERSION) + ", OpenMP threads " +
               std::to_string(omp_get_max_threads()));
  return 0;
}
