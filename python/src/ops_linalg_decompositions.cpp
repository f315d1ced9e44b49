// The decompositions in ember._C._linalg: qr, eigh, eigvalsh, svd, svdvals, the top-level
// torch.qr/torch.svd forms (_qr_some, _svd_some), the public LU functions (lu_factor(_ex), lu,
// lu_solve), solve_triangular, householder_product, lstsq and the _ex forms of inv, cholesky and
// solve. Several results come back as plain tuples; ember/linalg.py names them as PyTorch's
// return_types (linalg_qr, linalg_eigh, linalg_svd, qr, svd, linalg_lu_factor, ...).
#include <string>

#include "ember/linalg.h"
#include "ops_linalg.h"

namespace ember::python {

namespace {

using T = const Tensor&;

template <typename F>
nb::tuple without_gil(F&& f) {
  return tensors_without_gil([&] {
    auto result = f();
    return std::apply([](auto&... t) { return std::vector<Tensor>{t...}; }, result);
  });
}

}  // namespace

void init_linalg_decompositions(nb::module_& m, nb::module_& linalg, nb::class_<Tensor>& cls) {
  (void)m;
  (void)cls;
  using RG = nb::call_guard<nb::gil_scoped_release>;
  linalg.def(
      "qr",
      [](T A, const std::string& mode) { return without_gil([&] { return linalg::qr(A, mode); }); },
      "A"_a, "mode"_a = "reduced");
  linalg.def(
      "eigh",
      [](T A, const std::string& UPLO) {
        return without_gil([&] { return linalg::eigh(A, UPLO); });
      },
      "A"_a, "UPLO"_a = "L");
  linalg.def(
      "eigvalsh", [](T A, const std::string& UPLO) { return linalg::eigvalsh(A, UPLO); }, "A"_a,
      "UPLO"_a = "L", RG());
  linalg.def(
      "svd",
      [](T A, bool full_matrices) {
        return without_gil([&] { return linalg::svd(A, full_matrices); });
      },
      "A"_a, "full_matrices"_a = true);
  linalg.def(
      "svdvals", [](T A) { return linalg::svdvals(A); }, "A"_a, RG());
  linalg.def(
      "_qr_some", [](T A, bool some) { return without_gil([&] { return ember::qr(A, some); }); },
      "input"_a, "some"_a = true);
  linalg.def(
      "_svd_some",
      [](T A, bool some, bool compute_uv) {
        return without_gil([&] { return ember::svd(A, some, compute_uv); });
      },
      "input"_a, "some"_a = true, "compute_uv"_a = true);
  linalg.def(
      "lu_factor",
      [](T A, bool pivot) { return without_gil([&] { return linalg::lu_factor(A, pivot); }); },
      "A"_a, nb::kw_only(), "pivot"_a = true);
  linalg.def(
      "lu_factor_ex",
      [](T A, bool pivot, bool check_errors) {
        return without_gil([&] { return linalg::lu_factor_ex(A, pivot, check_errors); });
      },
      "A"_a, nb::kw_only(), "pivot"_a = true, "check_errors"_a = false);
  linalg.def(
      "lu", [](T A, bool pivot) { return without_gil([&] { return linalg::lu(A, pivot); }); },
      "A"_a, nb::kw_only(), "pivot"_a = true);
  linalg.def(
      "lu_solve",
      [](T LU, T pivots, T B, bool left, bool adjoint) {
        return linalg::lu_solve(LU, pivots, B, left, adjoint);
      },
      "LU"_a, "pivots"_a, "B"_a, nb::kw_only(), "left"_a = true, "adjoint"_a = false, RG());
  linalg.def(
      "solve_triangular",
      [](T A, T B, bool upper, bool left, bool unitriangular) {
        return linalg::solve_triangular(A, B, upper, left, unitriangular);
      },
      "A"_a, "B"_a, nb::kw_only(), "upper"_a, "left"_a = true, "unitriangular"_a = false, RG());
  linalg.def(
      "householder_product", [](T A, T tau) { return linalg::householder_product(A, tau); }, "A"_a,
      "tau"_a, RG());
  linalg.def(
      "inv_ex",
      [](T A, bool check_errors) {
        return without_gil([&] { return linalg::inv_ex(A, check_errors); });
      },
      "A"_a, nb::kw_only(), "check_errors"_a = false);
  linalg.def(
      "cholesky_ex",
      [](T A, bool upper, bool check_errors) {
        return without_gil([&] { return linalg::cholesky_ex(A, upper, check_errors); });
      },
      "A"_a, nb::kw_only(), "upper"_a = false, "check_errors"_a = false);
  linalg.def(
      "solve_ex",
      [](T A, T B, bool left, bool check_errors) {
        return without_gil([&] { return linalg::solve_ex(A, B, left, check_errors); });
      },
      "A"_a, "B"_a, nb::kw_only(), "left"_a = true, "check_errors"_a = false);
  linalg.def(
      "lstsq",
      [](T A, T B, std::optional<double> rcond, std::optional<std::string> driver) {
        return without_gil([&] {
          return linalg::lstsq(A, B, rcond,
                               driver ? std::optional<std::string_view>(*driver) : std::nullopt);
        });
      },
      "A"_a, "B"_a, "rcond"_a = nb::none(), nb::kw_only(), "driver"_a = nb::none());
}

}  // namespace ember::python
