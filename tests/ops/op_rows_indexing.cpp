// The rows of the index writes and reads of issue 34: scatter (src, value, reduce "add" and
// "multiply", in place), scatter_reduce (each reduction, with and without self, floating and
// integer), index_fill, index_put, take, take_along_dim and masked_select.
//
// A plain scatter writes one of several src elements that share a place, and which one is not
// specified (PyTorch's CUDA kernel races too): those rows use indices with no repeat along dim.
#include "ember/tensor_data.h"
#include "ops/op_row_helpers.h"

namespace ember::testing {

using namespace rows;

namespace {

// [[4, 1], [0, 2], [3, 0]]: no repeat within a row (scatter along dim 1 of a [3, 5] tensor).
Tensor rows_index(const Tensor& like) {
  return ember::tensor({4, 1, 0, 2, 3, 0}).view({3, 2}).to(like.device());
}
constexpr const char* kRowsIndex = "torch.tensor([[4, 1], [0, 2], [3, 0]])";

// [[3, 0, 1], [1, 2, 0]]: no repeat within a column (scatter along dim 0 of a [4, 3] tensor).
Tensor columns_index(const Tensor& like) {
  return ember::tensor({3, 0, 1, 1, 2, 0}).view({2, 3}).to(like.device());
}
constexpr const char* kColumnsIndex = "torch.tensor([[3, 0, 1], [1, 2, 0]])";

std::string with_index(const std::string& expr, const char* index) {
  return "i = " + std::string(index) + "; " + expr;
}

// scatter_reduce over a [3, 4] self with a [3, 6] index and src along dim 1 (repeats included).
OpInfo reduce_row(const std::string& reduce, bool include_self, Domain domain = Domain::Normal,
                  ScalarType dtype = kFloat) {
  const std::string name =
      "scatter_reduce_" + reduce + (include_self ? "" : "_exclude_self") +
      (dtype == kFloat ? "" : "_" + std::string(python_name(dtype)).substr(6)) +  // "torch.int64"
      (domain == Domain::SmallInt && dtype == kFloat ? "_zeros" : "");
  const std::string torch = "torch.scatter_reduce(a, 1, b, c, '" + reduce +
                            "', include_self=" + (include_self ? "True" : "False") + ")";
  OpInfo row{name,
             {T({3, 4}, dtype, domain), Idx({3, 6}, 4), T({3, 6}, dtype, domain)},
             [reduce, include_self](const Args& x) {
               return ember::scatter_reduce(x[0], 1, x[1], x[2], reduce, include_self);
             },
             torch,
             dtype == kFloat};
  row.forms.push_back({"method", [reduce, include_self](const Args& x) {
                         return x[0].scatter_reduce(1, x[1], x[2], reduce, include_self);
                       }});
  row.forms.push_back({"in-place", [reduce, include_self](const Args& x) {
                         Tensor y = x[0].clone();
                         y.scatter_reduce_(1, x[1], x[2], reduce, include_self);
                         return y;
                       }});
  return row;
}

}  // namespace

std::vector<OpInfo> indexing_rows() {
  std::vector<OpInfo> rows = {
      // ---- scatter ----
      // src larger than the index: PyTorch 1.13's own backward fails on the shapes (its gather
      // gives src's gradient the index's shape), so finite differences check Ember's.
      no_torch_gradients(also(also({"scatter",
                                    {F({3, 5}), F({3, 4})},
                                    OP(ember::scatter(a, 1, rows_index(a), b)),
                                    with_index("torch.scatter(a, 1, i, b)", kRowsIndex),
                                    true},
                                   "method", OP(a.scatter(1, rows_index(a), b))),
                              "in-place", OP(a.clone().scatter_(1, rows_index(a), b)))),
      {"scatter_dim0",
       {F({4, 3}), F({2, 3})},
       OP(a.scatter(0, columns_index(a), b)),
       with_index("a.scatter(0, i, b)", kColumnsIndex),
       true},
      also({"scatter_value",
            {F({3, 5})},
            OP(ember::scatter(a, 1, rows_index(a), -1.5)),
            with_index("torch.scatter(a, 1, i, -1.5)", kRowsIndex),
            true},
           "in-place", OP(a.clone().scatter_(1, rows_index(a), -1.5))),
      // reduce= has no derivative in PyTorch 1.13: finite differences check Ember's.
      no_torch_gradients(also({"scatter_reduce_add",
                               {F({3, 4}), Idx({3, 6}, 4), F({3, 6})},
                               OP(a.scatter(1, b, c, "add")),
                               "a.scatter(1, b, c, reduce='add')",
                               true},
                              "in-place", OP(a.clone().scatter_(1, b, c, "add")))),
      no_torch_gradients({"scatter_reduce_multiply",
                          {F({3, 4}), Idx({3, 6}, 4), F({3, 6})},
                          OP(ember::scatter(a, 1, b, c, "multiply")),
                          "torch.scatter(a, 1, b, c, reduce='multiply')",
                          true}),
      no_torch_gradients(also({"scatter_value_reduce_multiply",
                               {F({4, 3}), Idx({5, 3}, 4)},
                               OP(a.scatter(0, b, 2.0, "multiply")),
                               "a.scatter(0, b, 2.0, reduce='multiply')",
                               true},
                              "in-place", OP(a.clone().scatter_(0, b, 2.0, "multiply")))),
      // ---- index_fill, index_put ----
      also(also({"index_fill",
                 {F({3, 5})},
                 OP(ember::index_fill(a, 1, ember::tensor({4, -4, 4}).to(a.device()), -1.5)),
                 "torch.index_fill(a, 1, torch.tensor([4, -4, 4]), -1.5)",
                 true},
                "method", OP(a.index_fill(1, ember::tensor({4, -4, 4}).to(a.device()), -1.5))),
           "in-place",
           OP(a.clone().index_fill_(1, ember::tensor({4, -4, 4}).to(a.device()), -1.5))),
      also({"index_fill_tensor",
            {F({4, 3}), F({})},
            OP(a.index_fill(0, ember::tensor({0, 1, 3}).to(a.device()), b)),
            "a.index_fill(0, torch.tensor([0, 1, 3]), b)",
            true},
           "in-place", OP(a.clone().index_fill_(0, ember::tensor({0, 1, 3}).to(a.device()), b))),
      also({"index_put",
            {F({4, 3}), Idx({5}, 4), F({5, 3})},
            OP(ember::index_put(a, {b}, c, true)),
            "torch.index_put(a, (b,), c, accumulate=True)",
            true},
           "method", OP(a.index_put({b}, c, true))),
      {"index_put_two_indices",
       {F({4, 3}), F({2})},
       OP(a.index_put({ember::tensor({3, 0}).to(a.device()), ember::tensor({2, 2}).to(a.device())},
                      b)),
       "a.index_put((torch.tensor([3, 0]), torch.tensor([2, 2])), b)",
       true},
      // ---- take, take_along_dim, masked_select ----
      also({"take", {F({3, 4}), Idx({2, 3}, 12)}, OP(ember::take(a, b)), "torch.take(a, b)", true},
           "method", OP(a.take(b))),
      {"take_negative", {F({3, 4}), Idx({5}, 12)}, OP(a.take(b.sub(12))), "a.take(b - 12)", true},
      also({"take_along_dim",
            {F({3, 4}), Idx({3, 2}, 4)},
            OP(ember::take_along_dim(a, b, 1)),
            "torch.take_along_dim(a, b, 1)",
            true},
           "method", OP(a.take_along_dim(b, 1))),
      {"take_along_dim_broadcast",
       {F({3, 1, 4}), Idx({1, 2, 3}, 4)},
       OP(a.take_along_dim(b, -1)),
       "a.take_along_dim(b, -1)",
       true},
      {"take_along_dim_flattened",
       {F({3, 4}), Idx({5}, 12)},
       OP(ember::take_along_dim(a, b)),
       "torch.take_along_dim(a, b)",
       true},
      data_dependent(also({"masked_select",
                           {F({3, 4}), B({4})},
                           OP(ember::masked_select(a, b)),
                           "torch.masked_select(a, b)",
                           true},
                          "method", OP(a.masked_select(b)))),
      data_dependent({"masked_select_broadcast_self",
                      {F({4}), B({3, 4})},
                      OP(a.masked_select(b)),
                      "a.masked_select(b)",
                      true}),
  };
  // ---- scatter_reduce: every reduction, with and without self ----
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    rows.push_back(reduce_row(reduce, true));
    rows.push_back(reduce_row(reduce, false));
  }
  rows.push_back(reduce_row("prod", true, Domain::SmallInt));  // zeros: PyTorch's special case
  rows.push_back(reduce_row("mean", true, Domain::SmallInt, kLong));  // floor division
  rows.push_back(reduce_row("prod", false, Domain::SmallInt, kLong));
  rows.push_back(reduce_row("amax", true, Domain::SmallInt, kInt));
  rows.push_back(no_torch_gradients(
      {"scatter_reduce_src_larger",
       {F({4, 3}), Idx({5, 2}, 4), F({6, 3})},
       OP(ember::scatter_reduce(a, 0, b, c, "amin", false)),
       "torch.scatter_reduce(a, 0, b, c, 'amin', include_self=False)",
       true}));  // as scatter's: PyTorch's backward fails on src larger than index
  return rows;
}

}  // namespace ember::testing
