// The ops tutorials reach for after the basics: sort/argsort/topk (with ties and NaN), cumsum and
// cumprod (with their gradients), masked_fill, flip, round, var()/std() without dims, einsum in
// its common forms, and randint's dtypes.
// compat-compare: rtol=1e-6 atol=1e-7
#include <torch/torch.h>

#include <limits>

#include "compat_report.h"

int main() {
  // Ties (sin of multiples of pi/2 rounded) and a NaN.
  auto x = torch::round(torch::sin(torch::arange(20, torch::kFloat) * 0.9) * 3).reshape({4, 5});
  x[1][2].fill_(std::numeric_limits<float>::quiet_NaN());
  auto [sv, si] = x.sort();
  report("sort_values", sv);
  report("sort_indices", si);
  auto [dv, di] = torch::sort(x, /*dim=*/0, /*descending=*/true);
  report("sort_desc_dim0_values", dv);
  report("sort_desc_dim0_indices", di);
  report("argsort", torch::argsort(x, /*stable=*/true, 1));
  report("argsort_method", x.argsort(/*dim=*/int64_t{0}, /*descending=*/true));
  auto y = torch::sin(torch::arange(12, torch::kFloat) * 1.3 + 0.1).reshape({3, 4});
  auto [tv, ti] = y.topk(2);
  report("topk_values", tv);
  report("topk_indices", ti);
  auto [bv, bi] = torch::topk(y, 2, /*dim=*/0, /*largest=*/false);
  report("topk_smallest_values", bv);
  report("topk_smallest_indices", bi);

  // Gradients through sort/topk.
  auto w = y.clone().requires_grad_(true);
  auto [wv, wi] = w.topk(3, 1);
  (wv * torch::arange(1, 10, torch::kFloat).reshape({3, 3})).sum().backward();
  report("topk_grad", w.grad());

  // Scans.
  auto i = torch::arange(1, 7, torch::kInt).reshape({2, 3});
  report("cumsum_int", i.cumsum(1));
  report("cumsum_dtype", torch::cumsum(i, 0, torch::kDouble));
  report("cumprod", torch::cumprod(y, 1));
  auto z = torch::tensor({2.0, 0.0, 3.0, 0.5},
                         torch::TensorOptions().dtype(torch::kDouble).requires_grad(true));
  torch::cumprod(z, 0).sum().backward();
  report("cumprod_grad_with_zero", z.grad());
  auto s = y.clone().requires_grad_(true);
  (torch::cumsum(s, 0) * y).sum().backward();
  report("cumsum_grad", s.grad());

  // masked_fill, flip, round, var/std.
  auto mask = y > 0;
  report("masked_fill", y.masked_fill(mask, -1.0));
  report("masked_fill_row", y.masked_fill(torch::tensor({true, false, false, true}), 7));
  report("masked_fill_tensor", torch::masked_fill(y, mask, torch::tensor(0.25)));
  auto m = y.clone();
  m.masked_fill_(mask.logical_not(), 0);
  report("masked_fill_", m);
  report("flip", y.flip({0, 1}));
  report("flip_neg", torch::flip(y, {-1}));
  report("round", torch::round(y * 10));
  report("round_half_even", torch::tensor({0.5, 1.5, 2.5, -0.5, -1.5}, torch::kDouble).round());
  report("round_decimals", y.round(2));
  report("round_decimals_neg", (y * 1000).round(-2));
  report("var", y.var());
  report("std", y.std());
  report("var_biased", torch::var(y, false));
  report("var_dim", y.var(0));
  report("std_dims", y.std({1}, false, true));

  // einsum.
  auto a = torch::sin(torch::arange(24, torch::kFloat)).reshape({2, 3, 4});
  auto b = torch::cos(torch::arange(40, torch::kFloat)).reshape({2, 4, 5});
  auto sq = torch::sin(torch::arange(9, torch::kFloat)).reshape({3, 3});
  report("einsum_bmm", torch::einsum("bij,bjk->bik", {a, b}));
  report("einsum_matmul", torch::einsum("ij,jk", {a[0], b[0]}));
  report("einsum_transpose", torch::einsum("ij->ji", {y}));
  report("einsum_trace", torch::einsum("ii", {sq}));
  report("einsum_diag", torch::einsum("ii->i", {sq}));
  report("einsum_outer", torch::einsum("i,j->ij", {sq[0], y[1]}));
  report("einsum_sum", torch::einsum("bij->b", {a}));
  report("einsum_ellipsis", torch::einsum("...ij->...ji", {a}));
  auto l = torch::sin(torch::arange(6, torch::kFloat)).reshape({2, 3});
  auto bw = torch::cos(torch::arange(30, torch::kFloat)).reshape({5, 3, 2});
  auto r = torch::sin(torch::arange(4, torch::kFloat) + 1).reshape({2, 2});
  report("einsum_bilinear", torch::einsum("bn,anm,bm->ba", {l, bw, r}));

  // randint: the dtype, not the values (the generators differ).
  std::cout << "randint " << compat_dtype_name(torch::randint(10, {3})) << " "
            << compat_dtype_name(torch::randint(2, 10, {3})) << " "
            << compat_dtype_name(torch::randint(10, {3}, torch::kCPU)) << " "
            << compat_dtype_name(torch::randint(10, {3}, torch::kInt)) << "\n";
  return 0;
}
