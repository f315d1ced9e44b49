// DLPack both ways (https://dmlc.github.io/dlpack): Tensor.__dlpack__ / __dlpack_device__ hand a
// "dltensor" capsule over the tensor's memory to torch.from_dlpack and the rest, and
// ember._C._from_dlpack takes another library's tensor (or a capsule) without a copy, keeping the
// producer's memory alive until the tensor's storage is freed.
#include <string>
#include <vector>

#include "common.h"

namespace ember::python {
namespace {

// The DLPack ABI (v0.8): the structs every producer and consumer share.
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
enum : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3 };
enum : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };

struct DTypeRow {
  ScalarType type;
  DLDataType dl;
};
constexpr DTypeRow kDTypes[] = {
    {kFloat, {kDLFloat, 32, 1}},     {kDouble, {kDLFloat, 64, 1}}, {kHalf, {kDLFloat, 16, 1}},
    {kBFloat16, {kDLBfloat, 16, 1}}, {kLong, {kDLInt, 64, 1}},     {kInt, {kDLInt, 32, 1}},
    {kShort, {kDLInt, 16, 1}},       {kChar, {kDLInt, 8, 1}},      {kByte, {kDLUInt, 8, 1}},
    {kBool, {kDLBool, 8, 1}},
};

DLDataType dl_dtype(ScalarType t) {
  for (const auto& r : kDTypes)
    if (r.type == t) return r.dl;
  throw ArgumentTypeError(std::string("DLPack: cannot export a tensor of dtype ") + to_string(t));
}

ScalarType scalar_type(DLDataType d) {
  for (const auto& r : kDTypes)
    if (r.dl.code == d.code && r.dl.bits == d.bits && r.dl.lanes == d.lanes) return r.type;
  throw ArgumentTypeError("DLPack: unsupported data type (code " + std::to_string(d.code) +
                          ", bits " + std::to_string(d.bits) + ", lanes " +
                          std::to_string(d.lanes) + ")");
}

// What an exported capsule owns: the tensor, its shape and strides, the DLPack struct.
struct Exported {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed{};
};

void delete_exported(DLManagedTensor* m) {
  delete static_cast<Exported*>(m->manager_ctx);
}

void capsule_destructor(PyObject* capsule) {
  // A consumer renames a capsule it took to "used_dltensor" and calls the deleter itself.
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (m && m->deleter) m->deleter(m);
}

nb::tuple dlpack_device(const Tensor& t) {
  if (t.is_cuda()) return nb::make_tuple(int(kDLCUDA), int(t.device().index()));
  EMBER_CHECK(t.is_cpu(), ArgumentTypeError, "DLPack: cannot export a tensor on ",
              t.device().str());
  return nb::make_tuple(int(kDLCPU), 0);
}

nb::object to_dlpack(const Tensor& t, nb::handle stream) {
  EMBER_CHECK(!t.requires_grad(), Error,
              "Can't export tensors that require gradient, use tensor.detach()");
  dlpack_device(t);
  if (t.is_cuda()) {
    // The consumer reads on its own stream: finish what is queued on ours first.
    nb::gil_scoped_release release;
    cuda::current_stream(t.device().index()).synchronize();
  }
  auto* e = new Exported{t, t.sizes().vec(), t.strides().vec(), {}};
  DLTensor& d = e->managed.dl_tensor;
  d.data = t.data_ptr();
  d.device = t.is_cuda() ? DLDevice{kDLCUDA, t.device().index()} : DLDevice{kDLCPU, 0};
  d.ndim = static_cast<int32_t>(t.dim());
  d.dtype = dl_dtype(t.scalar_type());
  d.shape = e->shape.data();
  d.strides = e->strides.data();
  d.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = &delete_exported;
  PyObject* cap = PyCapsule_New(&e->managed, "dltensor", &capsule_destructor);
  if (!cap) {
    delete e;
    throw nb::python_error();
  }
  return nb::steal(cap);
}

// Frees a consumed DLManagedTensor when the storage over it goes; the producer's deleter may
// touch Python objects (numpy's does), so it runs with the GIL.
void release_managed(void* ctx) {
  auto* m = static_cast<DLManagedTensor*>(ctx);
  if (!m->deleter || !Py_IsInitialized()) return;
  nb::gil_scoped_acquire gil;
  m->deleter(m);
}

Tensor from_dlpack(nb::handle obj) {
  nb::object capsule;
  if (PyCapsule_CheckExact(obj.ptr())) {
    capsule = nb::borrow(obj);
  } else {
    EMBER_CHECK(nb::hasattr(obj, "__dlpack__"), ArgumentTypeError,
                "from_dlpack: expected an object with __dlpack__ or a DLPack capsule, got ",
                nb::type_name(obj.type()).c_str());
    nb::tuple dev = nb::borrow<nb::tuple>(obj.attr("__dlpack_device__")());
    int type = nb::cast<int>(dev[0]);
    // CUDA producers order their work before the legacy default stream (1), which ours is.
    capsule = type == kDLCUDA ? obj.attr("__dlpack__")("stream"_a = 1) : obj.attr("__dlpack__")();
  }
  EMBER_CHECK(PyCapsule_IsValid(capsule.ptr(), "dltensor"), Error,
              "from_dlpack: the capsule is not a \"dltensor\" (a DLPack capsule can be consumed "
              "only once)");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  const DLTensor& d = m->dl_tensor;
  Device device(kCPU);
  if (d.device.device_type == kDLCUDA) {
    device = Device(kCUDA, static_cast<DeviceIndex>(d.device.device_id));
    cuda::check_device(device);
  } else {
    EMBER_CHECK(d.device.device_type == kDLCPU || d.device.device_type == kDLCUDAHost,
                ArgumentTypeError, "from_dlpack: unsupported device type ", d.device.device_type,
                " (Ember takes CPU and CUDA memory)");
  }
  ScalarType st = scalar_type(d.dtype);
  std::vector<int64_t> sizes(d.shape, d.shape + d.ndim), strides(d.ndim);
  int64_t extent = 1, numel = 1;
  for (int i = d.ndim - 1, expected = 1; i >= 0; --i) {
    strides[i] = d.strides ? d.strides[i] : expected;
    expected *= sizes[i];
    numel *= sizes[i];
    EMBER_CHECK(strides[i] >= 0 || sizes[i] <= 1, ValueError,
                "from_dlpack: negative strides are not supported (dim ", i, " has stride ",
                strides[i], ")");
    if (sizes[i] > 0) extent += (sizes[i] - 1) * strides[i];
  }
  size_t itemsize = element_size(st);
  size_t nbytes = numel == 0 ? 0 : static_cast<size_t>(extent) * itemsize;
  void* data = static_cast<char*>(d.data) + d.byte_offset;
  // From here the capsule's memory is ours: the deleter runs when the storage is freed.
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  DataPtr ptr(data, m, &release_managed, device);
  auto storage = make_ref<StorageImpl>(std::move(ptr), nbytes, false);
  return Tensor(make_ref<TensorImpl>(std::move(storage), st, sizes, strides, 0));
}

}  // namespace

void init_dlpack(nb::module_& m, nb::class_<Tensor>& cls) {
  cls.def("__dlpack__", &to_dlpack, "stream"_a = nb::none())
      .def("__dlpack_device__", &dlpack_device);
  m.def("_from_dlpack", &from_dlpack, "ext_tensor"_a);
}

}  // namespace ember::python
