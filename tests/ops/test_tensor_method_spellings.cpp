// libtorch's method spellings of irregular ops Ember defines as free functions (x.gather(1, i),
// x.logsumexp(..), ...) and the free clamp_min/clamp_max: each gives what the free function
// gives, gradients included, on every device. The methods of the ops in ember/op_table.h
// (x.log1p(), x.floor_(), x.fix(), ...) are checked by tests/ops/test_op_database.cpp.
#include <gtest/gtest.h>

#include "ember/ops.h"
#include "support/test_util.h"

namespace ember {
namespace {

TEST(TensorMethodSpellings, EqualTheFreeFunctions) {
  for (const Device& dev : testing::test_devices()) {
    const std::string ctx = dev.str();
    Tensor x = testing::make_input({3, 4}, kDouble, 1).to(dev);
    Tensor v = testing::make_input({4}, kDouble, 3).to(dev);
    Tensor m = testing::make_input({4, 5}, kDouble, 4).to(dev);
    Tensor c = testing::make_input({3, 5}, kDouble, 5).to(dev);
    int64_t cols[] = {0, 3, 1, 2, 2, 0};
    Tensor idx = from_blob(cols, {3, 2}, TensorOptions().dtype(kLong)).clone().to(dev);
    EXPECT_TRUE(x.gather(1, idx).equal(gather(x, 1, idx))) << ctx;
    EXPECT_TRUE(x.logsumexp({1}, true).equal(logsumexp(x, {1}, true))) << ctx;
    EXPECT_TRUE(v.outer(v).equal(outer(v, v))) << ctx;
    EXPECT_TRUE(c.addmm(x, m, 0.5, 2).equal(addmm(c, x, m, 0.5, 2))) << ctx;
    EXPECT_TRUE(clamp_min(x, 0.1).equal(x.clamp(0.1, std::nullopt))) << ctx;
    EXPECT_TRUE(clamp_max(x, -0.1).equal(x.clamp(std::nullopt, -0.1))) << ctx;
    // Gradients flow through the method spellings as through the free functions.
    Tensor leaf = x.detach().requires_grad_();
    leaf.gather(1, idx).sum().backward();
    Tensor expected = zeros({3, 4}, TensorOptions().dtype(kDouble).device(dev));
    for (int64_t r = 0; r < 3; ++r) {
      for (int64_t k = 0; k < 2; ++k) {
        expected[r][cols[r * 2 + k]] += 1.0;
      }
    }
    EXPECT_TRUE(leaf.grad().equal(expected)) << ctx;
    // Errors are the free functions' own.
    EXPECT_THROW(x.gather(2, idx), Error) << ctx;
    EXPECT_THROW(x.addmm(x, x), Error) << ctx;
  }
}

}  // namespace
}  // namespace ember
