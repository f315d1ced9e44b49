#pragma once
// PyTorch parity of elementwise results over every dtype, used by the op table's sweeps
// (tests/ops/test_op_dtypes.cpp, test_op_special.cpp, test_op_edge_cases.cpp).
//
// Where PyTorch 1.13 rejects a case only because its CPU kernel lacks a dtype ("... not
// implemented for 'Half'"), the case is skipped; every other rejection must be an ember::Error
// naming the dtype.
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ember/ops.h"

namespace ember::testing {

// float32, float64, float16, bfloat16, int32, int64, bool.
extern const std::vector<ScalarType> kElementwiseDtypes;

// Tolerance for comparing a result of dtype `t` with PyTorch (both round the same float math;
// 16-bit results may differ by one unit in the last place).
std::pair<double, double> elementwise_tolerance(ScalarType t);

// True when `msg` names dtype `t` in any of the spellings users see.
bool names_dtype(const std::string& msg, ScalarType t);

// Runs `code` (defining `out`) in PyTorch; returns the result or the Python error text.
struct TorchResult {
  Tensor out;
  std::string error;
};
TorchResult torch_eval(const std::string& code, const std::map<std::string, Tensor>& inputs);

// Compares Ember's result (or exception) with PyTorch's for one case; each function in `layouts`
// is evaluated (all with the same logical values as the PyTorch inputs). `scale` widens the
// absolute tolerance of 16-bit results by an ulp of that magnitude.
void expect_parity(const std::string& ctx, const TorchResult& expected,
                   const std::vector<std::pair<std::string, std::function<Tensor()>>>& layouts,
                   ScalarType named_dtype, double scale = 0);

// Largest |x| in `t` (0 for an empty tensor).
double max_abs(const Tensor& t);

// A Scalar as a Python literal (True, 3, 2.5).
std::string python_literal(const Scalar& s);

}  // namespace ember::testing
