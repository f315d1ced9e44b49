// The linalg functions built on the reductions and decompositions (include/ember/linalg.h):
// ember._C._linalg's vector_norm, matrix_norm, norm, pinv, matrix_rank and matrix_exp, which
// ember/linalg.py re-exports, and ember.cholesky_solve, matrix_exp and pinverse with their Tensor
// methods, with PyTorch 1.13's arguments. Kernels run without the GIL.
#include "ember/linalg.h"
#include "ops_linalg.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using T = const Tensor&;

// A numeric ord; PyTorch's argument parser refuses anything else with this TypeError.
Scalar number_arg(nb::handle h, const char* fn, const char* name, int position) {
  if (PyLong_Check(h.ptr())) return Scalar(nb::cast<int64_t>(h));
  if (PyFloat_Check(h.ptr())) return Scalar(nb::cast<double>(h));
  throw ArgumentTypeError(detail::str_cat(fn, "(): argument '", name, "' (position ", position,
                                          ") must be Number, not ",
                                          nb::type_name(h.type()).c_str()));
}

std::vector<int64_t> dims_or_empty(nb::handle dim) {
  return dim.is_none() ? std::vector<int64_t>{} : int_list(dim, "dim");
}

std::optional<double> double_arg(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return nb::cast<double>(h);
}

void def_norms(nb::module_& linalg) {
  linalg.def(
      "vector_norm",
      [](T x, nb::handle ord, nb::handle dim, bool keepdim, nb::handle dtype) {
        const Scalar o = number_arg(ord, "linalg_vector_norm", "ord", 2);
        const std::vector<int64_t> dims = dims_or_empty(dim);  // () as None: every element
        const std::optional<ScalarType> dt = dtype_arg(dtype);
        nb::gil_scoped_release release;
        return linalg::vector_norm(x, o, dims, keepdim, dt);
      },
      "x"_a, "ord"_a = 2, "dim"_a = nb::none(), "keepdim"_a = false, nb::kw_only(),
      "dtype"_a = nb::none());
  linalg.def(
      "matrix_norm",
      [](T A, nb::handle ord, nb::handle dim, bool keepdim, nb::handle dtype) {
        const std::vector<int64_t> dims = int_list(dim, "dim");
        const std::optional<ScalarType> dt = dtype_arg(dtype);
        if (nb::isinstance<nb::str>(ord)) {
          const std::string o = nb::cast<std::string>(ord);
          nb::gil_scoped_release release;
          return linalg::matrix_norm(A, std::string_view(o), dims, keepdim, dt);
        }
        const Scalar o = number_arg(ord, "linalg_matrix_norm", "ord", 2);
        nb::gil_scoped_release release;
        return linalg::matrix_norm(A, o, dims, keepdim, dt);
      },
      "A"_a, "ord"_a = "fro", "dim"_a = nb::make_tuple(-2, -1), "keepdim"_a = false, nb::kw_only(),
      "dtype"_a = nb::none());
  linalg.def(
      "norm",
      [](T A, nb::handle ord, nb::handle dim, bool keepdim, nb::handle dtype) {
        const std::vector<int64_t> dims = dims_or_empty(dim);
        const std::optional<ScalarType> dt = dtype_arg(dtype);
        const bool by_name = nb::isinstance<nb::str>(ord);
        // C++ reads no dims as "dim unset"; an empty tuple given is PyTorch's error.
        EMBER_CHECK(dim.is_none() || !dims.empty(), ValueError,
                    "linalg.norm: If dim is specified, ", by_name ? "it mut be" : "it must be",
                    " of length 1 or 2. Got []");
        if (by_name) {
          const std::string o = nb::cast<std::string>(ord);
          nb::gil_scoped_release release;
          return linalg::norm(A, std::string_view(o), dims, keepdim, dt);
        }
        std::optional<Scalar> o;
        if (!ord.is_none()) o = number_arg(ord, "linalg_norm", "ord", 2);
        nb::gil_scoped_release release;
        return linalg::norm(A, o, dims, keepdim, dt);
      },
      "A"_a, "ord"_a = nb::none(), "dim"_a = nb::none(), "keepdim"_a = false, nb::kw_only(),
      "dtype"_a = nb::none());
}

// pinv and matrix_rank take PyTorch's two forms: (atol=, rtol=) keywords, or the older rcond /
// tol (a relative / an absolute tolerance) by position or keyword, never both.
void def_pinv_rank(nb::module_& linalg) {
  linalg.def(
      "pinv",
      [](T A, nb::handle rcond, bool hermitian, nb::handle atol, nb::handle rtol) {
        if (!rcond.is_none()) {
          EMBER_CHECK(atol.is_none() && rtol.is_none(), ArgumentTypeError,
                      "linalg_pinv() received an invalid combination of arguments: rcond "
                      "cannot be given with atol or rtol");
          const double r = nb::cast<double>(rcond);
          nb::gil_scoped_release release;
          return linalg::pinv(A, r, hermitian);
        }
        const std::optional<double> a = double_arg(atol), r = double_arg(rtol);
        nb::gil_scoped_release release;
        return linalg::pinv(A, a, r, hermitian);
      },
      "A"_a, "rcond"_a = nb::none(), "hermitian"_a = false, nb::kw_only(), "atol"_a = nb::none(),
      "rtol"_a = nb::none());
  linalg.def(
      "matrix_rank",
      [](T A, nb::handle tol, bool hermitian, nb::handle atol, nb::handle rtol) {
        std::optional<double> a = double_arg(atol), r = double_arg(rtol);
        if (!tol.is_none()) {
          EMBER_CHECK(atol.is_none() && rtol.is_none(), ArgumentTypeError,
                      "linalg_matrix_rank() received an invalid combination of arguments: tol "
                      "cannot be given with atol or rtol");
          a = nb::cast<double>(tol);
          r = 0.0;
        }
        nb::gil_scoped_release release;
        return linalg::matrix_rank(A, a, r, hermitian);
      },
      "A"_a, "tol"_a = nb::none(), "hermitian"_a = false, nb::kw_only(), "atol"_a = nb::none(),
      "rtol"_a = nb::none());
  linalg.def(
      "matrix_exp", [](T A) { return linalg::matrix_exp(A); }, "A"_a, RG());
}

}  // namespace

void init_linalg_functions(nb::module_& m, nb::module_& linalg, nb::class_<Tensor>& cls) {
  def_norms(linalg);
  def_pinv_rank(linalg);
  both(
      m, cls, "matrix_exp", [](T A) { return matrix_exp(A); }, RG());
  both(
      m, cls, "cholesky_solve", [](T B, T L, bool upper) { return cholesky_solve(B, L, upper); },
      "input2"_a, "upper"_a = false, RG());
  both(
      m, cls, "pinverse", [](T A, double rcond) { return pinverse(A, rcond); }, "rcond"_a = 1e-15,
      RG());
}

}  // namespace ember::python
