// The matrix ops: products (matmul, mm, bmm, addmm, outer, einsum) and the triangles and
// diagonals of a matrix (tril, triu, diag, trace). Each is ember.f(input, ...) and, where
// PyTorch has it, Tensor.f(...), with Tensor.f_(...) where PyTorch has one; kernels run without
// the GIL. a @ b is in ops_operators.cpp.
#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using T = const Tensor&;
using S = const Scalar&;

void def_products(nb::module_& m, nb::class_<Tensor>& cls) {
  cls.def("matmul", &Tensor::matmul, RG());
  m.def(
      "matmul", [](T a, T b) { return matmul(a, b); }, RG());
  cls.def("mm", &Tensor::mm, RG());
  m.def(
      "mm", [](T a, T b) { return a.mm(b); }, RG());
  cls.def("bmm", &Tensor::bmm, RG());
  m.def(
      "bmm", [](T a, T b) { return bmm(a, b); }, "input"_a, "mat2"_a, RG());
  both(
      m, cls, "addmm",
      [](T t, T mat1, T mat2, S beta, S alpha) { return addmm(t, mat1, mat2, beta, alpha); },
      "mat1"_a, "mat2"_a, nb::kw_only(), "beta"_a = 1, "alpha"_a = 1, RG());
  both(
      m, cls, "outer", [](T a, T b) { return outer(a, b); }, "vec2"_a, RG());
  // einsum("ij,jk", a, b) and einsum("ij,jk", [a, b]).
  m.def("einsum", [](const std::string& equation, nb::args operands) {
    std::vector<Tensor> ts;
    if (operands.size() == 1 && !nb::isinstance<Tensor>(operands[0])) {
      ts = nb::cast<std::vector<Tensor>>(operands[0]);
    } else {
      for (nb::handle h : operands) ts.push_back(nb::cast<Tensor>(h));
    }
    nb::gil_scoped_release release;
    return einsum(equation, ts);
  });
}

void def_triangles_and_diagonals(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "tril", [](T t, int64_t diagonal) { return tril(t, diagonal); }, "diagonal"_a = 0,
      RG());
  both(
      m, cls, "triu", [](T t, int64_t diagonal) { return triu(t, diagonal); }, "diagonal"_a = 0,
      RG());
  cls.def(
      "tril_",
      [](nb::handle s, int64_t diagonal) { return inplace(s, [&](T t) { t.tril_(diagonal); }); },
      "diagonal"_a = 0);
  cls.def(
      "triu_",
      [](nb::handle s, int64_t diagonal) { return inplace(s, [&](T t) { t.triu_(diagonal); }); },
      "diagonal"_a = 0);
  both(
      m, cls, "diag", [](T t, int64_t diagonal) { return diag(t, diagonal); }, "diagonal"_a = 0,
      RG());
  both(
      m, cls, "trace", [](T t) { return trace(t); }, RG());
}

}  // namespace

void init_ops_linalg(nb::module_& m, nb::class_<Tensor>& cls) {
  def_products(m, cls);
  def_triangles_and_diagonals(m, cls);
}

}  // namespace ember::python
