// PyTorch parity helpers of the elementwise suites (elementwise_oracle.h).
#include "support/elementwise_oracle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace ember::testing {
const std::vector<ScalarType> kElementwiseDtypes = {kFloat, kDouble, kHalf, kBFloat16,
                                                    kInt,   kLong,   kBool};

// Tolerance for comparing a result of dtype `t` with PyTorch (both round the same float math;
// 16-bit results may differ by one unit in the last place).
std::pair<double, double> elementwise_tolerance(ScalarType t) {
  switch (t) {
    case kFloat:
      return {1e-5, 1e-6};
    case kDouble:
      return {1e-12, 1e-14};
    case kHalf:
      return {2e-3, 1e-3};
    case kBFloat16:
      return {1.6e-2, 1e-2};
    default:
      return {0, 0};
  }
}

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// PyTorch 1.13 CPU kernels that simply do not exist for a dtype (not a statement about semantics).
bool is_kernel_gap(const std::string& torch_error) {
  if (torch_error.find("not implemented for 'Half'") != std::string::npos ||
      torch_error.find("not implemented for 'BFloat16'") != std::string::npos)
    return true;
  // PyTorch 1.x refuses a bool tensor to a bool power; 2.x returns it (x ** True is x), and Ember
  // follows 2.x. Under 1.x there is nothing to compare; the Pow test checks Ember's values.
  return torch_error.find("\"pow\" not implemented for 'Bool'") != std::string::npos &&
         TorchOracle::instance().torch_version().rfind("1.", 0) == 0;
}

std::string last_line(const std::string& s) {
  std::string t = s;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  size_t nl = t.rfind("--- code ---");
  if (nl != std::string::npos) t = t.substr(0, nl);
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace

// True when `msg` names dtype `t` in any of the spellings users see.
bool names_dtype(const std::string& msg, ScalarType t) {
  std::string m = lower(msg);
  std::string py = python_name(t);
  return m.find(lower(to_string(t))) != std::string::npos ||
         m.find(lower(py.substr(py.find('.') + 1))) != std::string::npos;
}

TorchResult torch_eval(const std::string& code, const std::map<std::string, Tensor>& inputs) {
  try {
    return {TorchOracle::instance().run(code, inputs, {"out"}).at("out"), ""};
  } catch (const Error& e) {
    return {Tensor(), e.what()};
  }
}

// Compares Ember's result (or exception) with PyTorch's for one case; `ember_fn` is evaluated
// for each layout in `layouts` (all with the same logical values as the PyTorch inputs).
void expect_parity(const std::string& ctx, const TorchResult& expected,
                   const std::vector<std::pair<std::string, std::function<Tensor()>>>& layouts,
                   ScalarType named_dtype, double scale) {
  if (!expected.out.defined() && is_kernel_gap(expected.error)) return;
  for (const auto& [layout, fn] : layouts) {
    std::string where = ctx + " [" + layout + "]";
    if (!expected.out.defined()) {
      try {
        Tensor got = fn();
        ADD_FAILURE() << where << ": PyTorch rejects this (" << last_line(expected.error)
                      << ") but Ember returned dtype " << got.dtype() << " shape " << got.sizes();
      } catch (const Error& e) {
        EXPECT_TRUE(names_dtype(e.what(), named_dtype))
            << where << ": the error should name dtype " << named_dtype << ": " << e.what();
      }
      return;  // one layout is enough to show a rejection
    }
    Tensor got;
    try {
      got = fn();
    } catch (const std::exception& e) {
      ADD_FAILURE() << where << ": Ember threw but PyTorch returns " << expected.out.dtype() << ": "
                    << e.what();
      continue;
    }
    auto [rtol, atol] = elementwise_tolerance(expected.out.dtype());
    // PyTorch's 16-bit CPU kernels round intermediates (alpha * b) to the 16-bit type, Ember does
    // not: allow an ulp of the intermediate's magnitude.
    if (expected.out.dtype() == kHalf) atol = std::max(atol, 2 * 0x1p-10 * scale);
    if (expected.out.dtype() == kBFloat16) atol = std::max(atol, 2 * 0x1p-7 * scale);
    expect_close(got, expected.out, rtol, atol, where);
  }
}

// Largest |x| in `t` (0 for an empty tensor).
double max_abs(const Tensor& t) {
  double m = 0;
  for (double v : to_doubles(t)) m = std::max(m, std::fabs(v));
  return m;
}

std::string python_literal(const Scalar& s) {
  if (s.isBoolean()) return s.toBool() ? "True" : "False";
  if (s.isIntegral(false)) return std::to_string(s.toLong());
  std::ostringstream os;
  os.precision(17);
  os << s.toDouble();
  std::string r = os.str();
  if (r.find_first_of(".en") == std::string::npos) r += ".0";  // keep it a Python float
  return r;
}

}  // namespace ember::testing
