// The gradient sweep of the op table (tests/ops/op_info.h), over its differentiable rows,
// against PyTorch's autograd (the devices sweep checks every row against finite differences):
//   any row       float64 (its float32 inputs cast), every floating input
//   unary         float32/float64, every form; second derivatives where the row asks
//   binary        float32/float64 over same-shape, broadcast and 0-dim operands (broadcast dims
//                 reduced back to the input shapes), every form; second derivatives where asked
//   tensor-scalar float64 with an int and a float scalar
//   ternary       float64 over broadcast and 0-dim operands, first and second derivatives
#include <gtest/gtest.h>

#include "ember/autograd.h"
#include "ops/op_info.h"
#include "support/elementwise_oracle.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

using autograd::variable_list;

std::vector<OpInfo> differentiable_ops() {
  std::vector<OpInfo> out;
  for (const OpInfo& op : all_ops()) {
    const bool elementwise = op.elementwise != Elementwise::None;
    if (op.grad && (elementwise || (!op.torch.empty() && op.torch_gradients))) out.push_back(op);
  }
  return out;
}

std::string value_of(const OpInfo& op) {
  return torch_code(op.torch);
}

void unary_gradients(const OpInfo& op) {
  for (ScalarType dt : {kFloat, kDouble}) {
    auto [rtol, atol] = elementwise_tolerance(dt);
    std::string ctx = detail::str_cat(op.name, "(", dt, ") backward");
    Tensor a = make_input({{3, 4}, dt, domain_of(op, 0)}, seed_for(ctx));
    Tensor g = make_input({{3, 4}, dt}, seed_for(ctx + "g"));
    auto r = TorchOracle::instance().run(
        "a.requires_grad_(True)\n" + value_of(op) + "\nout.backward(g)\nga = a.grad",
        {{"a", a}, {"g", g}}, {"ga"});
    for (const BoundForm& f : forms_of(op)) {
      Tensor x = a.clone().requires_grad_(true);
      f.fn({x}).backward(g);
      expect_close(x.grad(), r.at("ga"), rtol * 10, atol * 10, ctx + " " + f.name);
    }
  }
  if (!op.double_backward) return;
  // The gradient is built from differentiable ops, so a second derivative matches PyTorch's.
  std::string ctx = detail::str_cat(op.name, " double backward");
  Tensor a = make_input({{3, 4}, kDouble, domain_of(op, 0)}, seed_for(ctx));
  Tensor x = a.clone().requires_grad_(true);
  auto g = autograd::grad({op.fn({x}).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  ASSERT_TRUE(g[0].defined()) << ctx;
  auto r = TorchOracle::instance().run(
      "a.requires_grad_(True)\ng, = torch.autograd.grad((lambda a: " + op.torch +
          ")(a).sum(), a, create_graph=True)\n"
          "gg = torch.autograd.grad(g.sum(), a, allow_unused=True)[0] if g.requires_grad else "
          "None\n"
          "gg = torch.zeros_like(a) if gg is None else gg",
      {{"a", a}}, {"g", "gg"});
  expect_close(g[0].detach(), r.at("g"), 1e-10, 1e-12, ctx + " (first)");
  Tensor gg;
  if (g[0].requires_grad()) {
    gg = autograd::grad({g[0].sum()}, {x}, {}, std::nullopt, false, /*allow_unused=*/true)[0];
  }
  if (!gg.defined()) gg = zeros_like(a);
  expect_close(gg, r.at("gg"), 1e-10, 1e-12, ctx + " (second)");
}

void binary_gradients(const OpInfo& op) {
  struct Shapes {
    const char* name;
    std::vector<int64_t> a, b;
  };
  const std::vector<Shapes> shapes = {{"same shape", {3, 4}, {3, 4}},
                                      {"broadcast", {3, 1, 4}, {2, 1}},
                                      {"0-dim rhs", {3, 4}, {}},
                                      {"0-dim lhs", {}, {3, 4}},
                                      {"both 0-dim", {}, {}}};
  for (ScalarType dt : {kFloat, kDouble}) {
    auto [rtol, atol] = elementwise_tolerance(dt);
    for (const Shapes& sh : shapes) {
      std::string ctx = detail::str_cat(op.name, "(", dt, ") backward, ", sh.name);
      Tensor a = make_input({sh.a, dt, domain_of(op, 0)}, seed_for(ctx + "a"));
      Tensor b = make_input({sh.b, dt, domain_of(op, 1)}, seed_for(ctx + "b"));
      Tensor probe = op.fn({a, b});
      Tensor g = make_input({probe.sizes().vec(), dt}, seed_for(ctx + "g"));
      auto r = TorchOracle::instance().run("a.requires_grad_(True)\nb.requires_grad_(True)\n" +
                                               value_of(op) +
                                               "\nout.backward(g)\nga = a.grad\ngb = b.grad",
                                           {{"a", a}, {"b", b}, {"g", g}}, {"ga", "gb"});
      for (const BoundForm& f : forms_of(op)) {
        if (f.scalar || f.inplace) continue;
        Tensor xa = a.clone().requires_grad_(true), xb = b.clone().requires_grad_(true);
        f.fn({xa, xb}).backward(g);
        expect_close(xa.grad(), r.at("ga"), rtol * 10, atol * 10, ctx + " " + f.name + " d/da");
        expect_close(xb.grad(), r.at("gb"), rtol * 10, atol * 10, ctx + " " + f.name + " d/db");
      }
    }
  }
  if (!op.double_backward) return;
  // Gradients of gradients: d/d(a, b) of the sum of squares of the first derivatives.
  std::string ctx = detail::str_cat(op.name, " double backward");
  Tensor a = make_input({{3, 4}, kDouble, domain_of(op, 0)}, seed_for(ctx + "a"));
  Tensor b = make_input({{4}, kDouble, domain_of(op, 1)}, seed_for(ctx + "b"));
  Tensor xa = a.clone().requires_grad_(true), xb = b.clone().requires_grad_(true);
  variable_list first = autograd::grad({op.fn({xa, xb}).sum()}, {xa, xb}, {}, true, true);
  Tensor s = (first[0] * first[0]).sum() + (first[1] * first[1]).sum();
  ASSERT_TRUE(s.requires_grad()) << ctx;
  variable_list second = autograd::grad({s}, {xa, xb}, {}, true, false, true);
  auto r = TorchOracle::instance().run(
      "a.requires_grad_(True)\nb.requires_grad_(True)\n" + value_of(op) +
          "\nfa, fb = torch.autograd.grad(out.sum(), (a, b), create_graph=True)\n"
          "s = (fa * fa).sum() + (fb * fb).sum()\n"
          "sa, sb = torch.autograd.grad(s, (a, b), allow_unused=True)\n"
          "sa = torch.zeros_like(a) if sa is None else sa\n"
          "sb = torch.zeros_like(b) if sb is None else sb\n",
      {{"a", a}, {"b", b}}, {"sa", "sb"});
  for (int i = 0; i < 2; ++i) {
    Tensor got = second[i].defined() ? second[i] : zeros_like(i == 0 ? a : b);
    expect_close(got, r.at(i == 0 ? "sa" : "sb"), 1e-10, 1e-12, ctx + (i == 0 ? " d/da" : " d/db"));
  }
}

void tensor_scalar_gradients(const OpInfo& op) {
  for (const Scalar& s : {Scalar(int64_t{2}), Scalar(2.5)}) {
    std::string lit = python_literal(s);
    std::string ctx = detail::str_cat(op.name, "(float64, ", lit, ") backward");
    Tensor a = make_input({{3, 4}, kDouble, domain_of(op, 0)}, seed_for(ctx));
    Tensor g = make_input({{3, 4}, kDouble}, seed_for(ctx + "g"));
    Tensor x = a.clone().requires_grad_(true);
    op.scalar_forms[0].fn(x, s).backward(g);
    auto r = TorchOracle::instance().run("s = " + lit + "\na.requires_grad_(True)\nout = " +
                                             op.torch_scalar + "\nout.backward(g)\nga = a.grad",
                                         {{"a", a}, {"g", g}}, {"ga"});
    expect_close(x.grad(), r.at("ga"), 1e-11, 1e-13, ctx);
  }
}

void ternary_gradients(const OpInfo& op) {
  for (std::vector<std::vector<int64_t>> sh :
       {std::vector<std::vector<int64_t>>{{3, 4}, {3, 4}, {3, 4}},
        std::vector<std::vector<int64_t>>{{3, 1, 4}, {2, 1}, {4}},
        std::vector<std::vector<int64_t>>{{}, {3, 4}, {}}}) {
    std::string ctx = detail::str_cat(op.name, " backward ", IntArrayRef(sh[0]), IntArrayRef(sh[1]),
                                      IntArrayRef(sh[2]));
    Tensor a = make_input({sh[0], kDouble}, seed_for(ctx + "a"));
    Tensor b = make_input({sh[1], kDouble}, seed_for(ctx + "b"));
    Tensor c = make_input({sh[2], kDouble, domain_of(op, 2)}, seed_for(ctx + "c"));
    Tensor xa = a.clone().requires_grad_(true), xb = b.clone().requires_grad_(true),
           xc = c.clone().requires_grad_(true);
    Tensor out = op.fn({xa, xb, xc});
    Tensor g = make_input({out.sizes().vec(), kDouble}, seed_for(ctx + "g"));
    // First and second derivatives: d(sum(g * out))/d(inputs), then the gradient of the sum of
    // squares of those.
    variable_list first = autograd::grad({out}, {xa, xb, xc}, {g}, true, true, true);
    Tensor second_sum = zeros({}, kDouble);
    for (const Tensor& d : first)
      if (d.defined() && d.requires_grad()) second_sum = second_sum + (d * d).sum();
    auto r = TorchOracle::instance().run(
        "for t in (a, b, c): t.requires_grad_(True)\n" + value_of(op) +
            "\nfirst = torch.autograd.grad(out, (a, b, c), g, create_graph=True, "
            "allow_unused=True)\n"
            "s = sum((d * d).sum() for d in first if d is not None and d.requires_grad)\n"
            "second = torch.autograd.grad(s, (a, b, c), allow_unused=True) if "
            "torch.is_tensor(s) else (None, None, None)\n"
            "z = lambda d, t: torch.zeros_like(t) if d is None else d\n"
            "ga, gb, gc = (z(d, t) for d, t in zip(first, (a, b, c)))\n"
            "sa, sb, sc = (z(d, t) for d, t in zip(second, (a, b, c)))\n",
        {{"a", a}, {"b", b}, {"c", c}, {"g", g}}, {"ga", "gb", "gc", "sa", "sb", "sc"});
    const char* names[] = {"a", "b", "c"};
    const Tensor inputs[] = {xa, xb, xc};
    for (int i = 0; i < 3; ++i) {
      Tensor got = first[i].defined() ? first[i] : zeros_like(inputs[i]);
      expect_close(got.detach(), r.at(std::string("g") + names[i]), 1e-10, 1e-12,
                   ctx + " d/d" + names[i]);
    }
    if (second_sum.requires_grad()) {
      variable_list second = autograd::grad({second_sum}, {xa, xb, xc}, {}, true, false, true);
      for (int i = 0; i < 3; ++i) {
        Tensor got = second[i].defined() ? second[i] : zeros_like(inputs[i]);
        expect_close(got, r.at(std::string("s") + names[i]), 1e-10, 1e-12,
                     ctx + " second derivative d/d" + names[i]);
      }
    }
  }
}

// Any other row: its inputs with float32 cast to float64, d(sum(g * op))/d(floating inputs)
// against PyTorch's.
void row_gradients(const OpInfo& op) {
  const char* names[] = {"a", "b", "c", "d", "e", "f"};  // rows have up to 6 inputs
  Args xs;
  std::map<std::string, Tensor> named;
  std::string code, grads = "";
  std::vector<std::string> outs;
  for (const Tensor& x : make_inputs(op)) {
    const size_t i = xs.size();
    xs.push_back(x.dtype() == kFloat ? x.to(kDouble) : x);
    named[names[i]] = xs.back();
    if (!xs.back().is_floating_point()) continue;
    code += std::string(names[i]) + ".requires_grad_(True)\n";
    outs.push_back(std::string("g") + names[i]);
    grads += outs.back() + " = " + names[i] + ".grad if " + names[i] + ".grad is not None else " +
             "torch.zeros_like(" + names[i] + ")\n";
  }
  Args leaves;
  for (const Tensor& x : xs) {
    leaves.push_back(x.is_floating_point() ? x.clone().requires_grad_(true) : x);
  }
  Tensor out = op.fn(leaves);
  ASSERT_TRUE(out.requires_grad()) << op.name << ": the output does not require grad";
  Tensor g = make_input({out.sizes().vec(), out.scalar_type()}, seed_for(op.name + "/g"));
  out.backward(g);
  named["g"] = g;
  auto r = TorchOracle::instance().run(code + torch_code(op.torch) + "\nout.backward(g)\n" + grads,
                                       named, outs);
  size_t k = 0;
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i].requires_grad()) continue;
    Tensor got = leaves[i].grad().defined() ? leaves[i].grad() : zeros_like(leaves[i]);
    expect_close(got, r.at(outs[k++]), 1e-7, 1e-9, op.name + " d/d" + names[i]);
  }
}

class OpGradients : public ::testing::TestWithParam<OpInfo> {};

TEST_P(OpGradients, MatchPyTorch) {
  const OpInfo& op = GetParam();
  switch (op.elementwise) {
    case Elementwise::Unary:
      unary_gradients(op);
      break;
    case Elementwise::Binary:
      binary_gradients(op);
      break;
    case Elementwise::TensorScalar:
      break;
    case Elementwise::Ternary:
      ternary_gradients(op);
      break;
    case Elementwise::None:
      row_gradients(op);
      break;
  }
  if (!op.scalar_forms.empty()) tensor_scalar_gradients(op);
}

INSTANTIATE_TEST_SUITE_P(Ops, OpGradients, ::testing::ValuesIn(differentiable_ops()), row_name);

}  // namespace
}  // namespace ember::testing
