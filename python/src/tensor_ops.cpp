// The ops of ember/ops.h with dims, indices or several tensors that are neither in the op table
// (op_table.cpp) nor Python operators (tensor_math.cpp): statistics, sorting and scans,
// gather/scatter, products, splits, and free-function spellings of Tensor methods. Each is bound
// as ember.f(input, ...) and, where PyTorch has it, Tensor.f(...), with PyTorch's keywords.
// Kernels run without the GIL; sequences of tensors come back as tuples, as PyTorch returns them.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <cmath>

#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using T = const Tensor&;
using S = const Scalar&;

nb::tuple tuple_of(std::vector<Tensor> ts) {
  nb::list out;
  for (Tensor& t : ts) out.append(nb::cast(std::move(t)));
  return nb::tuple(out);
}

// f() without the GIL; its result becomes Python objects after the GIL is back (a new object may
// start a collection): several tensors as a tuple, a (values, indices) pair as return_types.name.
template <typename F>
nb::tuple tensors_without_gil(F&& f) {
  std::vector<Tensor> r;
  {
    nb::gil_scoped_release release;
    r = f();
  }
  return tuple_of(std::move(r));
}
template <typename F>
nb::object pair_without_gil(const char* name, F&& f) {
  std::tuple<Tensor, Tensor> r;
  {
    nb::gil_scoped_release release;
    r = f();
  }
  return values_indices(name, std::move(r));
}

// Registers f as ember.name(input, ...) and Tensor.name(...).
template <typename F, typename... Extra>
void both(nb::module_& m, nb::class_<Tensor>& cls, const char* name, F f, const Extra&... extra) {
  m.def(name, f, "input"_a, extra...);
  cls.def(name, f, extra...);
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
  both(
      m, cls, "logsumexp",
      [](T t, nb::handle dim, bool keepdim) {
        const std::vector<int64_t> dims = int_list(dim, "dim");
        nb::gil_scoped_release release;
        return logsumexp(t, dims, keepdim);
      },
      "dim"_a, "keepdim"_a = false);
  m.def(
      "prod", [](T t) { return prod(t); }, "input"_a, RG());
  m.def(
      "all", [](T t) { return t.all(); }, "input"_a, RG());
  m.def(
      "any", [](T t) { return t.any(); }, "input"_a, RG());
  m.def(
      "norm", [](T t, S p) { return t.norm(p); }, "input"_a, "p"_a = 2, RG());
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

void def_sorting_and_scans(nb::module_& m, nb::class_<Tensor>& cls) {
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
  // flip(0), flip(0, 1), flip([0, 1]); ember.flip(x, [0]).
  auto flip_dims = [](T t, nb::args dims) {
    const std::vector<int64_t> d = sizes_from_args(dims, "flip");
    nb::gil_scoped_release release;
    return flip(t, d);
  };
  cls.def("flip", flip_dims);
  m.def("flip", [flip_dims](T t, nb::args dims) { return flip_dims(t, dims); });
}

void def_gather_scatter(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "gather", [](T t, int64_t dim, T index) { return gather(t, dim, index); }, "dim"_a,
      "index"_a, RG());
  both(
      m, cls, "scatter_add",
      [](T t, int64_t dim, T index, T src) { return scatter_add(t, dim, index, src); }, "dim"_a,
      "index"_a, "src"_a, RG());
  both(
      m, cls, "index_add",
      [](T t, int64_t dim, T index, T source, S alpha) {
        return index_add(t, dim, index, source, alpha);
      },
      "dim"_a, "index"_a, "source"_a, nb::kw_only(), "alpha"_a = 1, RG());
  both(
      m, cls, "index_copy",
      [](T t, int64_t dim, T index, T source) { return index_copy(t, dim, index, source); },
      "dim"_a, "index"_a, "source"_a, RG());
  both(
      m, cls, "masked_fill", [](T t, T mask, T value) { return masked_fill(t, mask, value); },
      "mask"_a, "value"_a, RG());
  both(
      m, cls, "masked_fill", [](T t, T mask, S value) { return masked_fill(t, mask, value); },
      "mask"_a, "value"_a, RG());
  both(
      m, cls, "nonzero",
      [](T t, bool as_tuple) -> nb::object {
        if (as_tuple) return tensors_without_gil([&] { return where(t); });
        Tensor r;
        {
          nb::gil_scoped_release release;
          r = nonzero(t);
        }
        return nb::cast(std::move(r));
      },
      nb::kw_only(), "as_tuple"_a = false);
  // The in-place forms return the tensor itself.
  cls.def(
         "scatter_add_",
         [](nb::handle s, int64_t dim, T index, T src) {
           return inplace(s, [&](T t) { t.scatter_add_(dim, index, src); });
         },
         "dim"_a, "index"_a, "src"_a)
      .def(
          "index_add_",
          [](nb::handle s, int64_t dim, T index, T source, S alpha) {
            return inplace(s, [&](T t) { t.index_add_(dim, index, source, alpha); });
          },
          "dim"_a, "index"_a, "source"_a, nb::kw_only(), "alpha"_a = 1)
      .def(
          "index_copy_",
          [](nb::handle s, int64_t dim, T index, T source) {
            return inplace(s, [&](T t) { t.index_copy_(dim, index, source); });
          },
          "dim"_a, "index"_a, "source"_a)
      .def(
          "masked_fill_",
          [](nb::handle s, T mask, T value) {
            return inplace(s, [&](T t) { t.masked_fill_(mask, value); });
          },
          "mask"_a, "value"_a)
      .def(
          "masked_fill_",
          [](nb::handle s, T mask, S value) {
            return inplace(s, [&](T t) { t.masked_fill_(mask, value); });
          },
          "mask"_a, "value"_a)
      .def(
          "where", [](T t, T condition, T other) { return where(condition, t, other); },
          "condition"_a, "other"_a, RG())
      .def(
          "where", [](T t, T condition, S other) { return where(condition, t, other); },
          "condition"_a, "other"_a, RG());
}

