// The shape ops: views (view, reshape, permute, expand and their _as forms, t and .T, transpose,
// unsqueeze, squeeze, flatten, unflatten, narrow, select, movedim, diagonal), joins (cat, stack),
// splits (split, split_with_sizes, chunk, unbind), repeat and flip. Each is ember.f(input, ...)
// and, where PyTorch has it, Tensor.f(...), with PyTorch's keywords and its sizes given as
// f(2, 3) or f((2, 3)) where PyTorch takes both. Kernels run without the GIL; several tensors
// come back as a tuple, as PyTorch returns them.
#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using T = const Tensor&;

void def_views(nb::module_& m, nb::class_<Tensor>& cls) {
  cls.def("view", [](T t, nb::args shape) {
    if (shape.size() == 1 && !PyLong_Check(shape[0].ptr()) && !PySequence_Check(shape[0].ptr())) {
      auto dt = dtype_arg(shape[0]);  // view(dtype) is not supported
      throw NotImplementedError(std::string("view(dtype) is not supported (") + python_name(*dt) +
                                ")");
    }
    auto s = sizes_from_args(shape, "view");
    nb::gil_scoped_release release;
    return t.view(s);
  });
  cls.def("reshape", [](T t, nb::args shape) {
    auto s = sizes_from_args(shape, "reshape");
    nb::gil_scoped_release release;
    return t.reshape(s);
  });
  m.def(
      "reshape",
      [](T t, nb::handle shape) {
        const std::vector<int64_t> s = int_list(shape, "shape");
        nb::gil_scoped_release release;
        return reshape(t, s);
      },
      "input"_a, "shape"_a);
  cls.def("permute", [](T t, nb::args dims) {
    auto d = sizes_from_args(dims, "permute");
    nb::gil_scoped_release release;
    return t.permute(d);
  });
  m.def(
      "permute",
      [](T t, nb::handle dims) {
        const std::vector<int64_t> d = int_list(dims, "dims");
        nb::gil_scoped_release release;
        return permute(t, d);
      },
      "input"_a, "dims"_a);
  cls.def("expand", [](T t, nb::args shape) {
    auto s = sizes_from_args(shape, "expand");
    nb::gil_scoped_release release;
    return t.expand(s);
  });
  cls.def("view_as", &Tensor::view_as, RG())
      .def("reshape_as", &Tensor::reshape_as, RG())
      .def("expand_as", &Tensor::expand_as, RG());
  both(
      m, cls, "t", [](T t) { return t.t(); }, RG());
  cls.def_prop_ro("T", [](T t) {
    std::vector<int64_t> d(t.dim());
    for (int64_t i = 0; i < t.dim(); ++i) d[i] = t.dim() - 1 - i;
    return t.permute(d);
  });
  cls.def("transpose", &Tensor::transpose, "dim0"_a, "dim1"_a, RG());
  m.def(
      "transpose", [](T a, int64_t d0, int64_t d1) { return transpose(a, d0, d1); }, RG());
  both(
      m, cls, "unsqueeze", [](T t, int64_t dim) { return t.unsqueeze(dim); }, "dim"_a, RG());
  both(
      m, cls, "squeeze",
      [](T t, std::optional<int64_t> dim) { return dim ? t.squeeze(*dim) : t.squeeze(); },
      "dim"_a = nb::none(), RG());
  both(
      m, cls, "flatten", [](T t, int64_t s, int64_t e) { return t.flatten(s, e); },
      "start_dim"_a = 0, "end_dim"_a = -1, RG());
  both(
      m, cls, "unflatten",
      [](T t, int64_t dim, nb::handle sizes) {
        const std::vector<int64_t> s = int_list(sizes, "sizes");
        nb::gil_scoped_release release;
        return t.unflatten(dim, s);
      },
      "dim"_a, "sizes"_a);
  both(
      m, cls, "narrow",
      [](T t, int64_t dim, int64_t start, int64_t length) { return t.narrow(dim, start, length); },
      "dim"_a, "start"_a, "length"_a, RG());
  cls.def("select", &Tensor::select, "dim"_a, "index"_a, RG());
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
      m, cls, "diagonal",
      [](T t, int64_t offset, int64_t dim1, int64_t dim2) {
        return t.diagonal(offset, dim1, dim2);
      },
      "offset"_a = 0, "dim1"_a = 0, "dim2"_a = 1, RG());
}

void def_joins_and_splits(nb::module_& m, nb::class_<Tensor>& cls) {
  m.def(
      "cat", [](std::vector<Tensor> ts, int64_t dim) { return cat(ts, dim); }, "tensors"_a,
      "dim"_a = 0, RG());
  m.def(
      "stack", [](std::vector<Tensor> ts, int64_t dim) { return stack(ts, dim); }, "tensors"_a,
      "dim"_a = 0, RG());
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
}

void def_repeat_and_flip(nb::module_& m, nb::class_<Tensor>& cls) {
  cls.def("repeat", [](T t, nb::args repeats) {
    const std::vector<int64_t> r = sizes_from_args(repeats, "repeat");
    nb::gil_scoped_release release;
    return t.repeat(r);
  });
  // flip(0), flip(0, 1), flip([0, 1]); ember.flip(x, [0]).
  auto flip_dims = [](T t, nb::args dims) {
    const std::vector<int64_t> d = sizes_from_args(dims, "flip");
    nb::gil_scoped_release release;
    return flip(t, d);
  };
  cls.def("flip", flip_dims);
  m.def("flip", [flip_dims](T t, nb::args dims) { return flip_dims(t, dims); });
}

}  // namespace

void init_ops_shape(nb::module_& m, nb::class_<Tensor>& cls) {
  def_views(m, cls);
  def_joins_and_splits(m, cls);
  def_repeat_and_flip(m, cls);
}

}  // namespace ember::python
