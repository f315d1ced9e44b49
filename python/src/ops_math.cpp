// The special functions with arguments (logit, polygamma, nan_to_num), comparisons (isclose,
// isin), statistics (aminmax, cummax/cummin, logcumsumexp, kthvalue, median, nanmedian,
// quantile, nanquantile, diff, trapezoid/trapz/cumulative_trapezoid, dist, renorm, cdist),
// searches and counts (searchsorted, bucketize, bincount, histc, unique, unique_consecutive) and
// the vector products (mv, dot, vdot, addmv, baddbmm, addbmm, matrix_power), with PyTorch
// 1.13's keywords; and the scalar-first spellings xlogy(2, t) and float_power(2, t) of two op
// table rows, and heaviside's `values` keyword. Kernels run without the GIL.
#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using T = const Tensor&;
using S = const Scalar&;
using OptT = const std::optional<Tensor>&;

// A tensor or a Python number, as torch.isin and torch.searchsorted take: a number becomes a
// 0-dim tensor of the dtype PyTorch's promotion gives it next to `other`.
Tensor tensor_or_scalar(nb::handle h, const Tensor& other) {
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h);
  const Scalar s = nb::cast<Scalar>(h);
  return full({}, s, TensorOptions().dtype(result_type(other, s)).device(other.device()));
}

void def_elementwise(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "logit", [](T t, std::optional<double> eps) { return logit(t, eps); },
      "eps"_a = nb::none(), RG());
  m.def(
      "polygamma", [](int64_t n, T t) { return polygamma(n, t); }, "n"_a, "input"_a, RG());
  cls.def(
      "polygamma", [](T t, int64_t n) { return t.polygamma(n); }, "n"_a, RG());
  both(
      m, cls, "nan_to_num",
      [](T t, std::optional<double> nan, std::optional<double> posinf,
         std::optional<double> neginf) { return nan_to_num(t, nan.value_or(0.0), posinf, neginf); },
      "nan"_a = 0.0, "posinf"_a = nb::none(), "neginf"_a = nb::none(), RG());
  both(
      m, cls, "isclose",
      [](T a, T b, double rtol, double atol, bool equal_nan) {
        return isclose(a, b, rtol, atol, equal_nan);
      },
      "other"_a, "rtol"_a = 1e-5, "atol"_a = 1e-8, "equal_nan"_a = false, RG());
  m.def(
      "isin",
      [](nb::handle elements, nb::handle test_elements, bool assume_unique, bool invert) {
        EMBER_CHECK(nb::isinstance<Tensor>(elements) || nb::isinstance<Tensor>(test_elements),
                    ArgumentTypeError,
                    "isin(): at least one of elements and test_elements must be a Tensor");
        Tensor e = nb::isinstance<Tensor>(elements) ? nb::cast<Tensor>(elements) : Tensor();
        Tensor t =
            nb::isinstance<Tensor>(test_elements) ? nb::cast<Tensor>(test_elements) : Tensor();
        if (!e.defined()) e = tensor_or_scalar(elements, t);
        if (!t.defined()) t = tensor_or_scalar(test_elements, e);
        nb::gil_scoped_release release;
        return isin(e, t, assume_unique, invert);
      },
      "elements"_a, "test_elements"_a, nb::kw_only(), "assume_unique"_a = false,
      "invert"_a = false);
  // heaviside's second argument is `values` in PyTorch (the table binds it positionally as
  // `other`): heaviside(x, values=v) and x.heaviside(values=v).
  m.def(
      "heaviside", [](T a, T values) { return heaviside(a, values); }, "input"_a, "values"_a, RG());
  cls.def(
      "heaviside", [](T a, T values) { return a.heaviside(values); }, "values"_a, RG());
  // The scalar-first forms of two table ops: the scalar takes the dtype promotion gives it.
  m.def(
      "xlogy",
      [](S self, T other) {
        const ScalarType dt = result_type(other, self);
        return xlogy(full({}, self, TensorOptions().dtype(dt).device(other.device())), other);
      },
      "self"_a, "other"_a, RG());
  m.def(
      "float_power",
      [](S self, T exponent) { return pow(Scalar(self.toDouble()), exponent.to(kDouble)); },
      "self"_a, "exponent"_a, RG());
}