void def_products(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "addmm",
      [](T t, T mat1, T mat2, S beta, S alpha) { return addmm(t, mat1, mat2, beta, alpha); },
      "mat1"_a, "mat2"_a, nb::kw_only(), "beta"_a = 1, "alpha"_a = 1, RG());
  both(
      m, cls, "outer", [](T a, T b) { return outer(a, b); }, "vec2"_a, RG());
  m.def(
      "bmm", [](T a, T b) { return bmm(a, b); }, "input"_a, "mat2"_a, RG());
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

void def_shapes(nb::module_& m, nb::class_<Tensor>& cls) {
  // split(2) in pieces of 2; split([1, 3]) in pieces of those sizes.
  auto split = [](T t, nb::handle size_or_sections, int64_t dim) {
    std::vector<Tensor> r;
    if (PyLong_Check(size_or_sections.ptr())) {
      const int64_t size = nb::cast<int64_t>(size_or_sections);
      nb::gil_scoped_release release;
      r = t.split(size, dim);
    } else {
      const std::vector<int64_t> sections = int_list(size_or_sections, "split_size_or_sections");
      nb::gil_scoped_release release;
      r = t.split_with_sizes(sections, dim);
    }
    return tuple_of(std::move(r));
  };
  both(m, cls, "split", split, "split_size_or_sections"_a, "dim"_a = 0);
  both(
      m, cls, "split_with_sizes",
      [](T t, nb::handle sizes, int64_t dim) {
        const std::vector<int64_t> s = int_list(sizes, "split_sizes");
        return tensors_without_gil([&] { return t.split_with_sizes(s, dim); });
      },
      "split_sizes"_a, "dim"_a = 0);
  // movedim(0, 1) or movedim((0, 1), (2, 0)): ints or sequences of ints, both of one kind.
  both(
      m, cls, "movedim",
      [](T t, nb::handle source, nb::handle destination) {
        const bool int_source = PyLong_Check(source.ptr()),
                   int_dest = PyLong_Check(destination.ptr());
        EMBER_CHECK(int_source == int_dest, ArgumentTypeError,
                    "movedim() takes (int source, int destination) or (tuple of ints source, tuple "
                    "of ints destination), got (",
                    Py_TYPE(source.ptr())->tp_name, ", ", Py_TYPE(destination.ptr())->tp_name, ")");
        const std::vector<int64_t> s = int_list(source, "source"),
                                   d = int_list(destination, "destination");
        nb::gil_scoped_release release;
        return t.movedim(s, d);
      },
      "source"_a, "destination"_a);
  both(
      m, cls, "unflatten",
      [](T t, int64_t dim, nb::handle sizes) {
        const std::vector<int64_t> s = int_list(sizes, "sizes");
        nb::gil_scoped_release release;
        return t.unflatten(dim, s);
      },
      "dim"_a, "sizes"_a);
  cls.def("repeat", [](T t, nb::args repeats) {
    const std::vector<int64_t> r = sizes_from_args(repeats, "repeat");
    nb::gil_scoped_release release;
    return t.repeat(r);
  });
  both(
      m, cls, "diagonal",
      [](T t, int64_t offset, int64_t dim1, int64_t dim2) {
        return t.diagonal(offset, dim1, dim2);
      },
      "offset"_a = 0, "dim1"_a = 0, "dim2"_a = 1, RG());
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
  both(
      m, cls, "argwhere", [](T t) { return argwhere(t); }, RG());
  both(
      m, cls, "chunk",
      [](T t, int64_t chunks, int64_t dim) {
        return tensors_without_gil([&] { return t.chunk(chunks, dim); });
      },
      "chunks"_a, "dim"_a = 0);
  both(
      m, cls, "unbind",
      [](T t, int64_t dim) { return tensors_without_gil([&] { return t.unbind(dim); }); },
      "dim"_a = 0);
  m.def(
      "narrow",
      [](T t, int64_t dim, int64_t start, int64_t length) { return narrow(t, dim, start, length); },
      "input"_a, "dim"_a, "start"_a, "length"_a, RG());
  m.def(
      "reshape",
      [](T t, nb::handle shape) {
        const std::vector<int64_t> s = int_list(shape, "shape");
        nb::gil_scoped_release release;
        return reshape(t, s);
      },
      "input"_a, "shape"_a);
  m.def(
      "permute",
      [](T t, nb::handle dims) {
        const std::vector<int64_t> d = int_list(dims, "dims");
        nb::gil_scoped_release release;
        return permute(t, d);
      },
      "input"_a, "dims"_a);
  m.def(
      "squeeze",
      [](T t, std::optional<int64_t> dim) { return dim ? squeeze(t, *dim) : squeeze(t); },
      "input"_a, "dim"_a = nb::none(), RG());
  m.def(
      "unsqueeze", [](T t, int64_t dim) { return unsqueeze(t, dim); }, "input"_a, "dim"_a, RG());
  m.def(
      "t", [](T t) { return t.t(); }, "input"_a, RG());
  m.def(
      "clone", [](T t) { return t.clone(); }, "input"_a, RG());
  m.def(
      "is_floating_point", [](T t) { return t.is_floating_point(); }, "input"_a);
  // clip is PyTorch's alias of clamp; clamp_ writes in place.
  auto clamp_args = [] { return std::make_tuple("min"_a = nb::none(), "max"_a = nb::none()); };
  auto clamp_ = [](nb::handle s, std::optional<Scalar> lo, std::optional<Scalar> hi) {
    return inplace(s, [&](T t) { t.clamp_(lo, hi); });
  };
  std::apply(
      [&](auto... a) {
        both(
            m, cls, "clip",
            [](T t, std::optional<Scalar> lo, std::optional<Scalar> hi) {
              return clamp(t, lo, hi);
            },
            a..., RG());
        cls.def("clamp_", clamp_, a...);
        cls.def("clip_", clamp_, a...);
      },
      clamp_args());
}

}  // namespace

void init_tensor_ops(nb::module_& m, nb::class_<Tensor>& cls) {
  def_statistics(m, cls);
  def_sorting_and_scans(m, cls);
  def_gather_scatter(m, cls);
  def_products(m, cls);
  def_shapes(m, cls);
}

}  // namespace ember::python
