#pragma once
// Shared helpers for the parity suites: the devices to test, seeded inputs in a value domain,
// non-contiguous copies, a finite-difference gradient check, the PyTorch oracle with a default
// output, and error-message checks.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ember/ops.h"

namespace ember::testing {

// The source tree and tests/support, found at run time: $EMBER_SOURCE_DIR, else the folder this
// build was configured from when it still exists, else the working directory (CTest runs the tests
// from the source root). Test binaries carried to another machine (scripts/gpu-check) then find
// their scripts and data in that machine's checkout.
std::string source_dir();
std::string support_dir();

// CPU, then cuda:0..n-1 when ember::cuda::is_available().
std::vector<Device> cuda_devices();
std::vector<Device> test_devices();

// Where an op's inputs are drawn from (so that log sees positives, abs stays off its kink, ...).
enum class Domain {
  Normal,        // standard normal
  Positive,      // uniform [0.5, 2)
  Unit,          // uniform (-0.9, 0.9): inside the domain of atanh-like ops, off clamp bounds
  AwayFromZero,  // +-[0.5, 2): away from the kinks of abs/relu/sign and the pole of 1/x
  SmallInt,      // integers in [-3, 3] (in any dtype): ties for comparisons, exact in half
  Index,         // int64 in [0, high): indices for index_select/gather/one_hot
  Bool,          // true/false
};
const char* domain_name(Domain d);

struct InputSpec {
  std::vector<int64_t> shape;
  ScalarType dtype = kFloat;
  Domain domain = Domain::Normal;
  int64_t high = 0;  // exclusive bound for Domain::Index
};

// A CPU tensor drawn from `spec` with ember's Philox generator seeded with `seed`.
Tensor make_input(const InputSpec& spec, uint64_t seed);
// A CPU tensor of `dtype`: standard normal for floating dtypes, Domain::SmallInt otherwise.
Tensor make_input(std::vector<int64_t> shape, ScalarType dtype, uint64_t seed);
// Same logical values and shape as `t` on the same device, laid out non-contiguously: the last two
// dims transposed in memory (or every other element for 1-D). 0-dim and 1-element tensors and
// tensors with a 0 size are returned as they are (there is no non-contiguous layout for them).
Tensor non_contiguous(const Tensor& t);

// A deterministic seed for a named case (FNV-1a of the name).
uint64_t seed_for(const std::string& name);

// Checks d(sum(f(x) * v))/dx from autograd against central differences in float64 on `device`,
// for every floating input (integer and bool inputs are passed through unchanged). `inputs` are
// CPU tensors; the check runs on copies cast to float64 on `device`.
using TensorFn = std::function<Tensor(const std::vector<Tensor>&)>;
void expect_gradients_match_finite_differences(const TensorFn& f, const std::vector<Tensor>& inputs,
                                               Device device, const std::string& context,
                                               double eps = 1e-6, double rtol = 1e-4,
                                               double atol = 1e-6);

// TorchOracle::instance().run, reading back "y" unless told otherwise.
std::map<std::string, Tensor> torch_run(const std::string& py,
                                        const std::map<std::string, Tensor>& in,
                                        const std::vector<std::string>& out = {"y"});

// The message of the E that f throws, or "<no exception>" (another exception propagates).
template <typename E = Error>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "<no exception>";
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace ember::testing
