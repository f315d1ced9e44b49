// numpy in and out without a copy: x.numpy() is an ndarray over the tensor's memory (keeping the
// tensor alive), ember.from_numpy(a) a tensor over the array's memory (keeping the array alive).
#include <nanobind/ndarray.h>

#include <string>

#include "common.h"

namespace ember::python {
namespace {

nb::dlpack::dtype dlpack_of(ScalarType t) {
  switch (t) {
    case kByte:
      return nb::dtype<uint8_t>();
    case kChar:
      return nb::dtype<int8_t>();
    case kShort:
      return nb::dtype<int16_t>();
    case kInt:
      return nb::dtype<int32_t>();
    case kLong:
      return nb::dtype<int64_t>();
    case kHalf:
      return {static_cast<uint8_t>(nb::dlpack::dtype_code::Float), 16, 1};
    case kFloat:
      return nb::dtype<float>();
    case kDouble:
      return nb::dtype<double>();
    case kBool:
      return nb::dtype<bool>();
    default:
      throw ArgumentTypeError(std::string("Got unsupported ScalarType ") + to_string(t));
  }
}

ScalarType scalar_type_of(nb::dlpack::dtype d) {
  using C = nb::dlpack::dtype_code;
  auto code = static_cast<C>(d.code);
  if (d.lanes == 1) {
    if (code == C::Float && d.bits == 16) return kHalf;
    if (code == C::Float && d.bits == 32) return kFloat;
    if (code == C::Float && d.bits == 64) return kDouble;
    if (code == C::Int && d.bits == 8) return kChar;
    if (code == C::Int && d.bits == 16) return kShort;
    if (code == C::Int && d.bits == 32) return kInt;
    if (code == C::Int && d.bits == 64) return kLong;
    if (code == C::UInt && d.bits == 8) return kByte;
    if (code == C::Bool) return kBool;
  }
  throw ArgumentTypeError(
      "can't convert np.ndarray of this type. The only supported types are: float64, float32, "
      "float16, int64, int32, int16, int8, uint8, and bool.");
}

using Array = nb::ndarray<nb::numpy, nb::device::cpu>;

Array to_numpy(const Tensor& t) {
  EMBER_CHECK(t.is_cpu(), ArgumentTypeError, "can't convert ", t.device().str(),
              " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory "
              "first.");
  EMBER_CHECK(!t.requires_grad(), Error,
              "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
              "instead.");
  nb::dlpack::dtype dt = dlpack_of(t.scalar_type());
  std::vector<size_t> shape(t.sizes().begin(), t.sizes().end());
  std::vector<int64_t> strides(t.strides().begin(), t.strides().end());
  auto* keep = new Tensor(t);
  nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  return Array(t.data_ptr(), shape.size(), shape.data(), owner, strides.data(), dt);
}

// The Python object that owns the array's memory, released (with the GIL) when the storage is.
void release_owner(void* ctx) {
  if (!Py_IsInitialized()) return;
  nb::gil_scoped_acquire gil;
  Py_DECREF(static_cast<PyObject*>(ctx));
}

Tensor from_numpy(nb::handle obj) {
  EMBER_CHECK(nb::hasattr(obj, "__array_interface__") || nb::hasattr(obj, "__dlpack__"),
              ArgumentTypeError, "expected np.ndarray (got ", nb::type_name(obj.type()).c_str(),
              ")");
  Array a;
  EMBER_CHECK(nb::try_cast<Array>(obj, a, false), ArgumentTypeError,
              "can't convert np.ndarray of type ", nb::str(obj.attr("dtype")).c_str(),
              ". The only supported types are: float64, float32, float16, int64, int32, int16, "
              "int8, uint8, and bool.");
  ScalarType st = scalar_type_of(a.dtype());
  std::vector<int64_t> sizes(a.ndim()), strides(a.ndim());
  for (size_t i = 0; i < a.ndim(); ++i) {
    sizes[i] = static_cast<int64_t>(a.shape(i));
    strides[i] = a.stride(i);
    EMBER_CHECK(strides[i] >= 0, ValueError,
                "At least one stride in the given numpy array is negative, and tensors with "
                "negative strides are not currently supported. (You can probably work around "
                "this by making a copy of your array  with array.copy().)");
  }
  Py_INCREF(obj.ptr());
  size_t nbytes = static_cast<size_t>(a.nbytes());
  DataPtr data(a.data(), obj.ptr(), &release_owner, Device(kCPU));
  auto storage = make_ref<StorageImpl>(std::move(data), nbytes, false);
  return Tensor(make_ref<TensorImpl>(std::move(storage), st, sizes, strides, 0));
}

}  // namespace

void init_numpy(nb::module_& m, nb::class_<Tensor>& cls) {
  cls.def("numpy", &to_numpy, nb::rv_policy::reference);
  // np.asarray(x) and other numpy calls on a tensor: the same memory, converted on request.
  cls.def(
      "__array__",
      [](const Tensor& t, nb::handle dtype) {
        nb::object a = nb::cast(to_numpy(t), nb::rv_policy::reference);
        return dtype.is_none() ? a : a.attr("astype")(dtype);
      },
      nb::arg("dtype").none() = nb::none());
  m.def("from_numpy", &from_numpy, "ndarray"_a);
}

}  // namespace ember::python
