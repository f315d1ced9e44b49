// Autograd as in libtorch's "Autograd in C++ Frontend" tutorial: requires_grad, backward,
// grad, retain_graph, no-grad guards, detach and a custom torch::autograd::Function.
// compat-compare: rtol=1e-6 atol=1e-7
#include <torch/torch.h>

#include "compat_report.h"

// y = x^3 with its derivative written by hand.
struct Cube : public torch::autograd::Function<Cube> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad_out) {
    auto x = ctx->get_saved_variables()[0];
    return {grad_out[0] * 3 * x * x};
  }
};

int main() {
  auto x = torch::linspace(-1, 2, 6).reshape({2, 3}).requires_grad_();
  auto y = x * x * 3 + torch::exp(x) - torch::tanh(x) * x;
  report("requires_grad", y.requires_grad() ? 1.0 : 0.0);
  auto out = y.mean();
  out.backward();
  report("grad", x.grad());

  // Gradients accumulate until zeroed.
  auto z = (x.sigmoid() * 2).sum();
  z.backward();
  report("grad_accumulated", x.grad());

  // Cleared in place through the const reference grad() returns.
  x.grad().zero_();
  report("grad_zeroed", x.grad());
  (x * x).sum().backward();
  report("grad_after_zero", x.grad());

  // retain_graph lets the same graph run backward twice.
  auto w = torch::tensor({0.5, -0.25, 2.0}, torch::requires_grad());
  auto v = (w.pow(3) + torch::log1p(w)).sum();
  v.backward({}, /*retain_graph=*/true);
  report("w_grad_once", w.grad());
  v.backward();
  report("w_grad_twice", w.grad());

  // torch::autograd::grad returns gradients without touching .grad().
  auto a = torch::tensor({1.0, 2.0, 3.0}, torch::requires_grad());
  auto b = (a * a).sum();
  auto grads = torch::autograd::grad({b}, {a});
  report("autograd_grad", grads[0]);
  report("a_grad_undefined", a.grad().defined() ? 1.0 : 0.0);

  // Non-scalar backward with an explicit gradient.
  auto m = torch::arange(4, torch::TensorOptions().dtype(torch::kFloat).requires_grad(true));
  auto n = m * m;
  n.backward(torch::tensor({1.0f, 0.5f, 0.25f, 2.0f}));
  report("vector_backward", m.grad());

  // No-grad regions and detach.
  {
    torch::NoGradGuard guard;
    auto q = x * 2;
    report("no_grad_requires_grad", q.requires_grad() ? 1.0 : 0.0);
  }
  report("detach_requires_grad", x.detach().requires_grad() ? 1.0 : 0.0);
  report("is_leaf", (x * 2).is_leaf() ? 1.0 : 0.0);

  // Matrix chain with softmax and log_softmax.
  auto p = torch::arange(6, torch::kDouble).reshape({2, 3}).div(5).requires_grad_();
  auto q = torch::eye(3, torch::kDouble).add(0.1).requires_grad_();
  auto loss = (torch::log_softmax(p.mm(q), 1) * torch::softmax(p, 0)).sum();
  loss.backward();
  report("loss", loss);
  report("p_grad", p.grad());
  report("q_grad", q.grad());

  // A custom function.
  auto c = torch::tensor({-1.5, 0.5, 2.0}, torch::requires_grad());
  auto cube = Cube::apply(c);
  cube.sum().backward();
  report("cube", cube);
  report("cube_grad", c.grad());
  return 0;
}
