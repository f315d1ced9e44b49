// The shape ops: views (view, reshape, permute, expand and their _as forms, t and .T, transpose,
// unsqueeze, squeeze, flatten, unflatten, narrow, select, movedim, diagonal), joins (cat, stack),
// splits (split, split_with_sizes, chunk, unbind), repeat and flip; roll, rot90, fliplr, flipud,
// swapaxes, swapdims, broadcast_to, broadcast_tensors, meshgrid, tile, repeat_interleave,
// tensor_split, hsplit/vsplit/dsplit, hstack/vstack/dstack/column_stack, diag_embed, block_diag,
// cartesian_prod and combinations. Each is ember.f(input, ...)
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
  // The last two dims swapped (every dtype is real, so mH is the same view).
  for (const char* name : {"mT", "mH"}) {
    cls.def_prop_ro(name, [name](T t) {
      EMBER_CHECK(t.dim() >= 2, ValueError, "tensor.", name,
                  " is only supported on matrices or batches of matrices. Got ", t.dim(),
                  "-D tensor.");
      return t.transpose(-2, -1);
    });
  }
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

// f(a, b, c) or f([a, b, c]): the tensors of a variadic op (PyTorch takes both).
std::vector<Tensor> tensors_of(const nb::args& args) {
  if (args.size() == 1 && !nb::isinstance<Tensor>(args[0])) {
    return nb::cast<std::vector<Tensor>>(args[0]);
  }
  return nb::cast<std::vector<Tensor>>(args);
}

void def_rearranging(nb::module_& m, nb::class_<Tensor>& cls) {
  // roll(1), roll((1, 2), (0, 1)); dims None: along the flattened tensor.
  both(
      m, cls, "roll",
      [](T t, nb::handle shifts, nb::handle dims) {
        const std::vector<int64_t> s = int_list(shifts, "shifts");
        const std::vector<int64_t> d =
            dims.is_none() ? std::vector<int64_t>{} : int_list(dims, "dims");
        nb::gil_scoped_release release;
        return roll(t, s, d);
      },
      "shifts"_a, "dims"_a = nb::none());
  both(
      m, cls, "rot90",
      [](T t, int64_t k, nb::handle dims) {
        const std::vector<int64_t> d = int_list(dims, "dims");
        nb::gil_scoped_release release;
        return rot90(t, k, d);
      },
      "k"_a = 1, "dims"_a = nb::make_tuple(0, 1));
  both(
      m, cls, "fliplr", [](T t) { return fliplr(t); }, RG());
  both(
      m, cls, "flipud", [](T t) { return flipud(t); }, RG());
  both(
      m, cls, "swapaxes", [](T t, int64_t a0, int64_t a1) { return swapaxes(t, a0, a1); },
      "axis0"_a, "axis1"_a, RG());
  both(
      m, cls, "swapdims", [](T t, int64_t d0, int64_t d1) { return swapdims(t, d0, d1); }, "dim0"_a,
      "dim1"_a, RG());
}

void def_broadcasting_and_repeating(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "broadcast_to",
      [](T t, nb::handle size) {
        const std::vector<int64_t> s = int_list(size, "size");
        nb::gil_scoped_release release;
        return broadcast_to(t, s);
      },
      "size"_a);
  m.def("broadcast_tensors", [](nb::args tensors) {
    const std::vector<Tensor> ts = tensors_of(tensors);
    return tensors_without_gil([&] { return broadcast_tensors(ts); });
  });
  // indexing None is "ij" (PyTorch 1.13 warns that this default will change).
  m.def(
      "meshgrid",
      [](nb::args tensors, std::optional<std::string> indexing) {
        const std::vector<Tensor> ts = tensors_of(tensors);
        const std::string how = indexing.value_or("ij");
        return tensors_without_gil([&] { return meshgrid(ts, how); });
      },
      "tensors"_a, "indexing"_a = nb::none());
  // tile((2, 3)), x.tile(2, 3)
  m.def(
      "tile",
      [](T t, nb::handle dims) {
        const std::vector<int64_t> d = int_list(dims, "dims");
        nb::gil_scoped_release release;
        return tile(t, d);
      },
      "input"_a, "dims"_a);
  cls.def("tile", [](T t, nb::args dims) {
    const std::vector<int64_t> d = sizes_from_args(dims, "tile");
    nb::gil_scoped_release release;
    return t.tile(d);
  });
  // repeats: an int or a tensor; ember.repeat_interleave(repeats) repeats the indices.
  auto repeat_interleave_fn = [](T t, nb::handle repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) {
    if (nb::isinstance<Tensor>(repeats)) {
      const Tensor& r = nb::cast<const Tensor&>(repeats);
      nb::gil_scoped_release release;
      return repeat_interleave(t, r, dim, output_size);
    }
    const int64_t r = nb::cast<int64_t>(repeats);
    nb::gil_scoped_release release;
    return repeat_interleave(t, r, dim, output_size);
  };
  cls.def("repeat_interleave", repeat_interleave_fn, "repeats"_a, "dim"_a = nb::none(),
          nb::kw_only(), "output_size"_a = nb::none());
  m.def(
      "repeat_interleave",
      [repeat_interleave_fn](T t, nb::handle repeats, std::optional<int64_t> dim,
                             std::optional<int64_t> output_size) {
        if (repeats.is_none()) {
          nb::gil_scoped_release release;
          return repeat_interleave(t, output_size);
        }
        return repeat_interleave_fn(t, repeats, dim, output_size);
      },
      "input"_a, "repeats"_a = nb::none(), "dim"_a = nb::none(), nb::kw_only(),
      "output_size"_a = nb::none());
}

