// The reductions: sum, mean, max/min (with or without a dim), argmax/argmin, prod, all, any, norm,
// the statistics (var, std, their _mean pairs, amax/amin, logsumexp), softmax and log_softmax
// along a dim, and the whole-tensor comparisons equal and allclose. Each is ember.f(input, ...)
// and, where PyTorch has it, Tensor.f(...), with PyTorch's keywords; kernels run without the GIL.
#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using T = const Tensor&;
using S = const Scalar&;

// The dims of a reduction: an int or a sequence; None: all dims.
std::optional<std::vector<int64_t>> dims_arg(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return int_list(h, "dim");
}

template <typename Reduce>
Tensor reduce(T t, nb::handle dim, bool keepdim, nb::handle dtype, Reduce&& r) {
  auto dims = dims_arg(dim);
  auto dt = dtype_arg(dtype);
  nb::gil_scoped_release release;
  return r(t, dims, keepdim, dt);
}

nb::object max_min(T t, nb::handle dim, bool keepdim, bool is_max) {
  if (dim.is_none()) {
    Tensor r;
    {
      nb::gil_scoped_release release;
      r = is_max ? t.max() : t.min();
    }
    return nb::cast(std::move(r));  // with the GIL: a new object may start a collection
  }
  int64_t d = nb::cast<int64_t>(dim);
  std::tuple<Tensor, Tensor> r;
  {
    nb::gil_scoped_release release;
    r = is_max ? t.max(d, keepdim) : t.min(d, keepdim);
  }
  return values_indices(is_max ? "max" : "min", std::move(r));
}

// var/std's arguments as PyTorch 1.13 parses them: x.var(), x.var(0), x.var(False) (the first
// argument a bool is `unbiased`), x.var(dim=(0, 1), unbiased=False, keepdim=True),
// x.var(0, correction=0).
struct Spread {
  std::optional<std::vector<int64_t>> dims;
  std::optional<int64_t> correction;
  bool keepdim;
};

Spread spread_args(nb::handle dim, std::optional<bool> unbiased, bool keepdim,
                   std::optional<int64_t> correction) {
  Spread s{std::nullopt, std::nullopt, keepdim};
  if (PyBool_Check(dim.ptr())) {
    EMBER_CHECK(!unbiased, ArgumentTypeError, "var()/std(): unbiased given twice");
    unbiased = dim.ptr() == Py_True;
  } else if (!dim.is_none()) {
    s.dims = int_list(dim, "dim");
  }
  EMBER_CHECK(!(unbiased && correction), ArgumentTypeError,
              "var()/std(): cannot specify both unbiased and correction");
  if (unbiased) s.correction = *unbiased ? 1 : 0;
  if (correction) s.correction = *correction;
  return s;
}

template <bool IsStd>
Tensor spread(T t, nb::handle dim, std::optional<bool> unbiased, bool keepdim,
              std::optional<int64_t> correction) {
  const Spread s = spread_args(dim, unbiased, keepdim, correction);
  nb::gil_scoped_release release;
  std::optional<IntArrayRef> dims;
  if (s.dims) dims = IntArrayRef(*s.dims);
  return IsStd ? ember::std(t, dims, s.correction, s.keepdim)
               : ember::var(t, dims, s.correction, s.keepdim);
}

template <bool IsStd>
nb::tuple spread_mean(T t, nb::handle dim, std::optional<bool> unbiased, bool keepdim,
                      std::optional<int64_t> correction) {
  const Spread s = spread_args(dim, unbiased, keepdim, correction);
  std::tuple<Tensor, Tensor> r;
  {
    nb::gil_scoped_release release;
    std::vector<int64_t> all(t.dim());
    for (int64_t i = 0; i < t.dim(); ++i) all[i] = i;
    const IntArrayRef dims = s.dims ? IntArrayRef(*s.dims) : IntArrayRef(all);
    const int64_t c = s.correction.value_or(1);
    Tensor m = ember::mean(t, dims, s.keepdim);
    const std::optional<IntArrayRef> d(dims);
    const std::optional<int64_t> corr(c);  // not the bool `unbiased` overload
    r = {IsStd ? ember::std(t, d, corr, s.keepdim) : ember::var(t, d, corr, s.keepdim), m};
  }
  return nb::make_tuple(std::get<0>(r), std::get<1>(r));
}

