// ember.Tensor's own members: metadata, conversions (.to, .cpu, .float ...), copies, Python
// numbers and lists, autograd state and printing. The ops, as methods and functions, are bound in
// the files of their families (ops_*.cpp), subscripts in ops_indexing.cpp.
#include <cstring>
#include <string>

#include <nanobind/stl/shared_ptr.h>

#include "common.h"

namespace ember::python {
namespace {

PyObject* g_size_class = nullptr;  // ember.Size, set by ember/__init__.py; kept alive by it

// x.to(...): PyTorch's overloads to(device, dtype), to(dtype), to(tensor), to(device=, dtype=).
Tensor to(const Tensor& self, const nb::args& args, const nb::kwargs& kw) {
  std::optional<Device> device;
  std::optional<ScalarType> dtype;
  bool non_blocking = false, copy = false;
  size_t n = args.size();
  EMBER_CHECK(n <= 2, ArgumentTypeError, "to() takes at most 2 positional arguments, got ", n);
  for (size_t i = 0; i < n; ++i) {
    nb::handle a = args[i];
    if (nb::isinstance<Tensor>(a)) {
      const Tensor& o = nb::cast<const Tensor&>(a);
      device = o.device();
      dtype = o.scalar_type();
    } else if (i == 0 && !nb::isinstance<Device>(a) && !nb::isinstance<nb::str>(a) &&
               !PyLong_Check(a.ptr())) {
      dtype = dtype_arg(a);
    } else if (i == 0) {
      device = device_arg(a);
    } else {
      dtype = dtype_arg(a);
    }
  }
  for (auto [k, v] : kw) {
    std::string key = nb::cast<std::string>(k);
    if (key == "device") {
      device = device_arg(v);
    } else if (key == "dtype") {
      dtype = dtype_arg(v);
    } else if (key == "non_blocking") {
      non_blocking = nb::cast<bool>(v);
    } else if (key == "copy") {
      copy = nb::cast<bool>(v);
    } else {
      throw ArgumentTypeError("to() got an unexpected keyword argument '" + key + "'");
    }
  }
  nb::gil_scoped_release release;
  if (device && dtype) return self.to(*device, *dtype, non_blocking, copy);
  if (device) return self.to(*device, non_blocking, copy);
  if (dtype) return self.to(*dtype, non_blocking, copy);
  return copy ? self.clone() : self;
}

// Nested Python lists of a CPU tensor's elements, as float, int or bool.
nb::object to_list(const Tensor& t, int64_t dim, int64_t offset) {
  if (dim == t.dim()) {
    const char* p = static_cast<const char*>(t.data_ptr()) + offset * int64_t(t.element_size());
    switch (t.scalar_type()) {
      case kDouble:
        return nb::float_(*reinterpret_cast<const double*>(p));
      case kLong:
        return nb::int_(*reinterpret_cast<const int64_t*>(p));
      case kBool:
        return nb::bool_(*reinterpret_cast<const bool*>(p));
      default:
        throw Error("tolist: unexpected dtype");
    }
  }
  int64_t n = t.size(dim);
  nb::list out;
  for (int64_t i = 0; i < n; ++i) out.append(to_list(t, dim + 1, offset + i * t.stride(dim)));
  return out;
}

// item(), float() and int(): PyTorch raises ValueError (not RuntimeError) for many elements.
Scalar python_scalar(const Tensor& t) {
  if (t.numel() != 1)
    throw nb::value_error("only one element tensors can be converted to Python scalars");
  return t.item();
}

nb::object tolist(const Tensor& self) {
  Tensor host;
  {
    nb::gil_scoped_release release;
    ScalarType wide = is_floating_point(self.scalar_type()) ? kDouble
                      : self.scalar_type() == kBool         ? kBool
                                                            : kLong;
    NoGradGuard no_grad;
    host = self.detach().to(Device(kCPU), wide);
  }
  return to_list(host, 0, 0);
}

}  // namespace

nb::object make_size(IntArrayRef sizes) {
  nb::tuple t = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(sizes.size())));
  for (size_t i = 0; i < sizes.size(); ++i)
    PyTuple_SET_ITEM(t.ptr(), i, PyLong_FromLongLong(sizes[i]));
  if (!g_size_class) return t;
  return nb::borrow(g_size_class)(t);
}

std::vector<int64_t> int_list(nb::handle h, const char* what) {
  if (PyLong_Check(h.ptr())) return {nb::cast<int64_t>(h)};
  EMBER_CHECK(PySequence_Check(h.ptr()) && !nb::isinstance<Tensor>(h), ArgumentTypeError, what,
              ": expected an int or a sequence of ints, got ", nb::type_name(h.type()).c_str());
  std::vector<int64_t> out;
  for (nb::handle v : nb::borrow<nb::sequence>(h)) {
    EMBER_CHECK(PyLong_Check(v.ptr()) || PyIndex_Check(v.ptr()), ArgumentTypeError, what,
                ": expected a sequence of ints, but one element is ",
                nb::type_name(v.type()).c_str());
    out.push_back(nb::cast<int64_t>(v));
  }
  return out;
}

