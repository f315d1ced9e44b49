// torch.linalg's compositions in ember._C._linalg (src/ops/linalg_composites.cpp): cross,
// diagonal, matmul, matrix_power, multi_dot, vecdot, vander, tensorinv, tensorsolve and cond,
// which ember/linalg.py re-exports. The parameter names and keyword-only markers are those
// PyTorch 1.13 binds (input/other where its docs write A/B). Kernels run without the GIL.
#include <string>
#include <vector>

#include "ember/linalg.h"
#include "ops_linalg.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using T = const Tensor&;

// A Tensor is a sequence in Python; PyTorch refuses it where a list of tensors is expected.
std::vector<Tensor> tensor_list(nb::handle h) {
  EMBER_CHECK(!nb::isinstance<Tensor>(h), ArgumentTypeError,
              "linalg_multi_dot(): argument 'tensors' (position 1) must be tuple of Tensors, not "
              "Tensor");
  return nb::cast<std::vector<Tensor>>(h);
}

void def_products(nb::module_& linalg) {
  linalg.def(
      "cross", [](T input, T other, int64_t dim) { return linalg::cross(input, other, dim); },
      "input"_a, "other"_a, nb::kw_only(), "dim"_a = -1, RG());
  linalg.def(
      "matmul", [](T input, T other) { return linalg::matmul(input, other); }, "input"_a, "other"_a,
      RG());
  linalg.def(
      "vecdot", [](T x, T y, int64_t dim) { return linalg::vecdot(x, y, dim); }, "x"_a, "y"_a,
      nb::kw_only(), "dim"_a = -1, RG());
  linalg.def(
      "multi_dot",
      [](nb::handle tensors) {
        const std::vector<Tensor> ts = tensor_list(tensors);
        nb::gil_scoped_release release;
        return linalg::multi_dot(ts);
      },
      "tensors"_a);
}

void def_parts_and_powers(nb::module_& linalg) {
  linalg.def(
      "diagonal",
      [](T A, int64_t offset, int64_t dim1, int64_t dim2) {
        return linalg::diagonal(A, offset, dim1, dim2);
      },
      "A"_a, nb::kw_only(), "offset"_a = 0, "dim1"_a = -2, "dim2"_a = -1, RG());
  linalg.def(
      "matrix_power", [](T input, int64_t n) { return linalg::matrix_power(input, n); }, "input"_a,
      "n"_a, RG());
  linalg.def(
      "vander", [](T x, std::optional<int64_t> N) { return linalg::vander(x, N); }, "x"_a,
      nb::kw_only(), "N"_a = nb::none(), RG());
}

void def_inverses(nb::module_& linalg) {
  linalg.def(
      "tensorinv", [](T input, int64_t ind) { return linalg::tensorinv(input, ind); }, "input"_a,
      "ind"_a = 2, RG());
  linalg.def(
      "tensorsolve",
      [](T input, T other, nb::handle dims) {
        const std::vector<int64_t> d =
            dims.is_none() ? std::vector<int64_t>{} : int_list(dims, "dims");
        nb::gil_scoped_release release;
        return linalg::tensorsolve(input, other, d);
      },
      "input"_a, "other"_a, "dims"_a = nb::none());
  // p: None (the 2-norm), a number, or "fro" / "nuc".
  linalg.def(
      "cond",
      [](T input, nb::handle p) {
        if (nb::isinstance<nb::str>(p)) {
          const std::string name = nb::cast<std::string>(p);
          nb::gil_scoped_release release;
          return linalg::cond(input, std::string_view(name));
        }
        std::optional<Scalar> ord;
        if (PyLong_Check(p.ptr()))
          ord = Scalar(nb::cast<int64_t>(p));
        else if (PyFloat_Check(p.ptr()))
          ord = Scalar(nb::cast<double>(p));
        else if (!p.is_none()) {
          throw ArgumentTypeError(
              detail::str_cat("linalg_cond(): argument 'p' must be Number or str, not ",
                              nb::type_name(p.type()).c_str()));
        }
        nb::gil_scoped_release release;
        return linalg::cond(input, ord);
      },
      "input"_a, "p"_a = nb::none());
}

}  // namespace

void init_linalg_composites(nb::module_& linalg) {
  def_products(linalg);
  def_parts_and_powers(linalg);
  def_inverses(linalg);
}

}  // namespace ember::python