void def_statistics(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "aminmax",
      [](T t, std::optional<int64_t> dim, bool keepdim) {
        return pair_without_gil("aminmax", [&] { return t.aminmax(dim, keepdim); });
      },
      nb::kw_only(), "dim"_a = nb::none(), "keepdim"_a = false);
  both(
      m, cls, "cummax",
      [](T t, int64_t dim) { return pair_without_gil("cummax", [&] { return t.cummax(dim); }); },
      "dim"_a);
  both(
      m, cls, "cummin",
      [](T t, int64_t dim) { return pair_without_gil("cummin", [&] { return t.cummin(dim); }); },
      "dim"_a);
  both(
      m, cls, "logcumsumexp", [](T t, int64_t dim) { return t.logcumsumexp(dim); }, "dim"_a, RG());
  both(
      m, cls, "kthvalue",
      [](T t, int64_t k, int64_t dim, bool keepdim) {
        return pair_without_gil("kthvalue", [&] { return t.kthvalue(k, dim, keepdim); });
      },
      "k"_a, "dim"_a = -1, "keepdim"_a = false);
  for (const char* name : {"median", "nanmedian"}) {
    const bool ignore_nan = name[0] == 'n';
    auto whole = [ignore_nan](T t) {
      nb::gil_scoped_release release;
      return ignore_nan ? t.nanmedian() : t.median();
    };
    auto along = [ignore_nan, name](T t, int64_t dim, bool keepdim) {
      return pair_without_gil(
          name, [&] { return ignore_nan ? t.nanmedian(dim, keepdim) : t.median(dim, keepdim); });
    };
    both(m, cls, name, whole);
    both(m, cls, name, along, "dim"_a, "keepdim"_a = false);
  }
  for (const char* name : {"quantile", "nanquantile"}) {
    const bool ignore_nan = name[0] == 'n';
    auto f = [ignore_nan](T t, nb::handle q, std::optional<int64_t> dim, bool keepdim,
                          const std::string& interpolation) {
      if (nb::isinstance<Tensor>(q)) {
        Tensor qt = nb::cast<Tensor>(q);
        nb::gil_scoped_release release;
        return ignore_nan ? t.nanquantile(qt, dim, keepdim, interpolation)
                          : t.quantile(qt, dim, keepdim, interpolation);
      }
      const double qd = nb::cast<double>(q);
      nb::gil_scoped_release release;
      return ignore_nan ? t.nanquantile(qd, dim, keepdim, interpolation)
                        : t.quantile(qd, dim, keepdim, interpolation);
    };
    both(m, cls, name, f, "q"_a, "dim"_a = nb::none(), "keepdim"_a = false, nb::kw_only(),
         "interpolation"_a = "linear");
  }
  both(
      m, cls, "diff",
      [](T t, int64_t n, int64_t dim, OptT prepend, OptT append) {
        return t.diff(n, dim, prepend, append);
      },
      "n"_a = 1, "dim"_a = -1, "prepend"_a = nb::none(), "append"_a = nb::none(), RG());
  // trapezoid(y, x=None, *, dx=None, dim=-1) and cumulative_trapezoid alike; x and dx exclusive.
  for (const char* name : {"trapezoid", "cumulative_trapezoid"}) {
    const bool cumulative = name[0] == 'c';
    m.def(
        name,
        [cumulative, name](T y, OptT x, std::optional<double> dx, int64_t dim) {
          EMBER_CHECK(!(x && dx), ArgumentTypeError, name,
                      "(): received both x and dx; pass one of them");
          if (x) return cumulative ? cumulative_trapezoid(y, *x, dim) : trapezoid(y, *x, dim);
          const Scalar step = dx.value_or(1.0);
          return cumulative ? cumulative_trapezoid(y, step, dim) : trapezoid(y, step, dim);
        },
        "y"_a, "x"_a = nb::none(), nb::kw_only(), "dx"_a = nb::none(), "dim"_a = -1, RG());
  }
  m.def(
      "trapz", [](T y, T x, int64_t dim) { return trapz(y, x, dim); }, "y"_a, "x"_a, nb::kw_only(),
      "dim"_a = -1, RG());
  m.def(
      "trapz", [](T y, double dx, int64_t dim) { return trapz(y, dx, dim); }, "y"_a, nb::kw_only(),
      "dx"_a = 1.0, "dim"_a = -1, RG());
  both(
      m, cls, "dist", [](T a, T b, S p) { return dist(a, b, p); }, "other"_a, "p"_a = 2, RG());
  both(
      m, cls, "renorm", [](T t, S p, int64_t dim, S maxnorm) { return renorm(t, p, dim, maxnorm); },
      "p"_a, "dim"_a, "maxnorm"_a, RG());
  m.def(
      "cdist",
      [](T x1, T x2, double p, const std::string& compute_mode) {
        int64_t mode = 0;
        if (compute_mode == "use_mm_for_euclid_dist") {
          mode = 1;
        } else if (compute_mode == "donot_use_mm_for_euclid_dist") {
          mode = 2;
        } else {
          EMBER_CHECK(compute_mode == "use_mm_for_euclid_dist_if_necessary", ValueError,
                      compute_mode, " is not a valid value for compute_mode");
        }
        nb::gil_scoped_release release;
        return cdist(x1, x2, p, mode);
      },
      "x1"_a, "x2"_a, "p"_a = 2.0, "compute_mode"_a = "use_mm_for_euclid_dist_if_necessary");
}