std::vector<int64_t> sizes_from_args(const nb::args& args, const char* what) {
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) return int_list(args[0], what);
  std::vector<int64_t> out;
  out.reserve(args.size());
  for (nb::handle v : args) {
    EMBER_CHECK(PyLong_Check(v.ptr()), ArgumentTypeError, what,
                "(): the sizes must be ints (or one sequence of ints), got ",
                nb::type_name(v.type()).c_str());
    out.push_back(nb::cast<int64_t>(v));
  }
  return out;
}

TensorOptions options_from(nb::handle dtype, nb::handle device, bool requires_grad) {
  TensorOptions o;
  if (auto d = dtype_arg(dtype)) o = o.dtype(*d);
  if (auto d = device_arg(device)) o = o.device(*d);
  return o.requires_grad(requires_grad);
}

nb::object tensor_or_none(const Tensor& t) {
  if (!t.defined()) return nb::none();
  return nb::cast(t);
}

std::string tensor_repr(const Tensor& t) {
  if (t.defined() && t.is_meta()) {
    // A meta tensor has no elements to print: PyTorch prints its size (and dtype) only.
    std::string s = "tensor(..., device='meta', size=" +
                    nb::cast<std::string>(nb::repr(nb::tuple(make_size(t.sizes()))));
    if (t.scalar_type() != get_default_dtype())
      s += std::string(", dtype=ember") + std::strchr(python_name(t.scalar_type()), '.');
    return s + (t.requires_grad() ? ", requires_grad=True)" : ")");
  }
  std::string s = detail::python_repr(t);
  // The C++ side names dtypes as PyTorch's Python does: torch.float64 -> ember.float64.
  for (size_t at = s.find("dtype=torch."); at != std::string::npos; at = s.find("dtype=torch.", at))
    s.replace(at + 6, 5, "ember");
  return s;
}