// sum, mean, max, min, argmax and argmin with an optional dim (an int or, for sum and mean, a
// sequence): one callable for the function and the method.
void def_dim_reductions(nb::module_& m, nb::class_<Tensor>& cls) {
  auto sum = [](T t, nb::handle dim, bool keepdim, nb::handle dtype) {
    return reduce(t, dim, keepdim, dtype, [](T x, auto& dims, bool k, auto dt) {
      return dims ? x.sum(*dims, k, dt) : x.sum(dt);
    });
  };
  auto mean = [](T t, nb::handle dim, bool keepdim, nb::handle dtype) {
    return reduce(t, dim, keepdim, dtype, [](T x, auto& dims, bool k, auto dt) {
      return dims ? x.mean(*dims, k, dt) : x.mean(dt);
    });
  };
  auto max = [](T t, nb::handle dim, bool keepdim) { return max_min(t, dim, keepdim, true); };
  auto min = [](T t, nb::handle dim, bool keepdim) { return max_min(t, dim, keepdim, false); };
  auto argmax = [](T t, std::optional<int64_t> dim, bool keepdim) {
    nb::gil_scoped_release release;
    return t.argmax(dim, keepdim);
  };
  auto argmin = [](T t, std::optional<int64_t> dim, bool keepdim) {
    nb::gil_scoped_release release;
    return t.argmin(dim, keepdim);
  };
  both(m, cls, "sum", sum, "dim"_a = nb::none(), "keepdim"_a = false, nb::kw_only(),
       "dtype"_a = nb::none());
  both(m, cls, "mean", mean, "dim"_a = nb::none(), "keepdim"_a = false, nb::kw_only(),
       "dtype"_a = nb::none());
  both(m, cls, "max", max, "dim"_a = nb::none(), "keepdim"_a = false);
  both(m, cls, "min", min, "dim"_a = nb::none(), "keepdim"_a = false);
  both(m, cls, "argmax", argmax, "dim"_a = nb::none(), "keepdim"_a = false);
  both(m, cls, "argmin", argmin, "dim"_a = nb::none(), "keepdim"_a = false);
}

// prod, all and any of the whole tensor or along one dim; norm over all dims or some.
void def_whole_tensor(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "prod",
      [](T t, std::optional<int64_t> dim, bool keepdim, nb::handle dtype) {
        auto dt = dtype_arg(dtype);
        nb::gil_scoped_release release;
        if (dim) return t.prod(*dim, keepdim, dt);
        return dt ? t.to(*dt).prod() : t.prod();
      },
      "dim"_a = nb::none(), "keepdim"_a = false, nb::kw_only(), "dtype"_a = nb::none());
  both(
      m, cls, "all",
      [](T t, std::optional<int64_t> dim, bool keepdim) {
        return dim ? t.all(*dim, keepdim) : t.all();
      },
      "dim"_a = nb::none(), "keepdim"_a = false, RG());
  both(
      m, cls, "any",
      [](T t, std::optional<int64_t> dim, bool keepdim) {
        return dim ? t.any(*dim, keepdim) : t.any();
      },
      "dim"_a = nb::none(), "keepdim"_a = false, RG());
  // p: a number, inf, or 'fro' (the 2-norm over the dims, as PyTorch 1.13 computes it).
  both(
      m, cls, "norm",
      [](T t, nb::handle p, nb::handle dim, bool keepdim, nb::handle dtype) {
        std::optional<Scalar> pv;
        if (nb::isinstance<nb::str>(p)) {
          const std::string name = nb::cast<std::string>(p);
          EMBER_CHECK(name == "fro", NotImplementedError, "norm(): p='", name,
                      "' is not supported by Ember (only 'fro' and numbers)");
        } else if (!p.is_none()) {
          pv = nb::cast<double>(p);
        }
        auto dims = dims_arg(dim);
        auto dt = dtype_arg(dtype);
        nb::gil_scoped_release release;
        const Tensor x = dt ? t.to(*dt) : t;
        return x.norm(pv, dims ? IntArrayRef(*dims) : IntArrayRef(), keepdim);
      },
      "p"_a = "fro", "dim"_a = nb::none(), "keepdim"_a = false, "dtype"_a = nb::none());
}

