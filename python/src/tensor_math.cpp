// ember.Tensor's math that is not in the op table: Python's operators (with tensors and Python
// numbers, reflected and in place), reductions with dim/keepdim, views and matmul. Every kernel
// runs without the GIL.
#include <nanobind/stl/tuple.h>

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

PyObject* g_return_types = nullptr;  // ember.return_types.make, set by ember/__init__.py

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

void def_operators(nb::class_<Tensor>& cls) {
  cls.def(
         "__add__", [](T a, T b) { return a + b; }, RG())
      .def(
          "__add__", [](T a, S b) { return a + b; }, RG())
      .def(
          "__radd__", [](T a, S b) { return b + a; }, RG())
      .def(
          "__sub__", [](T a, T b) { return a - b; }, RG())
      .def(
          "__sub__", [](T a, S b) { return a - b; }, RG())
      .def(
          "__rsub__", [](T a, S b) { return b - a; }, RG())
      .def(
          "__mul__", [](T a, T b) { return a * b; }, RG())
      .def(
          "__mul__", [](T a, S b) { return a * b; }, RG())
      .def(
          "__rmul__", [](T a, S b) { return b * a; }, RG())
      .def(
          "__truediv__", [](T a, T b) { return a / b; }, RG())
      .def(
          "__truediv__", [](T a, S b) { return a / b; }, RG())
      .def(
          "__rtruediv__", [](T a, S b) { return b / a; }, RG())
      .def(
          "__floordiv__", [](T a, T b) { return floor_divide(a, b); }, RG())
      .def(
          "__floordiv__", [](T a, S b) { return floor_divide(a, b); }, RG())
      .def(
          "__mod__", [](T a, T b) { return a % b; }, RG())
      .def(
          "__mod__", [](T a, S b) { return a % b; }, RG())
      .def(
          "__rmod__", [](T a, S b) { return b % a; }, RG())
      .def(
          "__pow__", [](T a, T b) { return pow(a, b); }, RG())
      .def(
          "__pow__", [](T a, S b) { return pow(a, b); }, RG())
      .def(
          "__rpow__", [](T a, S b) { return pow(b, a); }, RG())
      .def(
          "__matmul__", [](T a, T b) { return matmul(a, b); }, RG())
      .def(
          "__and__", [](T a, T b) { return a & b; }, RG())
      .def(
          "__and__", [](T a, S b) { return a & b; }, RG())
      .def(
          "__or__", [](T a, T b) { return a | b; }, RG())
      .def(
          "__or__", [](T a, S b) { return a | b; }, RG())
      .def(
          "__xor__", [](T a, T b) { return a ^ b; }, RG())
      .def(
          "__xor__", [](T a, S b) { return a ^ b; }, RG())
      .def(
          "__invert__", [](T a) { return bitwise_not(a); }, RG())
      .def(
          "__neg__", [](T a) { return neg(a); }, RG())
      .def("__pos__", [](T a) { return a; })
      .def(
          "__abs__", [](T a) { return abs(a); }, RG())
      .def(
          "__eq__", [](T a, T b) { return eq(a, b); }, RG())
      .def(
          "__eq__", [](T a, S b) { return eq(a, b); }, RG())
      .def(
          "__ne__", [](T a, T b) { return ne(a, b); }, RG())
      .def(
          "__ne__", [](T a, S b) { return ne(a, b); }, RG())
      .def(
          "__lt__", [](T a, T b) { return lt(a, b); }, RG())
      .def(
          "__lt__", [](T a, S b) { return lt(a, b); }, RG())
      .def(
          "__le__", [](T a, T b) { return le(a, b); }, RG())
      .def(
          "__le__", [](T a, S b) { return le(a, b); }, RG())
      .def(
          "__gt__", [](T a, T b) { return gt(a, b); }, RG())
      .def(
          "__gt__", [](T a, S b) { return gt(a, b); }, RG())
      .def(
          "__ge__", [](T a, T b) { return ge(a, b); }, RG())
      .def(
          "__ge__", [](T a, S b) { return ge(a, b); }, RG())
      .def("__iadd__", [](nb::handle s, T b) { return inplace(s, [&](T a) { a.add_(b); }); })
      .def("__iadd__", [](nb::handle s, S b) { return inplace(s, [&](T a) { a.add_(b); }); })
      .def("__isub__", [](nb::handle s, T b) { return inplace(s, [&](T a) { a.sub_(b); }); })
      .def("__isub__", [](nb::handle s, S b) { return inplace(s, [&](T a) { a.sub_(b); }); })
      .def("__imul__", [](nb::handle s, T b) { return inplace(s, [&](T a) { a.mul_(b); }); })
      .def("__imul__", [](nb::handle s, S b) { return inplace(s, [&](T a) { a.mul_(b); }); })
      .def("__itruediv__", [](nb::handle s, T b) { return inplace(s, [&](T a) { a.div_(b); }); })
      .def("__itruediv__", [](nb::handle s, S b) { return inplace(s, [&](T a) { a.div_(b); }); });
}

