// The autocast region (ember::amp::autocast) and the thread's autocast state.
#include "ember/amp/autocast.h"

#include "amp/cast_cache.h"
#include "core/autocast_hook.h"
#include "ember/error.h"

namespace ember::amp {
namespace {

struct AutocastState {
  bool enabled[2] = {false, false};
  ScalarType dtype[2] = {kBFloat16, kHalf};  // indexed by DeviceType: CPU, CUDA
  bool cache_enabled = true;
  int nesting = 0;  // open regions of any device type
};
thread_local AutocastState t_state;

int slot(DeviceType d) {
  return static_cast<int>(d);
}
uint8_t bit(DeviceType d) {
  return static_cast<uint8_t>(1u << slot(d));
}

void check_dtype(DeviceType device_type, ScalarType dtype) {
  EMBER_CHECK(dtype == kHalf || dtype == kBFloat16, ValueError,
              "autocast: the dtype of an autocast region must be torch.float16 or "
              "torch.bfloat16, got ",
              python_name(dtype), " for device type ", device_type_name(device_type));
}

// What the front ends' AutocastScope (core/autocast_hook.h) needs from a region: its dtype, and
// casts through the cast cache (PyTorch's cached_cast).
Tensor cast_lower(const Tensor& t, ScalarType dtype) {
  if (is_autocast_cache_enabled() && detail::is_cacheable(t)) return detail::cached_cast(t, dtype);
  return t.to(dtype);
}
constexpr AutocastHooks kHooks{get_autocast_dtype, cast_lower};

// Attached before t_active is first set (the only two places that set a bit of it do this).
void attach() {
  attach_autocast(&kHooks);
}

}  // namespace

autocast::autocast(DeviceType device_type, std::optional<ScalarType> dtype, bool enabled,
                   bool cache_enabled)
    : device_type_(device_type),
      prev_enabled_(t_state.enabled[slot(device_type)]),
      prev_dtype_(t_state.dtype[slot(device_type)]),
      prev_cache_enabled_(t_state.cache_enabled),
      prev_active_(detail::t_active) {
  if (dtype) check_dtype(device_type, *dtype);
  attach();
  t_state.enabled[slot(device_type)] = enabled;
  if (dtype) t_state.dtype[slot(device_type)] = *dtype;
  t_state.cache_enabled = cache_enabled;
  ++t_state.nesting;
  detail::t_active =
      enabled ? (detail::t_active | bit(device_type)) : (detail::t_active & ~bit(device_type));
}

autocast::~autocast() {
  if (--t_state.nesting == 0) detail::clear_cast_cache();
  t_state.enabled[slot(device_type_)] = prev_enabled_;
  t_state.dtype[slot(device_type_)] = prev_dtype_;
  t_state.cache_enabled = prev_cache_enabled_;
  detail::t_active = prev_active_;
}

bool is_autocast_enabled(DeviceType device_type) {
  return t_state.enabled[slot(device_type)];
}
ScalarType get_autocast_dtype(DeviceType device_type) {
  return t_state.dtype[slot(device_type)];
}
void set_autocast_enabled(DeviceType device_type, bool enabled) {
  attach();
  t_state.enabled[slot(device_type)] = enabled;
  detail::t_active =
      enabled ? (detail::t_active | bit(device_type)) : (detail::t_active & ~bit(device_type));
}
void set_autocast_dtype(DeviceType device_type, ScalarType dtype) {
  check_dtype(device_type, dtype);
  t_state.dtype[slot(device_type)] = dtype;
}
bool is_autocast_cache_enabled() {
  return t_state.cache_enabled;
}
void set_autocast_cache_enabled(bool enabled) {
  t_state.cache_enabled = enabled;
}
void clear_autocast_cache() {
  detail::clear_cast_cache();
}

}  // namespace ember::amp
