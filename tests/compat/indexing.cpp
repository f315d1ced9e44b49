// Indexing as in libtorch's "Tensor Indexing API" note: torch::indexing subscripts (integers,
// Slice, None, Ellipsis, bools, index tensors, masks), index_put_ with tensors, scalars, masks and
// accumulate, t[i][j] = v, accessor, data(), nonzero and one-argument where, and the in-place
// methods called through the const Tensor& that grad() returns (a hand-written SGD loop).
// compat-compare: rtol=1e-6 atol=1e-7
#include <torch/torch.h>

#include "compat_report.h"

using namespace torch::indexing;

int main() {
  auto x = torch::arange(60, torch::kFloat).reshape({3, 4, 5}).sin();
  report("int", x.index({1}));
  report("int_int", x.index({-1, 2}));
  report("slice_int", x.index({Slice(), 0}));
  report("slices", x.index({Slice(1, None), Slice(None, None, 2), Slice(-3, None)}));
  report("none_ellipsis", x.index({None, "...", 1}));
  report("ellipsis", x.index({1, Ellipsis, None}));
  report("bool", x.index({true}));
  auto i = torch::tensor({2, 0, -1, 0});
  auto j = torch::tensor({1, 3, 3, -4});
  report("tensor", x.index({i}));
  report("tensors_apart", x.index({i, Slice(), j}));
  report("tensors_adjacent", x.index({Slice(1, None), j, i.view({4, 1})}));
  auto mask = x.index({Slice(), Slice(), 0}) > 0;
  report("mask", x.index({mask}));
  report("mask_rows", x.index({torch::tensor({true, false, true}), Slice(1), 0}));
  report("greater", x.index({x > 0.5}));

  auto y = x.clone();
  y.index_put_({Slice(), 0}, 2.5);
  y.index_put_({1}, torch::ones({4, 5}));
  y.index_put_({y < -0.5}, -1.0);
  y.index_put_({torch::tensor({2, 0}), 3}, torch::full({2, 5}, 7.0));
  report("put", y);
  auto acc = torch::zeros({3, 2});
  acc.index_put_({torch::tensor({0, 0, 2})}, torch::ones({3, 2}), true);
  report("put_accumulate", acc);

  auto z = torch::zeros({3, 3});
  z[1][2] = 5;
  z[0] = torch::arange(3, torch::kFloat);
  report("subscript_assign", z);
  auto a = z.accessor<float, 2>();
  float total = 0;
  for (int64_t r = 0; r < a.size(0); ++r) {
    for (int64_t c = 0; c < a.size(1); ++c) total += a[r][c] * static_cast<float>(r + 1);
  }
  a[2][2] = total;
  report("accessor", z);

  auto nz = torch::nonzero(z);
  report("nonzero", nz);
  auto w = torch::where(z > 1);
  report("where_count", static_cast<double>(w.size()));
  report("where_rows", w[0]);
  report("where_cols", w[1]);

  // Gradients through index and index_put_, and a hand-written SGD step on const grads.
  auto p = torch::linspace(-1, 1, 12).reshape({3, 4}).requires_grad_();
  auto q = p * 2;
  q.index_put_({Slice(), 1}, torch::tensor({1.0f, 2.0f, 3.0f}));
  auto loss =
      (q.index({torch::tensor({0, 2, 2})}) * q.index({mask.index({Slice(), 0})}).sum()).sum();
  loss.backward();
  report("grad", p.grad());
  {
    torch::NoGradGuard no_grad;
    p.sub_(p.grad() * 0.1);
    p.grad().zero_();
    p.grad().data().add_(1);
  }
  report("after_step", p);
  report("grad_after", p.grad());
  report("data_requires_grad", p.data().requires_grad() ? 1.0 : 0.0);
  return 0;
}