void def_add_sub(nb::module_& m, nb::class_<Tensor>& cls) {
  m.def(
      "add", [](T a, T b, S alpha) { return add(a, b, alpha); }, "input"_a, "other"_a,
      nb::kw_only(), "alpha"_a = 1, RG());
  m.def(
      "add", [](T a, S b, S alpha) { return add(a, b, alpha); }, "input"_a, "other"_a,
      nb::kw_only(), "alpha"_a = 1, RG());
  m.def(
      "sub", [](T a, T b, S alpha) { return sub(a, b, alpha); }, "input"_a, "other"_a,
      nb::kw_only(), "alpha"_a = 1, RG());
  m.def(
      "sub", [](T a, S b, S alpha) { return sub(a, b, alpha); }, "input"_a, "other"_a,
      nb::kw_only(), "alpha"_a = 1, RG());
  cls.def(
         "add", [](T a, T b, S alpha) { return a.add(b, alpha); }, "other"_a, nb::kw_only(),
         "alpha"_a = 1, RG())
      .def(
          "add", [](T a, S b, S alpha) { return a.add(b, alpha); }, "other"_a, nb::kw_only(),
          "alpha"_a = 1, RG())
      .def(
          "sub", [](T a, T b, S alpha) { return a.sub(b, alpha); }, "other"_a, nb::kw_only(),
          "alpha"_a = 1, RG())
      .def(
          "sub", [](T a, S b, S alpha) { return a.sub(b, alpha); }, "other"_a, nb::kw_only(),
          "alpha"_a = 1, RG())
      .def(
          "add_",
          [](nb::handle s, T b, S alpha) { return inplace(s, [&](T a) { a.add_(b, alpha); }); },
          "other"_a, nb::kw_only(), "alpha"_a = 1)
      .def(
          "add_",
          [](nb::handle s, S b, S alpha) { return inplace(s, [&](T a) { a.add_(b, alpha); }); },
          "other"_a, nb::kw_only(), "alpha"_a = 1)
      .def(
          "sub_",
          [](nb::handle s, T b, S alpha) { return inplace(s, [&](T a) { a.sub_(b, alpha); }); },
          "other"_a, nb::kw_only(), "alpha"_a = 1)
      .def(
          "sub_",
          [](nb::handle s, S b, S alpha) { return inplace(s, [&](T a) { a.sub_(b, alpha); }); },
          "other"_a, nb::kw_only(), "alpha"_a = 1);
}

void def_reductions(nb::module_& m, nb::class_<Tensor>& cls) {
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
  // The same functions as ember.sum(x, ...) and x.sum(...).
  auto both = [&](const char* name, auto f, auto... extra) {
    m.def(name, f, "input"_a, extra...);
    cls.def(name, f, extra...);
  };
  both("sum", sum, "dim"_a = nb::none(), "keepdim"_a = false, nb::kw_only(),
       "dtype"_a = nb::none());
  both("mean", mean, "dim"_a = nb::none(), "keepdim"_a = false, nb::kw_only(),
       "dtype"_a = nb::none());
  both("max", max, "dim"_a = nb::none(), "keepdim"_a = false);
  both("min", min, "dim"_a = nb::none(), "keepdim"_a = false);
  both("argmax", argmax, "dim"_a = nb::none(), "keepdim"_a = false);
  both("argmin", argmin, "dim"_a = nb::none(), "keepdim"_a = false);
  m.def("_set_return_types", [](nb::handle f) { g_return_types = f.ptr(); });
  cls.def(
         "prod", [](T t) { return t.prod(); }, RG())
      .def(
          "all", [](T t) { return t.all(); }, RG())
      .def(
          "any", [](T t) { return t.any(); }, RG())
      .def(
          "norm", [](T t, S p) { return t.norm(p); }, "p"_a = 2, RG())
      .def(
          "softmax", [](T t, int64_t dim) { return t.softmax(dim); }, "dim"_a, RG())
      .def(
          "log_softmax", [](T t, int64_t dim) { return t.log_softmax(dim); }, "dim"_a, RG())
      .def("equal", &Tensor::equal, RG())
      .def("allclose", &Tensor::allclose, "other"_a, "rtol"_a = 1e-5, "atol"_a = 1e-8,
           "equal_nan"_a = false, RG());
}

