// torch.linalg's compositions (src/ops/linalg_composites.cpp) beyond their op rows: every option
// and broadcast against PyTorch on every device, the chain order of multi_dot, the condition
// numbers of singular, zero and empty matrices, gradients and double backward against PyTorch,
// and PyTorch's messages for bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/autograd.h"
#include "ember/linalg.h"
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

// A well-conditioned [..., n, n] batch: n on the diagonal keeps a random matrix's eigenvalues
// away from zero.
Tensor well(std::vector<int64_t> shape, uint64_t seed) {
  const int64_t n = shape.back();
  return et::make_input(shape, kDouble, seed) + eye(n, kDouble) * static_cast<double>(n);
}

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST(LinalgComposites, ProductsMatchPyTorchOnEveryDevice) {
  Tensor x = et::make_input({2, 3}, kDouble, 1), y = et::make_input({2, 3}, kDouble, 2);
  Tensor u = et::make_input({3, 2, 1}, kDouble, 3), v = et::make_input({3, 1, 4}, kDouble, 4);
  Tensor i = et::make_input({4, 3}, kLong, 5), j = et::make_input({4, 3}, kLong, 6);
  Tensor p = et::make_input({2, 1, 3}, kDouble, 7), q = et::make_input({4, 3}, kDouble, 8);
  Tensor m = et::make_input({2, 3, 4}, kDouble, 9), w = et::make_input({4}, kDouble, 10);
  auto r = torch_run(
      "L = torch.linalg\n"
      "c = L.cross(x, y); cb = L.cross(u, v, dim=0); ci = L.cross(i, j)\n"
      "d = L.vecdot(p, q); d0 = L.vecdot(u, v, dim=0)\n"
      "mm = L.matmul(m, w); vm = L.matmul(w, m.mT)",
      {{"x", x},
       {"y", y},
       {"u", u},
       {"v", v},
       {"i", i},
       {"j", j},
       {"p", p},
       {"q", q},
       {"m", m},
       {"w", w}},
      {"c", "cb", "ci", "d", "d0", "mm", "vm"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    expect_close(linalg::cross(x.to(dev), y.to(dev)).cpu(), r.at("c"), 1e-12, 1e-12, ctx);
    expect_close(linalg::cross(u.to(dev), v.to(dev), 0).cpu(), r.at("cb"), 1e-12, 1e-12, ctx);
    expect_close(linalg::cross(i.to(dev), j.to(dev)).cpu(), r.at("ci"), 0, 0, ctx + " int64");
    expect_close(linalg::vecdot(p.to(dev), q.to(dev)).cpu(), r.at("d"), 1e-12, 1e-12, ctx);
    expect_close(linalg::vecdot(u.to(dev), v.to(dev), 0).cpu(), r.at("d0"), 1e-12, 1e-12, ctx);
    expect_close(linalg::matmul(m.to(dev), w.to(dev)).cpu(), r.at("mm"), 1e-12, 1e-12, ctx);
    expect_close(linalg::matmul(w.to(dev), m.to(dev).transpose(-2, -1)).cpu(), r.at("vm"), 1e-12,
                 1e-12, ctx);
    // float32 and the 16-bit dtypes keep their dtype.
    EXPECT_EQ(linalg::vecdot(p.to(dev).to(kHalf), q.to(dev).to(kHalf)).dtype(), kHalf) << ctx;
    expect_close(linalg::cross(x.to(dev).to(kFloat), y.to(dev).to(kFloat)).cpu(),
                 r.at("c").to(kFloat), 1e-6, 1e-6, ctx);
  }
}

TEST(LinalgComposites, MultiDotMatchesPyTorchOnEveryDevice) {
  // Two to five operands, with and without vectors at the ends.
  Tensor a = et::make_input({2, 5}, kDouble, 11), b = et::make_input({5, 3}, kDouble, 12);
  Tensor c = et::make_input({3, 6}, kDouble, 13), d = et::make_input({6, 4}, kDouble, 14);
  Tensor e = et::make_input({4, 2}, kDouble, 15);
  Tensor first = et::make_input({5}, kDouble, 16), last = et::make_input({2}, kDouble, 17);
  auto r = torch_run(
      "L = torch.linalg\n"
      "two = L.multi_dot([a, b]); three = L.multi_dot([a, b, c]);"
      "five = L.multi_dot([a, b, c, d, e]); rows = L.multi_dot([f, b, c, d]);"
      "scalar = L.multi_dot([f, b, c, d, e, l]); vv = L.multi_dot([l, l])",
      {{"a", a}, {"b", b}, {"c", c}, {"d", d}, {"e", e}, {"f", first}, {"l", last}},
      {"two", "three", "five", "rows", "scalar", "vv"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor A = a.to(dev), B = b.to(dev), C = c.to(dev), D = d.to(dev), E = e.to(dev);
    const Tensor F = first.to(dev), Last = last.to(dev);
    expect_close(linalg::multi_dot({A, B}).cpu(), r.at("two"), 1e-12, 1e-12, ctx);
    expect_close(linalg::multi_dot({A, B, C}).cpu(), r.at("three"), 1e-12, 1e-12, ctx);
    expect_close(linalg::multi_dot({A, B, C, D, E}).cpu(), r.at("five"), 1e-12, 1e-12, ctx);
    expect_close(linalg::multi_dot({F, B, C, D}).cpu(), r.at("rows"), 1e-12, 1e-12, ctx);
    expect_close(linalg::multi_dot({F, B, C, D, E, Last}).cpu(), r.at("scalar"), 1e-12, 1e-12, ctx);
    expect_close(linalg::multi_dot({Last, Last}).cpu(), r.at("vv"), 1e-12, 1e-12, ctx);
    // Integers multiply exactly (on the CPU: CUDA has no integer GEMM, as in PyTorch).
    if (!dev.is_cpu()) continue;
    const Tensor ia = et::make_input({2, 3}, kLong, 18).to(dev);
    const Tensor ib = et::make_input({3, 2}, kLong, 19).to(dev);
    expect_close(linalg::multi_dot({ia, ib, ia}).cpu(), ia.matmul(ib).matmul(ia).cpu(), 0, 0, ctx);
  }
}

TEST(LinalgComposites, MultiDotTakesTheCheapestOrder) {
  // In float32, 1e30 * 1e30 overflows: only the order that multiplies B C first (the cheap one,
  // as PyTorch picks it) stays finite. Three operands take PyTorch's direct comparison, four its
  // dynamic programme.
  const Tensor A = full({4, 1}, 1e30, kFloat), B = full({1, 4}, 1e30, kFloat);
  const Tensor C = full({4, 1}, 1e-30, kFloat), D = full({1, 3}, 1.0, kFloat);
  auto r = torch_run(
      "three = torch.linalg.multi_dot([a, b, c]); four = torch.linalg.multi_dot([a, b, c, d])",
      {{"a", A}, {"b", B}, {"c", C}, {"d", D}}, {"three", "four"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor three = linalg::multi_dot({A.to(dev), B.to(dev), C.to(dev)}).cpu();
    const Tensor four = linalg::multi_dot({A.to(dev), B.to(dev), C.to(dev), D.to(dev)}).cpu();
    EXPECT_TRUE(three.isfinite().all().item<bool>()) << ctx;
    EXPECT_TRUE(four.isfinite().all().item<bool>()) << ctx;
    expect_close(three, r.at("three"), 1e-6, 0, ctx);
    expect_close(four, r.at("four"), 1e-6, 0, ctx);
  }
}

TEST(LinalgComposites, PartsPowersAndVanderMatchPyTorchOnEveryDevice) {
  Tensor t = et::make_input({2, 3, 4}, kDouble, 20), S = well({2, 3, 3}, 21);
  Tensor ints = et::make_input({3, 3}, kLong, 22), x = et::make_input({2, 3}, kDouble, 23);
  Tensor xi = et::make_input({4}, kInt, 24), x0 = et::make_input({}, kDouble, 25);
  auto r = torch_run(
      "L = torch.linalg\n"
      "d = L.diagonal(t); do = L.diagonal(t, offset=1); dd = L.diagonal(t, offset=-1, dim1=2, "
      "dim2=0)\n"
      "p0 = L.matrix_power(s, 0); p1 = L.matrix_power(s, 1); p5 = L.matrix_power(s, 5);"
      "pm = L.matrix_power(s, -3); pi = L.matrix_power(i, 3)\n"
      "v = L.vander(x); v5 = L.vander(x, N=5); vi = L.vander(xi); v0 = L.vander(x0, N=3)",
      {{"t", t}, {"s", S}, {"i", ints}, {"x", x}, {"xi", xi}, {"x0", x0}},
      {"d", "do", "dd", "p0", "p1", "p5", "pm", "pi", "v", "v5", "vi", "v0"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor T = t.to(dev), Sd = S.to(dev);
    expect_close(linalg::diagonal(T).cpu(), r.at("d"), 0, 0, ctx);
    expect_close(linalg::diagonal(T, 1).cpu(), r.at("do"), 0, 0, ctx);
    expect_close(linalg::diagonal(T, -1, 2, 0).cpu(), r.at("dd"), 0, 0, ctx);
    expect_close(linalg::matrix_power(Sd, 0).cpu(), r.at("p0"), 0, 0, ctx);
    expect_close(linalg::matrix_power(Sd, 1).cpu(), r.at("p1"), 0, 0, ctx);
    expect_close(linalg::matrix_power(Sd, 5).cpu(), r.at("p5"), 1e-12, 1e-12, ctx);
    expect_close(linalg::matrix_power(Sd, -3).cpu(), r.at("pm"), 1e-10, 1e-12, ctx);
    if (dev.is_cpu()) {  // CUDA has no integer GEMM, as in PyTorch
      expect_close(linalg::matrix_power(ints.to(dev), 3).cpu(), r.at("pi"), 0, 0, ctx);
    }
    expect_close(linalg::vander(x.to(dev)).cpu(), r.at("v"), 1e-12, 1e-12, ctx);
    expect_close(linalg::vander(x.to(dev), 5).cpu(), r.at("v5"), 1e-12, 1e-12, ctx);
    expect_close(linalg::vander(xi.to(dev)).cpu(), r.at("vi"), 0, 0, ctx + " int32 to int64");
    expect_close(linalg::vander(x0.to(dev), 3).cpu(), r.at("v0"), 1e-12, 1e-12, ctx + " 0-dim");
    // 16-bit: float32's powers rounded once (PyTorch refuses these dtypes).
    const Tensor h = x.to(kHalf);
    expect_close(linalg::vander(h.to(dev), 4).cpu(), linalg::vander(h.to(kFloat), 4).to(kHalf), 0,
                 0, ctx + " float16");
  }
}

TEST(LinalgComposites, TensorinvAndTensorsolveMatchPyTorchOnEveryDevice) {
  Tensor M = well({24, 24}, 30), B = et::make_input({4, 6}, kDouble, 31);
  Tensor b0 = et::make_input({}, kDouble, 32), M1 = well({1, 1}, 33);
  auto r = torch_run(
      "L = torch.linalg\n"
      "i2 = L.tensorinv(m.reshape(4, 6, 8, 3)); i1 = L.tensorinv(m.reshape(24, 2, 3, 4), ind=1);"
      "i3 = L.tensorinv(m.reshape(2, 3, 4, 24), ind=3)\n"
      "s = L.tensorsolve(m.reshape(4, 6, 2, 3, 4), b);"
      "sd = L.tensorsolve(m.reshape(2, 4, 3, 6, 4), b, dims=(0, 2));"
      "sn = L.tensorsolve(m.reshape(4, 6, 24), b, dims=(-1,)); s0 = L.tensorsolve(m1, b0)",
      {{"m", M}, {"b", B}, {"b0", b0}, {"m1", M1}}, {"i2", "i1", "i3", "s", "sd", "sn", "s0"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor m = M.to(dev), b = B.to(dev);
    expect_close(linalg::tensorinv(m.reshape({4, 6, 8, 3})).cpu(), r.at("i2"), 1e-10, 1e-12, ctx);
    expect_close(linalg::tensorinv(m.reshape({24, 2, 3, 4}), 1).cpu(), r.at("i1"), 1e-10, 1e-12,
                 ctx);
    expect_close(linalg::tensorinv(m.reshape({2, 3, 4, 24}), 3).cpu(), r.at("i3"), 1e-10, 1e-12,
                 ctx);
    expect_close(linalg::tensorsolve(m.reshape({4, 6, 2, 3, 4}), b).cpu(), r.at("s"), 1e-10, 1e-12,
                 ctx);
    expect_close(linalg::tensorsolve(m.reshape({2, 4, 3, 6, 4}), b, {0, 2}).cpu(), r.at("sd"),
                 1e-10, 1e-12, ctx);
    expect_close(linalg::tensorsolve(m.reshape({4, 6, 24}), b, {-1}).cpu(), r.at("sn"), 1e-10,
                 1e-12, ctx);
    expect_close(linalg::tensorsolve(M1.to(dev), b0.to(dev)).cpu(), r.at("s0"), 1e-12, 1e-12,
                 ctx + " 0-dim B");
    // The inverse's defining property, and a solve of a product.
    const Tensor inverse = linalg::tensorinv(m.reshape({4, 6, 8, 3}));
    expect_close(tensordot(inverse, m.reshape({4, 6, 8, 3}), {2, 3}, {0, 1}).cpu(),
                 eye(24, kDouble).reshape({8, 3, 8, 3}), 1e-10, 1e-12, ctx);
  }
}

TEST(LinalgComposites, CondEveryNormMatchesPyTorchOnEveryDevice) {
  Tensor A = well({2, 3, 3}, 40), wide = et::make_input({3, 5}, kDouble, 41);
  // A singular matrix (exactly, in LU) beside the identity, a zero matrix, empty batches.
  Tensor singular = tensor({1.0, 2.0, 2.0, 4.0, 1.0, 0.0, 0.0, 1.0}, kDouble).reshape({2, 2, 2});
  auto r = torch_run(
      "L = torch.linalg\n"
      "c = L.cond(a); c2 = L.cond(a, 2); cm2 = L.cond(a, -2); c1 = L.cond(a, 1);"
      "cm1 = L.cond(a, -1); ci = L.cond(a, float('inf')); cmi = L.cond(a, -float('inf'));"
      "cf = L.cond(a, 'fro'); cn = L.cond(a, 'nuc'); w2 = L.cond(w); wm2 = L.cond(w, -2)\n"
      "s1 = L.cond(s, 1); sf = L.cond(s, 'fro'); si = L.cond(s, float('inf'))\n"
      "z = torch.zeros(2, 2, dtype=torch.float64); z2 = L.cond(z); z1 = L.cond(z, 1);"
      "zf = L.cond(z, 'fro'); zn = L.cond(z, 'nuc')\n"
      "e = L.cond(torch.zeros(2, 0, 0, dtype=torch.float64), 1);"
      "f = L.cond(a.float(), 'fro')",
      {{"a", A}, {"w", wide}, {"s", singular}},
      {"c",   "c2", "cm2", "c1", "cm1", "ci", "cmi", "cf", "cn", "w2",
       "wm2", "s1", "sf",  "si", "z2",  "z1", "zf",  "zn", "e",  "f"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor a = A.to(dev);
    expect_close(linalg::cond(a).cpu(), r.at("c"), 1e-10, 0, ctx);
    expect_close(linalg::cond(a, 2).cpu(), r.at("c2"), 1e-10, 0, ctx);
    expect_close(linalg::cond(a, -2).cpu(), r.at("cm2"), 1e-10, 0, ctx);
    expect_close(linalg::cond(a, 1).cpu(), r.at("c1"), 1e-10, 0, ctx);
    expect_close(linalg::cond(a, -1).cpu(), r.at("cm1"), 1e-10, 0, ctx);
    expect_close(linalg::cond(a, kInf).cpu(), r.at("ci"), 1e-10, 0, ctx);
    expect_close(linalg::cond(a, -kInf).cpu(), r.at("cmi"), 1e-10, 0, ctx);
    expect_close(linalg::cond(a, std::string_view("fro")).cpu(), r.at("cf"), 1e-10, 0, ctx);
    expect_close(linalg::cond(a, std::string_view("nuc")).cpu(), r.at("cn"), 1e-10, 0, ctx);
    expect_close(linalg::cond(wide.to(dev)).cpu(), r.at("w2"), 1e-10, 0, ctx + " wide");
    expect_close(linalg::cond(wide.to(dev), -2).cpu(), r.at("wm2"), 1e-10, 0, ctx + " wide");
    // A singular matrix's condition number is inf, the identity's beside it 1 (or n for fro).
    const Tensor s = singular.to(dev);
    expect_close(linalg::cond(s, 1).cpu(), r.at("s1"), 1e-12, 0, ctx + " singular");
    expect_close(linalg::cond(s, std::string_view("fro")).cpu(), r.at("sf"), 1e-12, 0,
                 ctx + " singular");
    expect_close(linalg::cond(s, kInf).cpu(), r.at("si"), 1e-12, 0, ctx + " singular");
    // A zero matrix: NaN through the singular values, inf through the inverse.
    const Tensor z = zeros({2, 2}, kDouble).to(dev);
    expect_close(linalg::cond(z).cpu(), r.at("z2"), 0, 0, ctx + " zero");
    expect_close(linalg::cond(z, 1).cpu(), r.at("z1"), 0, 0, ctx + " zero");
    expect_close(linalg::cond(z, std::string_view("fro")).cpu(), r.at("zf"), 0, 0, ctx + " zero");
    expect_close(linalg::cond(z, std::string_view("nuc")).cpu(), r.at("zn"), 0, 0, ctx + " zero");
    // Empty matrices: 0 each, in the input's dtype, whatever the norm.
    expect_close(linalg::cond(zeros({2, 0, 0}, kDouble).to(dev), 1).cpu(), r.at("e"), 0, 0, ctx);
    EXPECT_EQ(linalg::cond(zeros({0, 3}, kFloat).to(dev)).sizes(), IntArrayRef({})) << ctx;
    expect_close(linalg::cond(a.to(kFloat), std::string_view("fro")).cpu(), r.at("f"), 1e-5, 0,
                 ctx + " float32");
    // 16-bit: float32's condition number rounded once.
    const Tensor h = A.to(kBFloat16);
    expect_close(linalg::cond(h.to(dev), 1).cpu(), linalg::cond(h.to(kFloat), 1).to(kBFloat16), 0,
                 0, ctx + " bfloat16");
  }
}

TEST(LinalgComposites, GradientsAndDoubleBackwardMatchPyTorch) {
  Tensor X = et::make_input({2, 3}, kDouble, 50), Y = et::make_input({3}, kDouble, 51);
  Tensor M = well({3, 3}, 52), N = well({6, 6}, 53), W = et::make_input({3, 5}, kDouble, 54);
  Tensor Z = et::make_input({4, 5}, kDouble, 55);
  auto r = torch_run(
      "x.requires_grad_(); y.requires_grad_(); m.requires_grad_(); n.requires_grad_();"
      "w.requires_grad_(); z.requires_grad_()\n"
      "L = torch.linalg\n"
      "out = (L.cross(x, y.expand(2, 3)).sin().sum() + L.vecdot(x, y).exp().sum()"
      " + L.multi_dot([y, m, w, z.mT]).pow(2).sum() + L.diagonal(w, offset=1).pow(3).sum()"
      " + L.matrix_power(m, -2).sum() + L.matrix_power(m, 3).sin().sum()"
      " + L.vander(y, N=4).cos().sum() + L.tensorinv(n.reshape(2, 3, 6)).sum()"
      " + L.tensorsolve(n.reshape(6, 2, 3), x, dims=(0,)).pow(2).sum()"
      " + L.cond(m) + L.cond(w, -2) + L.cond(m, 'nuc'))\n"
      "gs = torch.autograd.grad(out, (x, y, m, n, w, z), create_graph=True)\n"
      "gx, gy, gm, gn, gw, gz = gs\n"
      "ggx, ggm, ggn = torch.autograd.grad(sum((g ** 2).sum() for g in gs), (x, m, n))",
      {{"x", X}, {"y", Y}, {"m", M}, {"n", N}, {"w", W}, {"z", Z}},
      {"gx", "gy", "gm", "gn", "gw", "gz", "ggx", "ggm", "ggn"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    Tensor x = X.to(dev).requires_grad_(), y = Y.to(dev).requires_grad_();
    Tensor m = M.to(dev).requires_grad_(), n = N.to(dev).requires_grad_();
    Tensor w = W.to(dev).requires_grad_(), z = Z.to(dev).requires_grad_();
    Tensor out = linalg::cross(x, y.expand({2, 3})).sin().sum() + linalg::vecdot(x, y).exp().sum() +
                 linalg::multi_dot({y, m, w, z.transpose(-2, -1)}).pow(2).sum() +
                 linalg::diagonal(w, 1).pow(3).sum() + linalg::matrix_power(m, -2).sum() +
                 linalg::matrix_power(m, 3).sin().sum() + linalg::vander(y, 4).cos().sum() +
                 linalg::tensorinv(n.reshape({2, 3, 6})).sum() +
                 linalg::tensorsolve(n.reshape({6, 2, 3}), x, {0}).pow(2).sum() + linalg::cond(m) +
                 linalg::cond(w, -2) + linalg::cond(m, std::string_view("nuc"));
    auto g = autograd::grad({out}, {x, y, m, n, w, z}, {}, std::nullopt, true);
    const char* names[] = {"gx", "gy", "gm", "gn", "gw", "gz"};
    Tensor total = zeros({}, kDouble).to(dev);
    for (size_t i = 0; i < g.size(); ++i) {
      expect_close(g[i].cpu(), r.at(names[i]), 1e-8, 1e-10, ctx + " " + names[i]);
      total = total + g[i].pow(2).sum();
    }
    auto gg = autograd::grad({total}, {x, m, n});
    expect_close(gg[0].cpu(), r.at("ggx"), 1e-7, 1e-9, ctx + " second, x");
    expect_close(gg[1].cpu(), r.at("ggm"), 1e-7, 1e-9, ctx + " second, m");
    expect_close(gg[2].cpu(), r.at("ggn"), 1e-7, 1e-9, ctx + " second, n");
  }
}

TEST(LinalgComposites, CondThroughTheInverseHasTheNormsGradient) {
  // PyTorch 1.13 cannot differentiate cond with 1, inf or "fro" (it masks the inverse in place);
  // Ember's gradient is that of the norms' product, which PyTorch differentiates.
  Tensor M = well({2, 3, 3}, 60);
  auto r = torch_run(
      "m.requires_grad_(); L = torch.linalg; mi = L.inv(m)\n"
      "out = (L.matrix_norm(m, 1) * L.matrix_norm(mi, 1)).sum()"
      " + (L.matrix_norm(m, -float('inf')) * L.matrix_norm(mi, -float('inf'))).sum()"
      " + (L.matrix_norm(m, 'fro') * L.matrix_norm(mi, 'fro')).sum()\n"
      "g, = torch.autograd.grad(out, (m,))",
      {{"m", M}}, {"g"});
  for (Device dev : et::test_devices()) {
    Tensor m = M.to(dev).requires_grad_();
    Tensor out = linalg::cond(m, 1).sum() + linalg::cond(m, -kInf).sum() +
                 linalg::cond(m, std::string_view("fro")).sum();
    expect_close(autograd::grad({out}, {m})[0].cpu(), r.at("g"), 1e-8, 1e-10, dev.str());
  }
}

TEST(LinalgComposites, BadInputRaisesPyTorchsErrors) {
  const Tensor m = ones({2, 3}), sq = eye(3), v = ones({3});
  auto value_error = [](const std::function<void()>& f) { return error_of<ValueError>(f); };
  auto type_error = [](const std::function<void()>& f) { return error_of<TypeError>(f); };
  auto index_error = [](const std::function<void()>& f) { return error_of<IndexError>(f); };
  // cross
  EXPECT_EQ(value_error([&] { linalg::cross(m, v); }),
            "linalg.cross: inputs must have the same number of dimensions.");
  EXPECT_EQ(value_error([&] {
              linalg::cross(ones({2, 4}), ones({2, 4}));
            }),
            "linalg.cross: inputs dimension -1 must have length 3. Got 4 and 4");
  EXPECT_EQ(value_error([&] {
              linalg::cross(ones({3, 2}), ones({1, 2}), 0);
            }),
            "linalg.cross: inputs dimension 0 must have length 3. Got 3 and 1");
  EXPECT_EQ(index_error([&] { linalg::cross(sq, sq, 5); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
  EXPECT_EQ(type_error([&] { linalg::cross(m, m.to(kDouble)); }),
            "expected scalar type Float but found Double");
  EXPECT_EQ(type_error([&] { linalg::cross(m.to(kBool), m.to(kBool)); }),
            "\"cross\" not implemented for 'Bool'");
  // diagonal
  EXPECT_EQ(index_error([&] { linalg::diagonal(v); }),
            "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
  EXPECT_EQ(value_error([&] {
              linalg::diagonal(ones({2, 3, 4}), 0, -1, 2);
            }),
            "diagonal dimensions cannot be identical -1, 2");
  // matrix_power
  EXPECT_EQ(value_error([&] { linalg::matrix_power(v, 2); }),
            "linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
  EXPECT_EQ(value_error([&] { linalg::matrix_power(m, 2); }),
            "linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 "
            "matrices");
  EXPECT_EQ(type_error([&] { linalg::matrix_power(sq.to(kLong), -1); }),
            "linalg.inv: Expected a floating point or complex tensor as input. Got Long");
  // multi_dot
  EXPECT_EQ(value_error([&] { linalg::multi_dot({sq}); }),
            "multi_dot(): expected at least 2 tensors but got 1");
  EXPECT_EQ(value_error([&] {
              linalg::multi_dot({ones({2, 3, 3}), sq});
            }),
            "multi_dot(): the first tensor must be 1D or 2D but got 3D");
  EXPECT_EQ(value_error([&] {
              linalg::multi_dot({sq, ones({})});
            }),
            "multi_dot(): the last tensor must be 1D or 2D but got 0D");
  EXPECT_EQ(value_error([&] {
              linalg::multi_dot({sq, v, sq});
            }),
            "multi_dot(): tensor 1 must be 2D but got 1D");
  EXPECT_EQ(value_error([&] {
              linalg::multi_dot({sq, sq, ones({4, 4})});
            }),
            "multi_dot(): tensors 1 and 2 with shapes [3, 3] and [4, 4] cannot be multiplied");
  EXPECT_EQ(value_error([&] {
              linalg::multi_dot({v, ones({4})});
            }),
            "multi_dot(): tensors 0 and 1 with shapes [3] and [4] cannot be multiplied");
  EXPECT_EQ(type_error([&] {
              linalg::multi_dot({sq, sq.to(kLong)});
            }),
            "multi_dot(): all tensors must have be the same dtype but tensor 0 is float and tensor "
            "1 long int");
  EXPECT_EQ(error_of<DeviceError>([&] {
              linalg::multi_dot({sq, sq.to(Device(kMeta))});
            }),
            "multi_dot(): all tensors must be on the same device but tensor 0 is on cpu and "
            "tensor 1 on meta");
  // vecdot
  EXPECT_EQ(type_error([&] { linalg::vecdot(m.to(kLong), m.to(kLong)); }),
            "linalg.vecdot: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_EQ(type_error([&] { linalg::vecdot(m, m.to(kDouble)); }),
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type Float and "
            "y of type Double instead");
  EXPECT_EQ(index_error([&] { linalg::vecdot(m, m, 2); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  // vander
  EXPECT_EQ(type_error([&] { linalg::vander(v.to(kBool)); }),
            "linalg.vander supports floating point, complex, and integer tensors, but got Bool");
  EXPECT_EQ(value_error([&] { linalg::vander(v, 1); }), "N must be greater than 1.");
  EXPECT_EQ(value_error([&] { linalg::vander(ones({})); }), "N must be greater than 1.");
  EXPECT_EQ(value_error([&] { linalg::vander(ones({0})); }), "N must be greater than 1.");
  // tensorinv
  EXPECT_EQ(value_error([&] {
              linalg::tensorinv(ones({4, 6, 24}), 0);
            }),
            "Expected a strictly positive integer for 'ind', but got 0");
  EXPECT_EQ(value_error([&] {
              linalg::tensorinv(ones({4, 6, 8, 4}));
            }),
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            "prod(self.shape[:ind]), but got 32 != 24");
  EXPECT_EQ(value_error([&] {
              linalg::tensorinv(ones({4, 6}), 3);
            }),
            "Expected 'ind' to be at most the number of dimensions (2), but got 3");
  EXPECT_EQ(type_error([&] {
              linalg::tensorinv(ones({2, 2}, kLong), 1);
            }),
            "linalg.inv: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_EQ(error_of<LinAlgError>([&] {
              linalg::tensorinv(zeros({2, 2}), 1);
            }),
            "inv: The diagonal element 1 is zero, the inversion could not be completed because "
            "the input matrix is singular.");
  // tensorsolve
  EXPECT_EQ(value_error([&] {
              linalg::tensorsolve(ones({2, 3, 6}), ones({2, 4}));
            }),
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            "prod(self.shape[:other.ndim]), but got 6 != 8");
  EXPECT_EQ(value_error([&] {
              linalg::tensorsolve(ones({6}), ones({2, 3}));
            }),
            "Expected B to have at most as many dimensions as A (1), but got 2");
  EXPECT_EQ(index_error([&] {
              linalg::tensorsolve(ones({2, 3, 6}), ones({2, 3}), {5});
            }),
            "Dimension out of range (expected to be in range of [-3, 2], but got 5)");
  EXPECT_EQ(type_error([&] {
              linalg::tensorsolve(ones({2, 3, 6}), ones({2, 3}, kDouble));
            }),
            "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and "
            "B of type Double instead");
  EXPECT_EQ(error_of<LinAlgError>([&] {
              linalg::tensorsolve(zeros({2, 3, 6}), ones({2, 3}));
            }),
            "torch.linalg.solve: The solver failed because the input matrix is singular.");
  // cond
  EXPECT_EQ(value_error([&] { linalg::cond(v); }),
            "linalg.cond: The input tensor must have at least 2 dimensions.");
  EXPECT_EQ(value_error([&] { linalg::cond(sq, 3); }), "linalg.cond got an invalid norm type: 3");
  EXPECT_EQ(value_error([&] { linalg::cond(sq, 2.5); }),
            "linalg.cond got an invalid norm type: 2.5");
  EXPECT_EQ(value_error([&] { linalg::cond(sq, std::string_view("abc")); }),
            "linalg.cond got an invalid norm type: abc");
  EXPECT_EQ(value_error([&] { linalg::cond(m, 1); }),
            "linalg.cond(ord=1): A must be batches of square matrices, but they are 2 by 3 "
            "matrices");
  EXPECT_EQ(value_error([&] { linalg::cond(m, 1.0); }),
            "linalg.cond(ord=1.000000): A must be batches of square matrices, but they are 2 by 3 "
            "matrices");
  EXPECT_EQ(value_error([&] { linalg::cond(m, -kInf); }),
            "linalg.cond(ord=-inf): A must be batches of square matrices, but they are 2 by 3 "
            "matrices");
  EXPECT_EQ(value_error([&] { linalg::cond(m, std::string_view("nuc")); }),
            "linalg.cond(ord=nuc): A must be batches of square matrices, but they are 2 by 3 "
            "matrices");
  EXPECT_EQ(value_error([&] { linalg::cond(v, std::string_view("fro")); }),
            "linalg.cond(ord=fro): The input tensor A must have at least 2 dimensions.");
  EXPECT_EQ(type_error([&] { linalg::cond(sq.to(kLong)); }),
            "linalg.svd: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_EQ(type_error([&] { linalg::cond(sq.to(kLong), 1); }),
            "linalg.inv: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_EQ(type_error([&] { linalg::cond(sq.to(kLong), std::string_view("nuc")); }),
            "linalg.svd: Expected a floating point or complex tensor as input. Got Long");
}
