// Sorting and scans along a dim, and sampling: sort and topk (a (values, indices) pair, as
// ember.return_types.sort / topk), argsort, multinomial, cumsum and cumprod. Each is ember.f(input,
// ...) and Tensor.f(...), with PyTorch's keywords; kernels run without the GIL.
#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using T = const Tensor&;

}  // namespace

void init_ops_sort_scan(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "sort",
      [](T t, int64_t dim, bool descending, bool stable) {
        return pair_without_gil(
            "sort", [&] { return t.sort(std::optional<bool>(stable), dim, descending); });
      },
      "dim"_a = -1, "descending"_a = false, nb::kw_only(), "stable"_a = false);
  both(
      m, cls, "argsort",
      [](T t, int64_t dim, bool descending, bool stable) {
        return t.argsort(stable, dim, descending);
      },
      "dim"_a = -1, "descending"_a = false, nb::kw_only(), "stable"_a = false, RG());
  both(
      m, cls, "topk",
      [](T t, int64_t k, int64_t dim, bool largest, bool sorted) {
        return pair_without_gil("topk", [&] { return t.topk(k, dim, largest, sorted); });
      },
      "k"_a, "dim"_a = -1, "largest"_a = true, "sorted"_a = true);
  both(
      m, cls, "multinomial",
      [](T t, int64_t num_samples, bool replacement) {
        return t.multinomial(num_samples, replacement);
      },
      "num_samples"_a, "replacement"_a = false, RG());
  for (const char* name : {"cumsum", "cumprod"}) {
    const bool is_sum = name[3] == 's';
    both(
        m, cls, name,
        [is_sum](T t, int64_t dim, nb::handle dtype) {
          const auto dt = dtype_arg(dtype);
          nb::gil_scoped_release release;
          return is_sum ? cumsum(t, dim, dt) : cumprod(t, dim, dt);
        },
        "dim"_a, nb::kw_only(), "dtype"_a = nb::none());
  }
}

}  // namespace ember::python
