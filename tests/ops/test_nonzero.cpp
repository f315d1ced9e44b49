// nonzero and one-argument where against PyTorch on every device: dtypes, ranks (0-dim, empty,
// all false, all true), non-contiguous inputs, and masks long enough that the CUDA kernels split
// them over several blocks (4096 elements each), whose offsets must keep row-major order.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::expect_close;
using ember::testing::torch_run;

namespace {

// A tensor of `shape` and `dtype` whose elements are zero with probability about `zero_fraction`.
Tensor sparse_input(std::vector<int64_t> shape, ScalarType dtype, double zero_fraction,
                    uint64_t seed) {
  manual_seed(seed);
  Tensor keep = rand(shape).ge(zero_fraction);
  Tensor values = randn(shape).add(3.0);  // away from zero
  return where(keep, values, 0.0).to(dtype);
}

void check_on_devices(const Tensor& x, const std::string& context) {
  auto r = torch_run("y = torch.nonzero(x)\nw = torch.where(x)\nn = len(w)\n" +
                         std::string("w0 = w[0] if n > 0 else torch.zeros(0)\n") +
                         "wl = w[-1] if n > 0 else torch.zeros(0)",
                     {{"x", x}}, {"y", "n", "w0", "wl"});
  for (const Device& dev : ember::testing::test_devices()) {
    SCOPED_TRACE(context + " on " + dev.str());
    Tensor xd = x.to(dev);
    Tensor y = nonzero(xd);
    EXPECT_EQ(y.device(), dev);
    EXPECT_EQ(y.dtype(), kLong);
    expect_close(y.cpu(), r.at("y"), 0, 0, context);
    expect_close(xd.nonzero().cpu(), r.at("y"), 0, 0, context + " (method)");
    std::vector<Tensor> w = where(xd);
    ASSERT_EQ(static_cast<int64_t>(w.size()), r.at("n").item<int64_t>());
    expect_close(w.front().cpu(), r.at("w0"), 0, 0, context + " where[0]");
    expect_close(w.back().cpu(), r.at("wl"), 0, 0, context + " where[-1]");
    if (x.dim() >= 2) {
      Tensor nc = ember::testing::non_contiguous(xd);
      expect_close(nonzero(nc).cpu(), r.at("y"), 0, 0, context + " (non-contiguous)");
    }
  }
}

}  // namespace

TEST(Nonzero, EveryDtypeMatchesTorch) {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kLong, kInt, kByte, kBool}) {
    check_on_devices(sparse_input({3, 5}, dt, 0.5, 11), std::string("dtype ") + to_string(dt));
  }
}

TEST(Nonzero, RanksAndEdgeCases) {
  check_on_devices(sparse_input({7}, kFloat, 0.5, 1), "1-D");
  check_on_devices(sparse_input({2, 3, 4, 2}, kFloat, 0.5, 2), "4-D");
  check_on_devices(full({}, 2.0), "0-dim nonzero");
  check_on_devices(zeros({}), "0-dim zero");
  check_on_devices(zeros({0, 3}), "empty");
  check_on_devices(zeros({4, 3}), "all zero");
  check_on_devices(ones({4, 3}, kBool), "all true");
  Tensor special = tensor({0.0f, -0.0f, NAN, INFINITY, -2.5f});
  check_on_devices(special, "-0 is zero; NaN and inf are not");
}

TEST(Nonzero, ManyBlocksKeepRowMajorOrder) {
  // 3 * 5000 elements: several 4096-element blocks on CUDA, some with no true element.
  Tensor x = sparse_input({3, 5000}, kFloat, 0.7, 3);
  x.narrow(1, 1000, 3000).zero_();
  check_on_devices(x, "15000 elements");
  check_on_devices(sparse_input({40, 30, 20}, kBool, 0.01, 4), "24000 elements, sparse");
}

TEST(Nonzero, MaskFromAComparison) {
  Tensor x = randn({6, 7});
  auto r = torch_run("y = torch.nonzero(x > 0.5)", {{"x", x}});
  for (const Device& dev : ember::testing::test_devices()) {
    expect_close(nonzero(x.to(dev) > 0.5).cpu(), r.at("y"), 0, 0, dev.str());
  }
}