// var and std with PyTorch 1.13's arguments (var_mean and std_mean are functions only), amax,
// amin and logsumexp over a dim or several.
void def_statistics(nb::module_& m, nb::class_<Tensor>& cls) {
  const auto args = [] {
    return std::make_tuple("dim"_a = nb::none(), "unbiased"_a = nb::none(), "keepdim"_a = false,
                           nb::kw_only(), "correction"_a = nb::none());
  };
  std::apply([&](auto... a) { both(m, cls, "var", &spread<false>, a...); }, args());
  std::apply([&](auto... a) { both(m, cls, "std", &spread<true>, a...); }, args());
  std::apply([&](auto... a) { m.def("var_mean", &spread_mean<false>, "input"_a, a...); }, args());
  std::apply([&](auto... a) { m.def("std_mean", &spread_mean<true>, "input"_a, a...); }, args());
  auto extreme = [](bool is_max) {
    return [is_max](T t, nb::handle dim, bool keepdim) {
      const std::vector<int64_t> dims =
          dim.is_none() ? std::vector<int64_t>{} : int_list(dim, "dim");
      nb::gil_scoped_release release;
      return is_max ? amax(t, dims, keepdim) : amin(t, dims, keepdim);
    };
  };
  both(m, cls, "amax", extreme(true), "dim"_a = nb::tuple(), "keepdim"_a = false);
  both(m, cls, "amin", extreme(false), "dim"_a = nb::tuple(), "keepdim"_a = false);
  // dim None: every element; an int or a tuple of ints.
  both(
      m, cls, "count_nonzero",
      [](T t, nb::handle dim) {
        if (dim.is_none()) {
          nb::gil_scoped_release release;
          return count_nonzero(t);
        }
        const std::vector<int64_t> dims = int_list(dim, "dim");
        nb::gil_scoped_release release;
        return count_nonzero(t, IntArrayRef(dims));
      },
      "dim"_a = nb::none());
  both(
      m, cls, "logsumexp",
      [](T t, nb::handle dim, bool keepdim) {
        const std::vector<int64_t> dims = int_list(dim, "dim");
        nb::gil_scoped_release release;
        return logsumexp(t, dims, keepdim);
      },
      "dim"_a, "keepdim"_a = false);
}

// The method takes the dim only; the function also a dtype.
void def_softmax(nb::module_& m, nb::class_<Tensor>& cls) {
  cls.def(
         "softmax", [](T t, int64_t dim) { return t.softmax(dim); }, "dim"_a, RG())
      .def(
          "log_softmax", [](T t, int64_t dim) { return t.log_softmax(dim); }, "dim"_a, RG());
  for (const char* name : {"softmax", "log_softmax"}) {
    const bool log_space = name[0] == 'l';
    m.def(
        name,
        [log_space](T t, int64_t dim, nb::handle dtype) {
          const auto dt = dtype_arg(dtype);
          nb::gil_scoped_release release;
          return log_space ? log_softmax(t, dim, dt) : softmax(t, dim, dt);
        },
        "input"_a, "dim"_a, "dtype"_a = nb::none());
  }
}

// equal and allclose: one bool for two whole tensors. Tensor.equal's argument has no name.
void def_whole_tensor_comparisons(nb::module_& m, nb::class_<Tensor>& cls) {
  cls.def("equal", &Tensor::equal, RG());
  m.def(
      "equal", [](T a, T b) { return a.equal(b); }, "input"_a, "other"_a, RG());
  both(
      m, cls, "allclose",
      [](T a, T b, double rtol, double atol, bool equal_nan) {
        return a.allclose(b, rtol, atol, equal_nan);
      },
      "other"_a, "rtol"_a = 1e-5, "atol"_a = 1e-8, "equal_nan"_a = false, RG());
}

}  // namespace

void init_ops_reduction(nb::module_& m, nb::class_<Tensor>& cls) {
  def_dim_reductions(m, cls);
  def_whole_tensor(m, cls);
  def_statistics(m, cls);
  def_softmax(m, cls);
  def_whole_tensor_comparisons(m, cls);
}

}  // namespace ember::python