void init_tensor(nb::module_& m, nb::class_<Tensor>& cls) {
  using RG = nb::call_guard<nb::gil_scoped_release>;
  m.def("_set_size_class", [](nb::handle c) { g_size_class = c.ptr(); });
  cls.def_prop_ro("shape", [](const Tensor& t) { return make_size(t.sizes()); })
      .def(
          "size",
          [](const Tensor& t, std::optional<int64_t> dim) -> nb::object {
            if (dim) return nb::int_(t.size(*dim));
            return make_size(t.sizes());
          },
          "dim"_a = nb::none())
      .def(
          "stride",
          [](const Tensor& t, std::optional<int64_t> dim) -> nb::object {
            if (dim) return nb::int_(t.stride(*dim));
            return nb::tuple(nb::cast(t.strides().vec()));
          },
          "dim"_a = nb::none())
      .def("dim", &Tensor::dim)
      .def("ndimension", &Tensor::dim)
      .def_prop_ro("ndim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def("element_size", &Tensor::element_size)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("storage_offset", &Tensor::storage_offset)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def_prop_ro("dtype", [](const Tensor& t) { return dtype_object(t.scalar_type()); })
      .def_prop_ro("device", &Tensor::device)
      .def_prop_ro("is_cuda", &Tensor::is_cuda)
      .def_prop_ro("is_cpu", &Tensor::is_cpu)
      .def_prop_ro("is_meta", &Tensor::is_meta)
      .def("get_device",
           [](const Tensor& t) -> int64_t { return t.is_cuda() ? t.device().index() : -1; })
      .def("__len__",
           [](const Tensor& t) {
             EMBER_CHECK(t.dim() > 0, ArgumentTypeError, "len() of a 0-d tensor");
             return t.size(0);
           })
      .def("__repr__", &tensor_repr)
      .def("__hash__", [](nb::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); })
      // conversions
      .def("to", &to)
      .def("cpu", &Tensor::cpu, RG())
      .def(
          "cuda",
          [](const Tensor& t, nb::handle device, bool non_blocking) {
            Device d = device_arg(device).value_or(Device(kCUDA));
            EMBER_CHECK(d.is_cuda(), Error, "Invalid device, must be cuda device, got ", d.str());
            nb::gil_scoped_release release;
            return t.to(d, non_blocking);
          },
          "device"_a = nb::none(), "non_blocking"_a = false)
      .def(
          "float", [](const Tensor& t) { return t.to(kFloat); }, RG())
      .def(
          "double", [](const Tensor& t) { return t.to(kDouble); }, RG())
      .def(
          "half", [](const Tensor& t) { return t.to(kHalf); }, RG())
      .def(
          "bfloat16", [](const Tensor& t) { return t.to(kBFloat16); }, RG())
      .def(
          "long", [](const Tensor& t) { return t.to(kLong); }, RG())
      .def(
          "int", [](const Tensor& t) { return t.to(kInt); }, RG())
      .def(
          "short", [](const Tensor& t) { return t.to(kShort); }, RG())
      .def(
          "byte", [](const Tensor& t) { return t.to(kByte); }, RG())
      .def(
          "char", [](const Tensor& t) { return t.to(kChar); }, RG())
      .def(
          "bool", [](const Tensor& t) { return t.to(kBool); }, RG())
      .def("type_as", &Tensor::type_as, RG())
      .def("detach", &Tensor::detach, RG())
      .def("detach_",
           [](nb::handle self) {
             nb::cast<const Tensor&>(self).detach_();
             return nb::borrow(self);
           })
      .def("contiguous", &Tensor::contiguous, RG())
      .def(
          "copy_",
          [](nb::handle self, const Tensor& src, bool non_blocking) {
            const Tensor& t = nb::cast<const Tensor&>(self);
            {
              nb::gil_scoped_release release;
              t.copy_(src, non_blocking);
            }
            return nb::borrow(self);
          },
          "src"_a, "non_blocking"_a = false)
      .def("fill_",
           [](nb::handle self, const Scalar& v) {
             const Tensor& t = nb::cast<const Tensor&>(self);
             {
               nb::gil_scoped_release release;
               t.fill_(v);
             }
             return nb::borrow(self);
           })
      .def("zero_",
           [](nb::handle self) {
             const Tensor& t = nb::cast<const Tensor&>(self);
             {
               nb::gil_scoped_release release;
               t.zero_();
             }
             return nb::borrow(self);
           })
      // Python numbers and lists
      .def(
          "item", [](const Tensor& t) { return python_scalar(t); }, RG())
      .def("tolist", &tolist)
      .def(
          "__float__", [](const Tensor& t) { return python_scalar(t).toDouble(); }, RG())
      .def(
          "__int__", [](const Tensor& t) { return python_scalar(t).toLong(); }, RG())
      .def("__index__",
           [](const Tensor& t) {
             EMBER_CHECK(is_integral(t.scalar_type(), true) && t.numel() == 1, ArgumentTypeError,
                         "only integer tensors of a single element can be converted to an index");
             return t.item().toLong();
           })
      .def("__bool__",
           [](const Tensor& t) {
             EMBER_CHECK(t.numel() == 1, Error,
                         "Boolean value of Tensor with more than one value is ambiguous");
             nb::gil_scoped_release release;
             return t.item().toBool();
           })
      // autograd state
      .def_prop_rw("requires_grad", &Tensor::requires_grad,
                   [](const Tensor& t, bool r) { t.requires_grad_(r); })
      .def(
          "requires_grad_",
          [](nb::handle self, bool r) {
            nb::cast<const Tensor&>(self).requires_grad_(r);
            return nb::borrow(self);
          },
          "requires_grad"_a = true)
      .def_prop_rw(
          "grad", [](const Tensor& t) { return tensor_or_none(t.grad()); },
          [](const Tensor& t, nb::handle g) {
            Tensor& slot = t.mutable_grad();
            slot = g.is_none() ? Tensor() : nb::cast<Tensor>(g);
          },
          nb::for_setter(nb::arg("value").none()))
      .def_prop_ro("is_leaf", &Tensor::is_leaf)
      .def_prop_ro("data", &Tensor::detach)
      .def("retain_grad", &Tensor::retain_grad)
      .def_prop_ro("retains_grad", &Tensor::retains_grad)
      .def_prop_ro("grad_fn", &Tensor::grad_fn)
      .def(
          "backward",
          [](const Tensor& t, std::optional<Tensor> gradient, std::optional<bool> retain_graph,
             bool create_graph) {
            nb::gil_scoped_release release;
            t.backward(gradient.value_or(Tensor()), retain_graph, create_graph);
          },
          "gradient"_a = nb::none(), "retain_graph"_a = nb::none(), "create_graph"_a = false);
  // The members PyTorch also spells as functions: ember.numel(x) (without a keyword),
  // ember.is_floating_point(input), ember.clone(input).
  m.def("numel", [](const Tensor& t) { return t.numel(); });
  both(m, cls, "is_floating_point", [](const Tensor& t) { return t.is_floating_point(); });
  both(
      m, cls, "clone", [](const Tensor& t) { return t.clone(); }, RG());
}

}  // namespace ember::python
