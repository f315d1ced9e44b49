#pragma once
// TensorOptions: dtype, device, requires_grad and pinned memory for factory functions.
#include <optional>
#include <type_traits>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember {

enum class Layout : int8_t { Strided = 0 };
constexpr Layout kStrided = Layout::Strided;

class TensorOptions {
 public:
  TensorOptions() = default;
  // Implicit, as in libtorch, so ember::zeros({2}, ember::kInt) and ember::randn({2}, device) work.
  TensorOptions(ScalarType dtype) : dtype_(dtype) {}
  TensorOptions(TypeMeta dtype) : dtype_(dtype.toScalarType()) {}
  TensorOptions(Device device) : device_(device) {}
  TensorOptions(DeviceType type) : device_(Device(type)) {}
  TensorOptions(Layout) {}

  TensorOptions dtype(ScalarType d) const {
    TensorOptions o = *this;
    o.dtype_ = d;
    return o;
  }
  TensorOptions dtype(TypeMeta d) const { return dtype(d.toScalarType()); }
  TensorOptions dtype(std::optional<ScalarType> d) const {
    TensorOptions o = *this;
    o.dtype_ = d;
    return o;
  }
  TensorOptions device(Device d) const {
    TensorOptions o = *this;
    o.device_ = d;
    return o;
  }
  TensorOptions device(DeviceType t, DeviceIndex i = -1) const { return device(Device(t, i)); }
  // Any other integer index is checked as Device's constructor checks it.
  template <typename I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool> &&
                                             !std::is_same_v<I, DeviceIndex>,
                                         int> = 0>
  TensorOptions device(DeviceType t, I i) const {
    return device(Device(t, i));
  }
  TensorOptions requires_grad(bool r) const {
    TensorOptions o = *this;
    o.requires_grad_ = r;
    return o;
  }
  TensorOptions pinned_memory(bool p) const {
    TensorOptions o = *this;
    o.pinned_memory_ = p;
    return o;
  }
  TensorOptions layout(Layout) const { return *this; }

  // A TypeMeta as in libtorch (prints "float"); converts to ScalarType.
  TypeMeta dtype() const {
    return TypeMeta::fromScalarType(dtype_ ? *dtype_ : get_default_dtype());
  }
  bool has_dtype() const { return dtype_.has_value(); }
  Device device() const { return device_ ? *device_ : Device(kCPU); }
  bool has_device() const { return device_.has_value(); }
  bool requires_grad() const { return requires_grad_; }
  bool pinned_memory() const { return pinned_memory_; }

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  bool requires_grad_ = false;
  bool pinned_memory_ = false;
};

inline TensorOptions dtype(ScalarType d) {
  return TensorOptions().dtype(d);
}
inline TensorOptions device(Device d) {
  return TensorOptions().device(d);
}
inline TensorOptions requires_grad(bool r = true) {
  return TensorOptions().requires_grad(r);
}

}  // namespace ember
