// Tensor creation, arithmetic with broadcasting, reductions, shape functions and dtypes, as the
// libtorch "Tensor basics" documentation uses them.
// compat-compare: rtol=1e-6 atol=1e-7
#include <torch/torch.h>

#include "compat_report.h"

int main() {
  auto a = torch::arange(12, torch::kFloat).reshape({3, 4});
  auto b = torch::linspace(-1, 1, 4);
  report("arange", a);
  report("linspace", b);
  report("zeros", torch::zeros({2, 3}));
  report("ones_long", torch::ones({2}, torch::kLong));
  report("full", torch::full({2, 2}, 2.5));
  report("eye", torch::eye(3));
  report("ones_like", torch::ones_like(a));
  report("options", torch::zeros({2}, torch::TensorOptions().dtype(torch::kFloat64)));

  // Arithmetic and broadcasting.
  report("add", a + b);
  report("sub_scalar", a - 1.5);
  report("mul", a * b);
  report("div", a / (b + 3));
  report("rsub", 2.0 - a);
  report("pow", torch::pow(a, 2));
  report("add_alpha", a.add(b, 0.5));
  report("neg_abs", (-a).abs());
  report("exp_log", torch::log(torch::exp(a / 10) + 1));
  report("sqrt", torch::sqrt(a));
  report("sigmoid_tanh", torch::sigmoid(b) + torch::tanh(b));
  report("clamp", a.clamp(2, 9));
  report("clamp_min", torch::clamp(b, 0));
  report("maximum", torch::maximum(a, torch::full({3, 4}, 5.0)));
  report("where", torch::where(a > 5, a, torch::zeros_like(a)));

  // Rounding and transcendental functions.
  auto r = b * 2.6;
  report("floor", torch::floor(r));
  report("ceil", r.ceil());
  report("trunc_fix", torch::trunc(r) + torch::fix(r));
  report("frac", r.frac());
  report("floor_int", torch::floor(torch::tensor({-3, 4})));
  report("tan_atan", torch::tan(b) + b.atan());
  report("asin_acos", torch::asin(b * 0.9) + torch::acos(b * 0.9) * 10);
  report("sinh_cosh", torch::sinh(b) + b.cosh() * 10);
  report("expm1_exp2", torch::expm1(b) + torch::exp2(b) * 10);
  report("log2_log10", torch::log2(a + 1) + (a + 1).log10() * 10);
  report("floor_inplace", r.clone().floor_());

  // In place.
  auto c = a.clone();
  c.add_(1).mul_(2).sub_(b).div_(4);
  report("inplace", c);
  c.zero_();
  report("zeroed", c);

  // Reductions.
  report("sum", a.sum());
  report("sum_dim", a.sum(1));
  report("sum_keepdim", a.sum({0}, true));
  report("mean", a.mean());
  report("mean_dim", a.mean(0));
  report("prod", (a + 1).slice(1, 0, 2).prod());
  report("max", a.max());
  auto [values, indices] = a.max(1);
  report("max_values", values);
  report("max_indices", indices);
  report("min_dim", std::get<0>(a.min(0)));
  report("argmax", a.argmax());
  report("argmax_dim", (a * b).argmax(1));
  report("var", a.var(1));
  report("std", a.std(0));
  report("norm", a.norm());
  report("softmax", torch::softmax(a, 1));
  report("log_softmax", torch::log_softmax(a, 0));
  report("logsumexp", torch::logsumexp(a, 1));

  // Comparisons and logic.
  report("eq", a.eq(4));
  report("gt_tensor", a > b);
  report("logical_and", torch::logical_and(a > 2, a < 8));
  report("any_all", torch::stack({(a > 10).any(), (a >= 0).all()}));
  report("allclose", a.allclose(a + 1e-9) ? 1.0 : 0.0);
  report("equal", torch::equal(a, a.clone()) ? 1.0 : 0.0);

  // Shapes and views.
  report("view", a.view({4, 3}));
  report("t", a.t());
  report("transpose_contig", a.transpose(0, 1).contiguous());
  report("permute", a.reshape({3, 2, 2}).permute({2, 0, 1}));
  report("unsqueeze", b.unsqueeze(0));
  report("squeeze", a.reshape({1, 3, 4}).squeeze(0));
  report("flatten", a.flatten());
  report("expand", b.expand({2, 4}));
  report("slice", a.slice(1, 1, 3));
  report("select", a.select(0, 1));
  report("narrow", a.narrow(1, 2, 2));
  report("index_select", a.index_select(0, torch::tensor({2, 0})));
  report("gather", torch::gather(a, 1, torch::tensor({{0, 1}, {2, 3}, {1, 1}})));
  report("cat", torch::cat({a, a}, 0));
  report("stack", torch::stack({b, b * 2}, 1));
  auto parts = a.chunk(2, 1);
  report("chunk_count", static_cast<double>(parts.size()));
  report("chunk1", parts[1]);
  auto pieces = a.split(2, 0);
  report("split_last", pieces.back());
  report("unbind", a.unbind(1)[3]);
  report("matmul", torch::matmul(a, a.t()));
  report("mm", a.mm(torch::ones({4, 2})));
  report("bmm", torch::bmm(a.reshape({3, 2, 2}), a.reshape({3, 2, 2})));
  report("outer", torch::outer(b, b));
  report("one_hot", torch::one_hot(torch::tensor({0, 2, 1}), 3));

  // Dtypes and scalars.
  auto i = torch::tensor({1, 2, 3});
  report("int_tensor", i);
  report("int_div_float", i / 2);
  report("int_plus_float", i + 0.5);
  report("to_float", i.to(torch::kFloat));
  report("to_double", a.to(torch::kDouble).sum());
  report("item", a.sum().item<float>());
  report("numel", static_cast<double>(a.numel()));
  report("from_vector", torch::tensor(std::vector<double>{0.5, 1.5}));
  float raw[] = {1, 2, 3, 4};
  report("from_blob", torch::from_blob(raw, {2, 2}).clone());
  return 0;
}
