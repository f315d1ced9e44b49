// The decompositions in ember._C._linalg: qr, eigh, eigvalsh, svd, svdvals, and the top-level
// torch.qr/torch.svd forms (_qr_some, _svd_some). The pairs and triples come back as plain tuples;
// ember/linalg.py names them as PyTorch's return_types (linalg_qr, linalg_eigh, linalg_svd, qr,
// svd).
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
}

}  // namespace ember::python
