// The shape and indexing ops of issue 34 beyond what the op table's sweeps check (their rows are
// in op_rows_shape.cpp, op_rows_indexing.cpp and op_rows_reductions.cpp): the factories
// tril_indices and triu_indices against PyTorch on every device, in-place forms writing self,
// and bad input: each op's error names what was wrong and the values, with PyTorch's text.
#include <gtest/gtest.h>

#include "ember/autograd.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::torch_run;
namespace et = ember::testing;

namespace {

TEST(TriangleIndices, MatchPyTorchOnEveryDevice) {
  auto r = torch_run(
      "a = torch.tril_indices(4, 3); b = torch.tril_indices(3, 5, 1)\n"
      "c = torch.triu_indices(4, 4, -1); d = torch.triu_indices(3, 2, 2)\n"
      "e = torch.tril_indices(0, 3); f = torch.triu_indices(5, 3, dtype=torch.int32)",
      {}, {"a", "b", "c", "d", "e", "f"});
  for (Device dev : et::test_devices()) {
    const TensorOptions on = TensorOptions(kLong).device(dev);
    const std::string ctx = dev.str();
    expect_close(tril_indices(4, 3, 0, on).cpu(), r.at("a"), 0, 0, ctx + " tril_indices(4, 3)");
    expect_close(tril_indices(3, 5, 1, on).cpu(), r.at("b"), 0, 0, ctx + " tril_indices(3, 5, 1)");
    expect_close(triu_indices(4, 4, -1, on).cpu(), r.at("c"), 0, 0, ctx + " triu_indices(4, 4)");
    expect_close(triu_indices(3, 2, 2, on).cpu(), r.at("d"), 0, 0, ctx + " triu_indices(3, 2, 2)");
    expect_close(tril_indices(0, 3, 0, on).cpu(), r.at("e"), 0, 0, ctx + " tril_indices(0, 3)");
    const Tensor f = triu_indices(5, 3, 0, on.dtype(kInt));
    EXPECT_EQ(f.device(), dev);
    expect_close(f.cpu(), r.at("f"), 0, 0, ctx + " triu_indices int32");
  }
}

TEST(TriangleIndices, BadInput) {
  EXPECT_EQ(error_of<ValueError>([] { tril_indices(-1, 3); }),
            "tril_indices: row must be non-negative, got-1");
  EXPECT_EQ(error_of<ValueError>([] { triu_indices(2, -4); }),
            "triu_indices: col must be non-negative, got-4");
  EXPECT_EQ(error_of<TypeError>([] { tril_indices(2, 2, 0, kFloat); }),
            "\"tril_indices\" not implemented for 'Float'");
}

TEST(ShapeOpsBadInput, RearrangingAndRepeating) {
  const Tensor x = ones({2, 3});
  EXPECT_EQ(error_of<ValueError>([&] {
              roll(x, {1, 2}, {0});
            }),
            "shifts and dimensions must align. shifts: 2, dims:1");
  EXPECT_EQ(error_of<ValueError>([&] { roll(x, {}, {}); }), "roll(): `shifts` required");
  EXPECT_EQ(error_of<ValueError>([&] {
              rot90(x, 1, {0, 0});
            }),
            "expected rotation dims to be different, but got dim0 = 0 and dim1 = 0");
  EXPECT_EQ(error_of<ValueError>([&] {
              rot90(ones({3}), 1, {0, 1});
            }),
            "expected total dims >= 2, but got total dims = 1");
  EXPECT_EQ(error_of<ValueError>([&] {
              rot90(x, 1, {0, 3});
            }),
            "Rotation dim1 out of range, dim1 = 3");
  EXPECT_EQ(error_of<ValueError>([&] { fliplr(ones({3})); }),
            "Input must be >= 2-d. (fliplr of a tensor of shape [3])");
  EXPECT_EQ(error_of<ValueError>([&] {
              meshgrid({ones({2}), ones({2})}, "yx");
            }),
            "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: yx");
  EXPECT_EQ(error_of<ValueError>([&] {
              meshgrid({ones({2, 2})});
            }),
            "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of "
            "shape [2, 2]");
  EXPECT_EQ(error_of<ValueError>([&] {
              repeat_interleave(x, ember::tensor({1, 2}), 1);
            }),
            "repeats must have the same size as input along dim (repeats 2, input 3 along dim 1)");
  EXPECT_EQ(error_of<ValueError>([&] {
              repeat_interleave(ember::tensor({1, -2}));
            }),
            "repeats can not be negative (got [1, -2])");
  EXPECT_EQ(error_of<ValueError>([&] { repeat_interleave(x, -1); }),
            "repeats can not be negative (got -1)");
  EXPECT_NE(error_of<ValueError>([&] {
              broadcast_tensors({ones({2}), ones({3})});
            }),
            "<no exception>");
}

TEST(ShapeOpsBadInput, SplittingAndStacking) {
  const Tensor x = ones({4, 6});
  EXPECT_EQ(error_of<ValueError>([&] { tensor_split(x, 0); }),
            "number of sections must be larger than 0, got 0");
  EXPECT_EQ(error_of<ValueError>([&] { tensor_split(ones({}), 2); }),
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  EXPECT_EQ(error_of<TypeError>([&] { tensor_split(x, ember::tensor({1.5f})); }),
            "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
            "torch.float32");
  EXPECT_EQ(error_of<ValueError>([&] { hsplit(x, 4); }),
            "torch.hsplit attempted to split along dimension 1, but the size of the dimension 6 "
            "is not divisible by the split_size 4!");
  EXPECT_EQ(error_of<ValueError>([&] { vsplit(ones({4}), 2); }),
            "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with 1 "
            "dimensions!");
  EXPECT_EQ(error_of<ValueError>([&] { hstack({}); }), "hstack expects a non-empty TensorList");
  EXPECT_EQ(error_of<ValueError>([&] {
              block_diag({ones({2, 2, 2})});
            }),
            "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 0 has 3 "
            "dimensions");
  EXPECT_EQ(error_of<ValueError>([&] { combinations(x); }),
            "combinations: Expect a 1D vector, but got shape [4, 6]");
  EXPECT_EQ(error_of<ValueError>([&] { diag_embed(x, 0, 1, -2); }),
            "diagonal dimensions cannot be identical 1, -2");
}

TEST(IndexOpsBadInput, ScatterAndFriends) {
  const Tensor x = ones({3, 4});
  const Tensor idx = ember::tensor({0, 5}).view({1, 2});
  EXPECT_EQ(error_of<ValueError>([&] {
              scatter(x, 1, idx, ones({1, 2}));
            }),
            "scatter(): index 5 is out of bounds for dimension 1 with size 4");
  EXPECT_EQ(error_of<TypeError>([&] { scatter(x, 1, idx.to(kInt), 1.0); }),
            "scatter(): Expected dtype int64 for index, got torch.int32");
  EXPECT_EQ(error_of<TypeError>([&] {
              scatter(x, 1, zeros({1, 2}, kLong), ones({1, 2}, kDouble));
            }),
            "scatter(): Expected self.dtype to be equal to src.dtype, got torch.float32 and "
            "torch.float64");
  EXPECT_EQ(error_of<ValueError>([&] { scatter(x, 1, zeros({2}, kLong), 1.0); }),
            "scatter(): Index tensor must have the same number of dimensions as self tensor "
            "(index [2], self [3, 4])");
  EXPECT_EQ(error_of<ValueError>([&] {
              scatter(x, 1, zeros({1, 2}, kLong), ones({1, 2}), "max");
            }),
            "reduce argument must be either add or multiply. (got max)");
  EXPECT_EQ(error_of<ValueError>([&] {
              scatter_reduce(x, 1, zeros({1, 2}, kLong), ones({1, 2}), "max");
            }),
            "reduce argument must be either sum, prod, mean, amax or amin. (got max)");
  EXPECT_EQ(error_of<ValueError>([&] {
              scatter_reduce(x, 0, zeros({4, 1}, kLong), ones({3, 1}), "sum");
            }),
            "scatter_reduce(): Expected index [4, 1] to be smaller than self [3, 4] apart from "
            "dimension 0 and to be smaller size than src [3, 1]");
  EXPECT_EQ(error_of<IndexError>([&] { index_fill(x, 1, ember::tensor({4}), 0.0); }),
            "index_fill(): index 4 is out of bounds for dimension 1 with size 4");
  EXPECT_EQ(error_of<ValueError>([&] { index_fill(x, 1, ember::tensor({1}), ones({1})); }),
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
            "dimension(s).");
  EXPECT_EQ(error_of<IndexError>([&] { take(x, ember::tensor({12})); }),
            "out of range: tried to access index 12 on a tensor of 12 elements.");
  EXPECT_EQ(error_of<ValueError>([&] { take_along_dim(x, zeros({4}, kLong), 0); }),
            "torch.take_along_dim(): input and indices should have the same number of dimensions, "
            "but got 2 dimensions for input, and 1 dimensions for indices");
  EXPECT_EQ(error_of<TypeError>([&] { masked_select(x, ones({4})); }),
            "masked_select: expected BoolTensor for mask (got torch.float32)");
}

TEST(ProductOpsBadInput, CrossTensordot) {
  EXPECT_EQ(error_of<ValueError>([] {
              cross(ones({2, 4}), ones({2, 4}));
            }),
            "no dimension of size 3 in input (sizes [2, 4])");
  EXPECT_EQ(error_of<ValueError>([] {
              cross(ones({3, 2}), ones({3, 2}), 1);
            }),
            "linalg.cross: inputs dimension 1 must have length 3. Got 2 and 2");
  EXPECT_EQ(error_of<ValueError>([] {
              tensordot(ones({2, 3}), ones({4, 3}), {1}, {0});
            }),
            "contracted dimensions need to match, but first has size 3 in dim 1 and second has "
            "size 4 in dim 0");
  EXPECT_EQ(error_of<ValueError>([] {
              tensordot(ones({2, 3}), ones({3}), {1, 0}, {0});
            }),
            "both dimension lists should have same length (got [1, 0] and [0])");
}

// In-place forms write self (the same storage) and keep autograd history through it.
TEST(IndexOpsInPlace, WriteSelfAndRecord) {
  for (Device dev : et::test_devices()) {
    Tensor x = zeros({2, 3}, TensorOptions(kFloat).device(dev));
    const void* storage = x.data_ptr();
    Tensor idx = ember::tensor({2, 0}).view({2, 1}).to(dev);
    x.scatter_(1, idx, 5.0);
    EXPECT_EQ(x.data_ptr(), storage);
    expect_close(x.cpu(), ember::tensor({0.f, 0.f, 5.f, 5.f, 0.f, 0.f}).view({2, 3}), 0, 0,
                 dev.str() + " scatter_");
    x.index_fill_(0, ember::tensor({1}).to(dev), -1.0);
    x.scatter_reduce_(1, idx, ones({2, 1}, x.options()).mul(3), "amax", false);
    expect_close(x.cpu(), ember::tensor({0.f, 0.f, 3.f, 3.f, -1.f, -1.f}).view({2, 3}), 0, 0,
                 dev.str() + " index_fill_, scatter_reduce_");
    Tensor leaf = ones({2, 3}, x.options()).requires_grad_(true);
    Tensor y = leaf.mul(2);
    y.scatter_(1, idx, ones({2, 1}, x.options()).mul(7));
    y.sum().backward();
    expect_close(leaf.grad().cpu(), ember::tensor({2.f, 2.f, 0.f, 0.f, 2.f, 2.f}).view({2, 3}), 0,
                 0, dev.str() + " scatter_ gradient");
  }
}

}  // namespace
