#pragma once
// PyTorch as a test oracle: one persistent `/usr/bin/python3 torch_oracle.py` per test binary that
// runs snippets of Python on Ember tensors and returns the named results as Ember tensors.
//
//   auto r = TorchOracle::instance().run("y = torch.exp(x)", {{"x", x}}, {"y"});
//   expect_close(ember::exp(x), r.at("y"));
//
// In Python the inputs are torch tensors (same dtype and shape, requires_grad preserved, leaves);
// `torch`, `F` (torch.nn.functional) and `math` are in scope. Outputs may be tensors, torch dtypes
// (returned as a 0-dim tensor of that dtype), bools (bool), ints (int64) or floats (float64).
// Outputs come back on the CPU, contiguous, not requiring grad.
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember::testing {

// The Python with PyTorch that the oracle runs: EMBER_TORCH_PYTHON, else Debian's
// /usr/bin/python3, else the first python3 on PATH that imports torch. Tests that start PyTorch
// scripts of their own use it too.
const std::string& torch_python();

class TorchOracle {
 public:
  static TorchOracle& instance();

  // Runs `python_code` with `inputs` bound and returns the variables named in `outputs`.
  // Throws ember::Error with the Python traceback when the code raises.
  std::map<std::string, Tensor> run(const std::string& python_code,
                                    const std::map<std::string, Tensor>& inputs,
                                    const std::vector<std::string>& outputs);
  // The version string of the PyTorch serving requests (starts the process if needed).
  std::string torch_version();

  TorchOracle(const TorchOracle&) = delete;
  TorchOracle& operator=(const TorchOracle&) = delete;
  ~TorchOracle();

 private:
  TorchOracle() = default;
  void ensure_started();
  void stop();
  std::string read_line();
  void write_all(const std::string& s);

  std::mutex mutex_;
  int pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;  // bytes read from the child past the last line returned
  std::string version_;
};

// Checks dtype and shape equality, then |actual - expected| <= atol + rtol * |expected| per element
// (NaN matches NaN, infinities must match exactly, integers and bools compare exactly). On failure
// reports the max abs diff, the number of mismatches and the first mismatching index.
void expect_close(const Tensor& actual, const Tensor& expected, double rtol = 1e-5,
                  double atol = 1e-8, const std::string& context = "");

// The elements of `t` as a CPU, contiguous byte copy (any device, any strides).
std::vector<char> contiguous_bytes(const Tensor& t);
// The elements of `t` converted to double, row-major.
std::vector<double> to_doubles(const Tensor& t);

}  // namespace ember::testing
