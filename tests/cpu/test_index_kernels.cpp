// The CPU indexing kernels (index_select, index_add, gather, scatter_add) called directly, on
// contiguous and non-contiguous operands of several dtypes, against PyTorch; and their errors.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/backend.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::torch_run;
namespace et = ember::testing;

namespace {

Tensor indices(std::vector<int64_t> shape, int64_t high, uint64_t seed) {
  et::InputSpec spec{shape, kLong, et::Domain::Index, high};
  return et::make_input(spec, seed);
}

const std::vector<ScalarType> kDtypes = {kFloat, kDouble, kLong, kInt, kBFloat16, kHalf};

Backend& be() {
  return cpu_backend();
}

}  // namespace

TEST(IndexSelectKernel, EveryDimLayoutAndDtype) {
  for (ScalarType dt : kDtypes) {
    Tensor x = et::make_input({5, 6, 4}, dt, 1);
    for (int64_t d = 0; d < 3; ++d) {
      Tensor idx = indices({7}, x.size(d), 10 + d);  // repeats included
      auto r =
          torch_run("y = x.index_select(" + std::to_string(d) + ", i)", {{"x", x}, {"i", idx}});
      DimVector shape(x.sizes());
      shape[d] = 7;
      for (bool nc : {false, true}) {
        Tensor in = nc ? et::non_contiguous(x) : x;
        Tensor out = nc ? et::non_contiguous(zeros(shape, dt)) : empty(shape, dt);
        be().index_select(out, in, d, idx);
        expect_close(out, r.at("y"), 0, 0,
                     std::string(to_string(dt)) + " dim " + std::to_string(d));
      }
    }
  }
}

TEST(IndexSelectKernel, EmbeddingLookupShape) {
  // A large table read by many indices: the contiguous-row fast path, threaded.
  Tensor table = et::make_input({1000, 64}, kFloat, 2);
  Tensor idx = indices({5000}, 1000, 3);
  Tensor out = empty({5000, 64});
  be().index_select(out, table, 0, idx);
  auto r = torch_run("y = t[i]", {{"t", table}, {"i", idx}});
  expect_close(out, r.at("y"), 0, 0);
}

TEST(IndexAddKernel, RepeatedIndicesAccumulate) {
  for (ScalarType dt : {kFloat, kDouble, kLong, kBFloat16}) {
    for (int64_t d = 0; d < 2; ++d) {
      Tensor base = et::make_input({5, 6}, dt, 20 + d);
      DimVector sshape(base.sizes());
      sshape[d] = 9;
      Tensor src = et::make_input(sshape.ref().vec(), dt, 30 + d);
      Tensor idx = indices({9}, base.size(d), 40 + d);
      auto r = torch_run("y = b.index_add(" + std::to_string(d) + ", i, s)",
                         {{"b", base}, {"i", idx}, {"s", src}});
      for (bool nc : {false, true}) {
        Tensor out = nc ? et::non_contiguous(base) : base.clone();
        be().index_add(out, d, idx, nc ? et::non_contiguous(src) : src);
        const double tol = dt == kBFloat16 ? 2e-2 : 1e-6;
        expect_close(out, r.at("y"), tol, tol,
                     std::string(to_string(dt)) + " dim " + std::to_string(d));
      }
    }
  }
}

TEST(GatherKernel, EveryDimAndSmallerIndex) {
  for (ScalarType dt : kDtypes) {
    Tensor x = et::make_input({4, 5, 6}, dt, 50);
    for (int64_t d = 0; d < 3; ++d) {
      // The index may be smaller than the input outside `d`, and longer along `d`.
      std::vector<int64_t> ishape = {3, 4, 5};
      ishape[d] = 8;
      Tensor idx = indices(ishape, x.size(d), 60 + d);
      auto r =
          torch_run("y = torch.gather(x, " + std::to_string(d) + ", i)", {{"x", x}, {"i", idx}});
      for (bool nc : {false, true}) {
        Tensor in = nc ? et::non_contiguous(x) : x;
        Tensor ix = nc ? et::non_contiguous(idx) : idx;
        Tensor out = empty(ishape, dt);
        be().gather(out, in, d, ix);
        expect_close(out, r.at("y"), 0, 0,
                     std::string(to_string(dt)) + " dim " + std::to_string(d));
      }
    }
  }
}

TEST(ScatterAddKernel, CollisionsAccumulate) {
  for (ScalarType dt : {kFloat, kDouble, kLong}) {
    for (int64_t d = 0; d < 2; ++d) {
      Tensor base = et::make_input({4, 5}, dt, 70 + d);
      Tensor src =
          et::make_input({6, 7}, dt, 80 + d);  // larger than index: only its leading part is read
      std::vector<int64_t> ishape = {3, 4};
      ishape[d] = 6;
      Tensor idx = indices(ishape, base.size(d), 90 + d);
      auto r = torch_run("y = b.scatter_add(" + std::to_string(d) + ", i, s)",
                         {{"b", base}, {"i", idx}, {"s", src}});
      for (bool nc : {false, true}) {
        Tensor out = nc ? et::non_contiguous(base) : base.clone();
        be().scatter_add(out, d, nc ? et::non_contiguous(idx) : idx,
                         nc ? et::non_contiguous(src) : src);
        expect_close(out, r.at("y"), 1e-6, 1e-6,
                     std::string(to_string(dt)) + " dim " + std::to_string(d));
      }
    }
  }
}

TEST(IndexKernels, OutOfRangeIndicesNameIndexAndSize) {
  Tensor x = zeros({3, 4});
  Tensor out = zeros({2, 4});
  std::string msg = error_of<IndexError>([&] { be().index_select(out, x, 0, tensor({0, 5})); });
  EXPECT_TRUE(contains(msg, "index 5") && contains(msg, "size 3")) << msg;
  msg = error_of<IndexError>([&] { be().index_select(out, x, 0, tensor({-1, 0})); });
  EXPECT_TRUE(contains(msg, "index -1") && contains(msg, "size 3")) << msg;
  expect_close(out, zeros({2, 4}), 0, 0);  // nothing was written

  msg = error_of<IndexError>([&] { be().index_add(x, 1, tensor({4}), ones({3, 1})); });
  EXPECT_TRUE(contains(msg, "index 4") && contains(msg, "size 4")) << msg;
  msg = error_of<ValueError>([&] { be().gather(zeros({3, 1}), x, 1, tensor({{0}, {7}, {1}})); });
  EXPECT_TRUE(contains(msg, "index 7") && contains(msg, "dimension 1") && contains(msg, "size 4"))
      << msg;
  msg = error_of<ValueError>([&] { be().scatter_add(x, 0, tensor({{3, 0, 0, 0}}), ones({1, 4})); });
  EXPECT_TRUE(contains(msg, "index 3") && contains(msg, "size 3")) << msg;
  expect_close(x, zeros({3, 4}), 0, 0);

  msg = error_of<TypeError>([&] { be().index_select(out, x, 0, tensor({0, 1}, kInt)); });
  EXPECT_TRUE(contains(msg, "int64")) << msg;
  msg = error_of<ValueError>([&] { be().gather(zeros({3, 5}), x, 0, zeros({3, 5}, kLong)); });
  EXPECT_TRUE(contains(msg, "[3, 5]") && contains(msg, "[3, 4]")) << msg;
}
