// Indexing: x[...] and x[...] = v (Python's subscripts: ints, bools, slices, None, Ellipsis,
// tensors and lists of ints, turned into ember::indexing::TensorIndex as libtorch spells them),
// and the indexing ops gather, scatter, scatter_add, scatter_reduce, index_add, index_copy,
// index_fill, index_put, take, take_along_dim, masked_select, masked_fill, nonzero and
// argwhere as ember.f(input, ...) and Tensor.f(...), with Tensor.f_(...) where PyTorch has one.
// Kernels run without the GIL.
#include <string>

#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using T = const Tensor&;
using S = const Scalar&;
using indexing::TensorIndex;

std::optional<int64_t> slice_part(PyObject* v) {
  if (v == Py_None) return std::nullopt;
  return nb::cast<int64_t>(nb::handle(v));
}

TensorIndex one_index(nb::handle h) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return TensorIndex(o == Py_True);
  if (PyLong_Check(o)) return TensorIndex(nb::cast<int64_t>(h));
  if (o == Py_None) return TensorIndex(indexing::None);
  if (o == Py_Ellipsis) return TensorIndex(indexing::Ellipsis);
  if (PySlice_Check(o)) {
    auto* s = reinterpret_cast<PySliceObject*>(o);
    return TensorIndex(
        indexing::Slice(slice_part(s->start), slice_part(s->stop), slice_part(s->step)));
  }
  if (nb::isinstance<Tensor>(h)) return TensorIndex(nb::cast<Tensor>(h));
  if (PyList_Check(o)) {
    std::vector<int64_t> v = int_list(h, "index");
    return TensorIndex(ember::tensor(v, kLong));
  }
  if (PyIndex_Check(o)) return TensorIndex(nb::cast<int64_t>(nb::steal(PyNumber_Index(o))));
  throw IndexError(std::string("only integers, slices (`:`), ellipsis (`...`), None and long or "
                               "byte Variables are valid indices (got ") +
                   nb::type_name(h.type()).c_str() + ")");
}

std::vector<TensorIndex> indices_of(nb::handle key) {
  std::vector<TensorIndex> out;
  if (PyTuple_Check(key.ptr())) {
    for (nb::handle h : nb::borrow<nb::tuple>(key)) out.push_back(one_index(h));
  } else {
    out.push_back(one_index(key));
  }
  return out;
}

void def_subscripts(nb::class_<Tensor>& cls) {
  cls.def(
         "__getitem__",
         [](const Tensor& t, nb::handle key) {
           // x[i]: the common case, without building an index list.
           if (PyLong_Check(key.ptr()) && !PyBool_Check(key.ptr())) {
             int64_t i = nb::cast<int64_t>(key);
             EMBER_CHECK(t.dim() > 0, IndexError,
                         "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
             nb::gil_scoped_release release;
             return t.select(0, i);
           }
           auto idx = indices_of(key);
           nb::gil_scoped_release release;
           return t.index(idx);
         },
         nb::arg("key").none())
      .def(
          "__setitem__",
          [](const Tensor& t, nb::handle key, const Tensor& v) {
            auto idx = indices_of(key);
            nb::gil_scoped_release release;
            t.index_put_(idx, v);
          },
          nb::arg("key").none(), "value"_a)
      .def(
          "__setitem__",
          [](const Tensor& t, nb::handle key, const Scalar& v) {
            auto idx = indices_of(key);
            nb::gil_scoped_release release;
            t.index_put_(idx, v);
          },
          nb::arg("key").none(), "value"_a);
}

// The ops that gather, scatter or select by an index or a mask; in-place forms return the tensor
// itself.
void def_index_ops(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "gather", [](T t, int64_t dim, T index) { return gather(t, dim, index); }, "dim"_a,
      "index"_a, RG());
  both(
      m, cls, "scatter_add",
      [](T t, int64_t dim, T index, T src) { return scatter_add(t, dim, index, src); }, "dim"_a,
      "index"_a, "src"_a, RG());
  cls.def(
      "scatter_add_",
      [](nb::handle s, int64_t dim, T index, T src) {
        return inplace(s, [&](T t) { t.scatter_add_(dim, index, src); });
      },
      "dim"_a, "index"_a, "src"_a);
  both(
      m, cls, "index_add",
      [](T t, int64_t dim, T index, T source, S alpha) {
        return index_add(t, dim, index, source, alpha);
      },
      "dim"_a, "index"_a, "source"_a, nb::kw_only(), "alpha"_a = 1, RG());
  cls.def(
      "index_add_",
      [](nb::handle s, int64_t dim, T index, T source, S alpha) {
        return inplace(s, [&](T t) { t.index_add_(dim, index, source, alpha); });
      },
      "dim"_a, "index"_a, "source"_a, nb::kw_only(), "alpha"_a = 1);
  both(
      m, cls, "index_copy",
      [](T t, int64_t dim, T index, T source) { return index_copy(t, dim, index, source); },
      "dim"_a, "index"_a, "source"_a, RG());
  cls.def(
      "index_copy_",
      [](nb::handle s, int64_t dim, T index, T source) {
        return inplace(s, [&](T t) { t.index_copy_(dim, index, source); });
      },
      "dim"_a, "index"_a, "source"_a);
  both(
      m, cls, "masked_fill", [](T t, T mask, T value) { return masked_fill(t, mask, value); },
      "mask"_a, "value"_a, RG());
  both(
      m, cls, "masked_fill", [](T t, T mask, S value) { return masked_fill(t, mask, value); },
      "mask"_a, "value"_a, RG());
  cls.def(
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
          "mask"_a, "value"_a);
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
  both(
      m, cls, "argwhere", [](T t) { return argwhere(t); }, RG());
}