void def_splitting_and_stacking(nb::module_& m, nb::class_<Tensor>& cls) {
  // indices_or_sections: an int (sections), a sequence of ints (indices) or an int64 tensor.
  both(
      m, cls, "tensor_split",
      [](T t, nb::handle indices_or_sections, int64_t dim) {
        if (nb::isinstance<Tensor>(indices_or_sections)) {
          const Tensor& s = nb::cast<const Tensor&>(indices_or_sections);
          return tensors_without_gil([&] { return tensor_split(t, s, dim); });
        }
        if (PyLong_Check(indices_or_sections.ptr())) {
          const int64_t n = nb::cast<int64_t>(indices_or_sections);
          return tensors_without_gil([&] { return tensor_split(t, n, dim); });
        }
        const std::vector<int64_t> idx = int_list(indices_or_sections, "indices");
        return tensors_without_gil([&] { return tensor_split(t, IntArrayRef(idx), dim); });
      },
      "indices_or_sections"_a, "dim"_a = 0);
  using Split = std::vector<Tensor> (*)(const Tensor&, int64_t);
  using SplitAt = std::vector<Tensor> (*)(const Tensor&, IntArrayRef);
  auto fixed_split = [&](const char* name, Split by_sections, SplitAt at_indices) {
    both(
        m, cls, name,
        [by_sections, at_indices, name](T t, nb::handle indices_or_sections) {
          if (PyLong_Check(indices_or_sections.ptr())) {
            const int64_t n = nb::cast<int64_t>(indices_or_sections);
            return tensors_without_gil([&] { return by_sections(t, n); });
          }
          const std::vector<int64_t> idx = int_list(indices_or_sections, name);
          return tensors_without_gil([&] { return at_indices(t, idx); });
        },
        "indices_or_sections"_a);
  };
  fixed_split("hsplit", &hsplit, &hsplit);
  fixed_split("vsplit", &vsplit, &vsplit);
  fixed_split("dsplit", &dsplit, &dsplit);
  using Join = Tensor (*)(TensorList);
  for (auto [name, join] : {std::pair<const char*, Join>{"hstack", &hstack},
                            {"vstack", &vstack},
                            {"dstack", &dstack},
                            {"column_stack", &column_stack}}) {
    m.def(
        name, [join](std::vector<Tensor> ts) { return join(ts); }, "tensors"_a, RG());
  }
}

void def_matrices_and_combinations(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "diag_embed",
      [](T t, int64_t offset, int64_t dim1, int64_t dim2) {
        return diag_embed(t, offset, dim1, dim2);
      },
      "offset"_a = 0, "dim1"_a = -2, "dim2"_a = -1, RG());
  m.def("block_diag", [](nb::args tensors) {
    const std::vector<Tensor> ts = tensors_of(tensors);
    nb::gil_scoped_release release;
    return block_diag(ts);
  });
  m.def("cartesian_prod", [](nb::args tensors) {
    const std::vector<Tensor> ts = tensors_of(tensors);
    nb::gil_scoped_release release;
    return cartesian_prod(ts);
  });
  m.def(
      "combinations",
      [](T t, int64_t r, bool with_replacement) { return combinations(t, r, with_replacement); },
      "input"_a, "r"_a = 2, "with_replacement"_a = false, RG());
}

}  // namespace

void init_ops_shape(nb::module_& m, nb::class_<Tensor>& cls) {
  def_views(m, cls);
  def_joins_and_splits(m, cls);
  def_repeat_and_flip(m, cls);
  def_rearranging(m, cls);
  def_broadcasting_and_repeating(m, cls);
  def_splitting_and_stacking(m, cls);
  def_matrices_and_combinations(m, cls);
}

}  // namespace ember::python