void def_views(nb::module_& m, nb::class_<Tensor>& cls) {
  cls.def("view",
          [](T t, nb::args shape) {
            if (shape.size() == 1 && !PyLong_Check(shape[0].ptr()) &&
                !PySequence_Check(shape[0].ptr())) {
              auto dt = dtype_arg(shape[0]);  // view(dtype) is not supported
              throw NotImplementedError(std::string("view(dtype) is not supported (") +
                                        python_name(*dt) + ")");
            }
            auto s = sizes_from_args(shape, "view");
            nb::gil_scoped_release release;
            return t.view(s);
          })
      .def("reshape",
           [](T t, nb::args shape) {
             auto s = sizes_from_args(shape, "reshape");
             nb::gil_scoped_release release;
             return t.reshape(s);
           })
      .def("permute",
           [](T t, nb::args dims) {
             auto d = sizes_from_args(dims, "permute");
             nb::gil_scoped_release release;
             return t.permute(d);
           })
      .def("expand",
           [](T t, nb::args shape) {
             auto s = sizes_from_args(shape, "expand");
             nb::gil_scoped_release release;
             return t.expand(s);
           })
      .def("view_as", &Tensor::view_as, RG())
      .def("reshape_as", &Tensor::reshape_as, RG())
      .def("expand_as", &Tensor::expand_as, RG())
      .def("t", &Tensor::t, RG())
      .def_prop_ro("T",
                   [](T t) {
                     std::vector<int64_t> d(t.dim());
                     for (int64_t i = 0; i < t.dim(); ++i) d[i] = t.dim() - 1 - i;
                     return t.permute(d);
                   })
      .def("transpose", &Tensor::transpose, "dim0"_a, "dim1"_a, RG())
      .def("unsqueeze", &Tensor::unsqueeze, "dim"_a, RG())
      .def(
          "squeeze",
          [](T t, std::optional<int64_t> dim) { return dim ? t.squeeze(*dim) : t.squeeze(); },
          "dim"_a = nb::none(), RG())
      .def("flatten", &Tensor::flatten, "start_dim"_a = 0, "end_dim"_a = -1, RG())
      .def("narrow", &Tensor::narrow, "dim"_a, "start"_a, "length"_a, RG())
      .def("select", &Tensor::select, "dim"_a, "index"_a, RG())
      .def("matmul", &Tensor::matmul, RG())
      .def("mm", &Tensor::mm, RG())
      .def("bmm", &Tensor::bmm, RG())
      .def(
          "clamp",
          [](T t, std::optional<Scalar> min, std::optional<Scalar> max) {
            return t.clamp(min, max);
          },
          "min"_a = nb::none(), "max"_a = nb::none(), RG());
  m.def(
      "matmul", [](T a, T b) { return matmul(a, b); }, RG());
  m.def(
      "mm", [](T a, T b) { return a.mm(b); }, RG());
  m.def(
      "cat", [](std::vector<Tensor> ts, int64_t dim) { return cat(ts, dim); }, "tensors"_a,
      "dim"_a = 0, RG());
  m.def(
      "stack", [](std::vector<Tensor> ts, int64_t dim) { return stack(ts, dim); }, "tensors"_a,
      "dim"_a = 0, RG());
  m.def(
      "where", [](T c, T a, T b) { return where(c, a, b); }, RG());
  m.def(
      "where", [](T c, T a, S b) { return where(c, a, b); }, RG());
  m.def(
      "where", [](T c, S a, T b) { return where(c, a, b); }, RG());
  m.def(
      "flatten", [](T a, int64_t s, int64_t e) { return flatten(a, s, e); }, "input"_a,
      "start_dim"_a = 0, "end_dim"_a = -1, RG());
  m.def(
      "transpose", [](T a, int64_t d0, int64_t d1) { return transpose(a, d0, d1); }, RG());
  m.def(
      "clamp",
      [](T t, std::optional<Scalar> min, std::optional<Scalar> max) { return clamp(t, min, max); },
      "input"_a, "min"_a = nb::none(), "max"_a = nb::none(), RG());
  m.def(
      "equal", [](T a, T b) { return a.equal(b); }, "input"_a, "other"_a, RG());
  m.def(
      "allclose",
      [](T a, T b, double rtol, double atol, bool equal_nan) {
        return a.allclose(b, rtol, atol, equal_nan);
      },
      "input"_a, "other"_a, "rtol"_a = 1e-5, "atol"_a = 1e-8, "equal_nan"_a = false, RG());
}

}  // namespace

nb::object values_indices(const char* name, std::tuple<Tensor, Tensor> r) {
  nb::object v = nb::cast(std::get<0>(r)), i = nb::cast(std::get<1>(r));
  if (!g_return_types) return nb::make_tuple(v, i);
  return nb::borrow(g_return_types)(name, v, i);
}

void init_tensor_math(nb::module_& m, nb::class_<Tensor>& cls) {
  def_operators(cls);
  def_add_sub(m, cls);
  def_reductions(m, cls);
  def_views(m, cls);
}

}  // namespace ember::python