using Indices = std::vector<std::optional<Tensor>>;

// scatter(dim, index, src) and scatter(dim, index, value), each with reduce= "add" or "multiply";
// scatter_reduce; their in-place forms.
void def_scatter(nb::module_& m, nb::class_<Tensor>& cls) {
  auto src_form = [](T t, int64_t dim, T index, T src, std::optional<std::string> reduce) {
    return reduce ? scatter(t, dim, index, src, *reduce) : scatter(t, dim, index, src);
  };
  auto value_form = [](T t, int64_t dim, T index, S value, std::optional<std::string> reduce) {
    return reduce ? scatter(t, dim, index, value, *reduce) : scatter(t, dim, index, value);
  };
  both(m, cls, "scatter", src_form, "dim"_a, "index"_a, "src"_a, nb::kw_only(),
       "reduce"_a = nb::none(), RG());
  both(m, cls, "scatter", value_form, "dim"_a, "index"_a, "value"_a, nb::kw_only(),
       "reduce"_a = nb::none(), RG());
  cls.def(
         "scatter_",
         [](nb::handle s, int64_t dim, T index, T src, std::optional<std::string> reduce) {
           return inplace(s, [&](T t) {
             reduce ? t.scatter_(dim, index, src, *reduce) : t.scatter_(dim, index, src);
           });
         },
         "dim"_a, "index"_a, "src"_a, nb::kw_only(), "reduce"_a = nb::none())
      .def(
          "scatter_",
          [](nb::handle s, int64_t dim, T index, S value, std::optional<std::string> reduce) {
            return inplace(s, [&](T t) {
              reduce ? t.scatter_(dim, index, value, *reduce) : t.scatter_(dim, index, value);
            });
          },
          "dim"_a, "index"_a, "value"_a, nb::kw_only(), "reduce"_a = nb::none());
  both(
      m, cls, "scatter_reduce",
      [](T t, int64_t dim, T index, T src, const std::string& reduce, bool include_self) {
        return scatter_reduce(t, dim, index, src, reduce, include_self);
      },
      "dim"_a, "index"_a, "src"_a, "reduce"_a, nb::kw_only(), "include_self"_a = true, RG());
  cls.def(
      "scatter_reduce_",
      [](nb::handle s, int64_t dim, T index, T src, const std::string& reduce, bool include_self) {
        return inplace(s, [&](T t) { t.scatter_reduce_(dim, index, src, reduce, include_self); });
      },
      "dim"_a, "index"_a, "src"_a, "reduce"_a, nb::kw_only(), "include_self"_a = true);
}

// index_fill, index_put, take, take_along_dim, masked_select.
void def_index_reads_and_fills(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "index_fill",
      [](T t, int64_t dim, T index, T value) { return index_fill(t, dim, index, value); }, "dim"_a,
      "index"_a, "value"_a, RG());
  both(
      m, cls, "index_fill",
      [](T t, int64_t dim, T index, S value) { return index_fill(t, dim, index, value); }, "dim"_a,
      "index"_a, "value"_a, RG());
  cls.def(
         "index_fill_",
         [](nb::handle s, int64_t dim, T index, T value) {
           return inplace(s, [&](T t) { t.index_fill_(dim, index, value); });
         },
         "dim"_a, "index"_a, "value"_a)
      .def(
          "index_fill_",
          [](nb::handle s, int64_t dim, T index, S value) {
            return inplace(s, [&](T t) { t.index_fill_(dim, index, value); });
          },
          "dim"_a, "index"_a, "value"_a);
  both(
      m, cls, "index_put",
      [](T t, const Indices& indices, T values, bool accumulate) {
        return index_put(t, indices, values, accumulate);
      },
      "indices"_a, "values"_a, "accumulate"_a = false, RG());
  cls.def(
      "index_put_",
      [](nb::handle s, const Indices& indices, T values, bool accumulate) {
        return inplace(s, [&](T t) { t.index_put_(indices, values, accumulate); });
      },
      "indices"_a, "values"_a, "accumulate"_a = false);
  both(
      m, cls, "take", [](T t, T index) { return take(t, index); }, "index"_a, RG());
  both(
      m, cls, "take_along_dim",
      [](T t, T indices, std::optional<int64_t> dim) { return take_along_dim(t, indices, dim); },
      "indices"_a, "dim"_a = nb::none(), RG());
  both(
      m, cls, "masked_select", [](T t, T mask) { return masked_select(t, mask); }, "mask"_a, RG());
}

}  // namespace

void init_ops_indexing(nb::module_& m, nb::class_<Tensor>& cls) {
  def_subscripts(cls);
  def_index_ops(m, cls);
  def_scatter(m, cls);
  def_index_reads_and_fills(m, cls);
}

}  // namespace ember::python
