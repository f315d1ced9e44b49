// The matrix ops: products (matmul, mm, bmm, addmm, outer, einsum, kron, tensordot, cross) and
// the triangles and diagonals of a matrix (tril, triu, diag, trace, tril_indices, triu_indices),
// and the square-matrix functions (det, logdet, slogdet, inverse, cholesky; ember._C._linalg's
// inv, solve, det, slogdet, cholesky, which ember/linalg.py re-exports as ember.linalg).
// Each is ember.f(input, ...) and, where PyTorch has it, Tensor.f(...), with Tensor.f_(...) where
// PyTorch has one; kernels run without the GIL. a @ b is in ops_operators.cpp.
#include "ops_linalg.h"
#include "ember/linalg.h"

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

void def_lu_functions(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "det", [](T a) { return det(a); }, RG());
  both(
      m, cls, "logdet", [](T a) { return logdet(a); }, RG());
  both(
      m, cls, "inverse", [](T a) { return inverse(a); }, RG());
  both(
      m, cls, "cholesky", [](T a, bool upper) { return cholesky(a, upper); }, "upper"_a = false,
      RG());
  both(m, cls, "slogdet",
       [](T a) { return pair_without_gil("slogdet", [&] { return slogdet(a); }); });
  nb::module_ sub = m.def_submodule("_linalg", "torch.linalg's functions (ember/linalg.py)");
  sub.def(
      "inv", [](T a) { return linalg::inv(a); }, "A"_a, RG());
  sub.def(
      "det", [](T a) { return linalg::det(a); }, "A"_a, RG());
  sub.def(
      "solve", [](T a, T b, bool left) { return linalg::solve(a, b, left); }, "A"_a, "B"_a,
      nb::kw_only(), "left"_a = true, RG());
  sub.def(
      "cholesky", [](T a, bool upper) { return linalg::cholesky(a, upper); }, "A"_a, nb::kw_only(),
      "upper"_a = false, RG());
  sub.def(
      "slogdet",
      [](T a) { return pair_without_gil("linalg_slogdet", [&] { return linalg::slogdet(a); }); },
      "A"_a);
  init_linalg_decompositions(m, sub, cls);
  init_linalg_functions(m, sub, cls);
  init_linalg_composites(sub);
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

// kron, tensordot (dims: an int n, the last n dims of a with the first n of b; or two lists;
// or a tensor of either), cross, and the triangles' coordinates tril_indices/triu_indices.
void def_tensor_products(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "kron", [](T a, T b) { return kron(a, b); }, "other"_a, RG());
  m.def(
      "tensordot",
      [](T a, T b, nb::handle dims) {
        nb::object d = nb::borrow(dims);
        if (nb::isinstance<Tensor>(dims)) {
          const Tensor& t = nb::cast<const Tensor&>(dims);
          d = t.numel() == 1 ? nb::cast(t.item<int64_t>())
                             : nb::cast(t.to(Device(kCPU)).to(kLong).to_vector<int64_t>());
          if (t.dim() == 2) {
            const std::vector<int64_t> v = t.to(Device(kCPU)).to(kLong).to_vector<int64_t>();
            const size_t half = v.size() / 2;
            d = nb::make_tuple(std::vector<int64_t>(v.begin(), v.begin() + half),
                               std::vector<int64_t>(v.begin() + half, v.end()));
          }
        }
        std::vector<int64_t> da, db;
        if (PyLong_Check(d.ptr())) {
          const int64_t n = nb::cast<int64_t>(d);
          EMBER_CHECK(n >= 0, ValueError, "tensordot expects dims >= 0, but got dims=", n);
          EMBER_CHECK(n <= a.dim() && n <= b.dim(), ValueError,
                      "tensordot expects dims < ndim_a or ndim_b, but got dims=", n);
          for (int64_t i = 0; i < n; ++i) {
            da.push_back(a.dim() - n + i);
            db.push_back(i);
          }
        } else {
          const nb::sequence pair = nb::borrow<nb::sequence>(d);
          EMBER_CHECK(nb::len(pair) == 2, ValueError,
                      "tensordot expects dims to be a pair of lists of dims (got ", nb::len(pair),
                      " entries)");
          da = int_list(pair[0], "dims");
          db = int_list(pair[1], "dims");
        }
        nb::gil_scoped_release release;
        return tensordot(a, b, da, db);
      },
      "a"_a, "b"_a, "dims"_a = 2);
  both(
      m, cls, "cross", [](T a, T b, std::optional<int64_t> dim) { return cross(a, b, dim); },
      "other"_a, "dim"_a = nb::none(), RG());
  // dtype defaults to int64 (ember.long), not the default float dtype.
  for (auto [name, f] :
       {std::pair{"tril_indices", &tril_indices}, {"triu_indices", &triu_indices}}) {
    m.def(
        name,
        [f](int64_t row, int64_t col, int64_t offset, nb::handle dtype, nb::handle device) {
          TensorOptions o = options_from(dtype, device, false);
          if (dtype.is_none()) o = o.dtype(kLong);
          nb::gil_scoped_release release;
          return f(row, col, offset, o);
        },
        "row"_a, "col"_a, "offset"_a = 0, nb::kw_only(), "dtype"_a = nb::none(),
        "device"_a = nb::none());
  }
}

void init_ops_linalg(nb::module_& m, nb::class_<Tensor>& cls) {
  def_products(m, cls);
  def_triangles_and_diagonals(m, cls);
  def_lu_functions(m, cls);
  def_tensor_products(m, cls);
}

}  // namespace ember::python