// unique's results as PyTorch returns them: the values alone, or a tuple with the inverse and
// counts that were asked for.
nb::object unique_result(const std::tuple<Tensor, Tensor, Tensor>& r, bool inverse, bool counts) {
  if (!inverse && !counts) return nb::cast(std::get<0>(r));
  std::vector<Tensor> out{std::get<0>(r)};
  if (inverse) out.push_back(std::get<1>(r));
  if (counts) out.push_back(std::get<2>(r));
  return tuple_of(std::move(out));
}

void def_search(nb::module_& m, nb::class_<Tensor>& cls) {
  m.def(
      "searchsorted",
      [](T sorted_sequence, nb::handle input, bool out_int32, bool right,
         std::optional<std::string> side, OptT sorter) {
        Tensor values = tensor_or_scalar(input, sorted_sequence);
        nb::gil_scoped_release release;
        std::optional<std::string_view> s;
        if (side) s = *side;
        return searchsorted(sorted_sequence, values, out_int32, right, s, sorter);
      },
      "sorted_sequence"_a, "input"_a, nb::kw_only(), "out_int32"_a = false, "right"_a = false,
      "side"_a = nb::none(), "sorter"_a = nb::none());
  m.def(
      "bucketize",
      [](nb::handle input, T boundaries, bool out_int32, bool right) {
        Tensor values = tensor_or_scalar(input, boundaries);
        nb::gil_scoped_release release;
        return bucketize(values, boundaries, out_int32, right);
      },
      "input"_a, "boundaries"_a, nb::kw_only(), "out_int32"_a = false, "right"_a = false);
  both(
      m, cls, "bincount",
      [](T t, OptT weights, int64_t minlength) { return t.bincount(weights, minlength); },
      "weights"_a = nb::none(), "minlength"_a = 0, RG());
  both(
      m, cls, "histc", [](T t, int64_t bins, S min, S max) { return t.histc(bins, min, max); },
      "bins"_a = 100, "min"_a = 0, "max"_a = 0, RG());
  both(
      m, cls, "unique",
      [](T t, bool sorted, bool return_inverse, bool return_counts, std::optional<int64_t> dim) {
        EMBER_CHECK(!dim, NotImplementedError, "unique(dim=", *dim,
                    "): unique slices are not supported yet (dim=None is)");
        std::tuple<Tensor, Tensor, Tensor> r;
        {
          nb::gil_scoped_release release;
          r = _unique2(t, sorted, return_inverse, return_counts);
        }
        return unique_result(r, return_inverse, return_counts);
      },
      "sorted"_a = true, "return_inverse"_a = false, "return_counts"_a = false,
      "dim"_a = nb::none());
  both(
      m, cls, "unique_consecutive",
      [](T t, bool return_inverse, bool return_counts, std::optional<int64_t> dim) {
        std::tuple<Tensor, Tensor, Tensor> r;
        {
          nb::gil_scoped_release release;
          r = t.unique_consecutive(return_inverse, return_counts, dim);
        }
        return unique_result(r, return_inverse, return_counts);
      },
      "return_inverse"_a = false, "return_counts"_a = false, "dim"_a = nb::none());
}

void def_products(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "mv", [](T a, T v) { return mv(a, v); }, "vec"_a, RG());
  both(
      m, cls, "dot", [](T a, T b) { return dot(a, b); }, "tensor"_a, RG());
  both(
      m, cls, "vdot", [](T a, T b) { return vdot(a, b); }, "other"_a, RG());
  both(
      m, cls, "addmv",
      [](T t, T mat, T vec, S beta, S alpha) { return addmv(t, mat, vec, beta, alpha); }, "mat"_a,
      "vec"_a, nb::kw_only(), "beta"_a = 1, "alpha"_a = 1, RG());
  for (const char* name : {"baddbmm", "addbmm"}) {
    const bool batched = name[0] == 'b';
    both(
        m, cls, name,
        [batched](T t, T b1, T b2, S beta, S alpha) {
          return batched ? baddbmm(t, b1, b2, beta, alpha) : addbmm(t, b1, b2, beta, alpha);
        },
        "batch1"_a, "batch2"_a, nb::kw_only(), "beta"_a = 1, "alpha"_a = 1, RG());
  }
  both(
      m, cls, "matrix_power", [](T t, int64_t n) { return matrix_power(t, n); }, "n"_a, RG());
}

}  // namespace

void init_ops_math(nb::module_& m, nb::class_<Tensor>& cls) {
  def_elementwise(m, cls);
  def_statistics(m, cls);
  def_search(m, cls);
  def_products(m, cls);
}

}  // namespace ember::python
