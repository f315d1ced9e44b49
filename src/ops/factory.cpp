// Factory functions: zeros, ones, full, rand*, arange, linspace, eye, from_blob, tensor({...}).
#include <cmath>
#include <limits>

#include "core/backend.h"
#include "core/checked_size.h"
#include "core/generator.h"
#include "core/scalar_range.h"
#include "core/tensor_factory.h"
#include "ember/cuda.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "kernel_math/dispatch.h"

namespace ember {

namespace {
Device target_device(const TensorOptions& o) {
  Device d = o.device();
  check_device_has_backend(d);
  if (d.is_cuda()) cuda::check_device(d);
  return d;
}
Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}
Tensor filled(IntArrayRef sizes, const Scalar& v, const TensorOptions& o, const char* op) {
  check_scalar_fits(v, o.dtype(), op);
  Tensor t = make_empty(sizes, o.dtype(), target_device(o), o.pinned_memory());
  backend_for(t).fill(t, v);
  return finish(t, o);
}
Tensor random_tensor(IntArrayRef sizes, RandomKind kind, double a, double b,
                     const TensorOptions& o) {
  Tensor t = make_empty(sizes, o.dtype(), target_device(o), o.pinned_memory());
  auto st = reserve_random_blocks(static_cast<uint64_t>(t.numel()));
  backend_for(t).random(t, kind, a, b, st.seed, st.offset);
  return finish(t, o);
}
TensorOptions like(const Tensor& t, const TensorOptions& o) {
  TensorOptions r = o;
  if (!o.has_dtype()) r = r.dtype(t.dtype());
  if (!o.has_device()) r = r.device(t.device());
  return r;
}
}  // namespace

Tensor empty(IntArrayRef sizes, const TensorOptions& o) {
  return finish(make_empty(sizes, o.dtype(), target_device(o), o.pinned_memory()), o);
}

Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& o) {
  // Enough elements for the furthest one; negative strides and counts beyond int64 refused.
  const size_t itemsize = element_size(o.dtype());
  const auto extent = static_cast<int64_t>(
      checked::strided_nbytes(sizes, strides, 0, itemsize, "empty_strided") / itemsize);
  Tensor base = make_empty({extent}, o.dtype(), target_device(o), o.pinned_memory());
  return finish(make_view(base, sizes, strides, 0), o);
}

Tensor zeros(IntArrayRef sizes, const TensorOptions& o) {
  return filled(sizes, 0, o, "zeros");
}
Tensor ones(IntArrayRef sizes, const TensorOptions& o) {
  return filled(sizes, 1, o, "ones");
}
Tensor full(IntArrayRef sizes, const Scalar& v, const TensorOptions& o) {
  TensorOptions opts = o.has_dtype() ? o : o.dtype(v.type());
  return filled(sizes, v, opts, "full");
}

Tensor rand(IntArrayRef sizes, const TensorOptions& o) {
  EMBER_CHECK(is_floating_point(o.dtype()), TypeError, "rand does not support dtype ",
              to_string(o.dtype()), " (expected a floating point dtype)");
  return random_tensor(sizes, RandomKind::Uniform, 0, 1, o);
}
Tensor randn(IntArrayRef sizes, const TensorOptions& o) {
  EMBER_CHECK(is_floating_point(o.dtype()), TypeError, "randn does not support dtype ",
              to_string(o.dtype()), " (expected a floating point dtype)");
  return random_tensor(sizes, RandomKind::Normal, 0, 1, o);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, const TensorOptions& o) {
  randint_range(low, high);  // throws unless low < high
  // As libtorch 1.13: int64 by default (the parameter's default is kLong), but options given
  // without a dtype (randint(10, {3}, kCUDA)) take the default dtype, float32, like every factory.
  return random_tensor(sizes, RandomKind::RandInt, static_cast<double>(low),
                       static_cast<double>(high), o);
}
Tensor randint(int64_t high, IntArrayRef sizes, const TensorOptions& o) {
  return randint(0, high, sizes, o);
}
Tensor randperm(int64_t n, const TensorOptions& o) {
  EMBER_CHECK(n >= 0, ValueError, "randperm: n must be non-negative, got ", n);
  // Sorting random keys gives a uniform permutation and the same result on every device.
  Tensor keys = rand({n}, TensorOptions().dtype(kDouble));
  std::vector<double> k = keys.to_vector<double>();
  std::vector<int64_t> idx(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return k[a] < k[b]; });
  TensorOptions opts = o.has_dtype() ? o : o.dtype(kLong);
  return tensor(TensorData(idx), opts);
}

Tensor arange(const Scalar& end, const TensorOptions& o) {
  return arange(0, end, 1, o);
}
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& o) {
  return arange(start, end, 1, o);
}
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& o) {
  double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  EMBER_CHECK(st != 0, ValueError, "arange: step must be nonzero");
  EMBER_CHECK(std::isfinite(s) && std::isfinite(e), ValueError, "arange: unsupported range: ", s,
              " -> ", e);
  EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), ValueError,
              "arange: upper bound and larger bound inconsistent with step sign (start=", s,
              ", end=", e, ", step=", st, ")");
  bool floating = start.isFloatingPoint() || end.isFloatingPoint() || step.isFloatingPoint();
  ScalarType dt = o.has_dtype() ? o.dtype() : (floating ? get_default_dtype() : kLong);
  // The count is checked before it becomes an int64: a double beyond int64 has no defined cast,
  // and end - start of two int64s may overflow (counted in 128 bits, exact beyond 2^53).
  bool fits;
  int64_t n = 0;
  if (floating) {
    const double size_d = std::ceil((e - s) / st);
    fits = size_d >= 0 && size_d < 9223372036854775808.0;  // 2^63
    if (fits) n = static_cast<int64_t>(size_d);
  } else {
    const __int128 is = start.toLong(), ie = end.toLong(), ist = step.toLong();
    const __int128 size = (ie - is + ist + (ist > 0 ? -1 : 1)) / ist;
    fits = size <= std::numeric_limits<int64_t>::max();
    if (fits) n = static_cast<int64_t>(size);
  }
  EMBER_CHECK(fits, ValueError, "arange: invalid size, possible overflow? (start=", start,
              ", end=", end, ", step=", step, ")");
  Tensor t = make_empty({n}, dt, target_device(o));
  backend_for(t).arange(t, start, step);
  return finish(t, o);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& o) {
  EMBER_CHECK(steps >= 0, ValueError, "linspace: number of steps must be non-negative, got ",
              steps);
  double s = start.toDouble(), e = end.toDouble();
  double step = steps > 1 ? (e - s) / static_cast<double>(steps - 1) : 0.0;
  Tensor t = make_empty({steps}, o.dtype(), target_device(o));
  backend_for(t).arange(t, s, step);
  return finish(t, o);
}

Tensor eye(int64_t n, const TensorOptions& o) {
  return eye(n, n, o);
}
Tensor eye(int64_t n, int64_t m, const TensorOptions& o) {
  EMBER_CHECK(n >= 0 && m >= 0, ValueError, "eye: n and m must be non-negative, got n=", n,
              ", m=", m);
  Tensor t = zeros({n, m}, o.requires_grad(false));
  // The diagonal is a strided view with stride m + 1; with fewer than two diagonal elements the
  // stride is never stepped, and m + 1 may not exist (eye(0, INT64_MAX)).
  const int64_t k = std::min(n, m);
  Tensor diag = make_view(t, {k}, {k > 1 ? m + 1 : 1}, 0);
  backend_for(t).fill(diag, 1);
  return finish(t, o);
}

Tensor empty_like(const Tensor& t, const TensorOptions& o) {
  return empty(t.sizes(), like(t, o));
}
Tensor zeros_like(const Tensor& t, const TensorOptions& o) {
  return zeros(t.sizes(), like(t, o));
}
Tensor ones_like(const Tensor& t, const TensorOptions& o) {
  return ones(t.sizes(), like(t, o));
}
Tensor full_like(const Tensor& t, const Scalar& v, const TensorOptions& o) {
  return full(t.sizes(), v, like(t, o));
}
Tensor rand_like(const Tensor& t, const TensorOptions& o) {
  return rand(t.sizes(), like(t, o));
}
Tensor randn_like(const Tensor& t, const TensorOptions& o) {
  return randn(t.sizes(), like(t, o));
}

Tensor scalar_tensor(const Scalar& s, const TensorOptions& o) {
  TensorOptions opts = o.has_dtype() ? o : o.dtype(s.type());
  return filled({}, s, opts, "scalar_tensor");
}

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& o) {
  DimVector strides = contiguous_strides(sizes);
  return from_blob(data, sizes, strides, o);
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& o) {
  // The bytes up to the furthest element, as libtorch's from_blob counts them (negative strides
  // and counts beyond int64 refused).
  const size_t nbytes =
      checked::strided_nbytes(sizes, strides, 0, element_size(o.dtype()), "from_blob");
  Device d = target_device(o);
  EMBER_CHECK(!d.is_meta(), DeviceError,
              "from_blob: a meta tensor has no data, so it cannot wrap memory; use "
              "empty(sizes, kMeta)");
  if (d.is_cuda() && !d.has_index()) d.set_index(static_cast<DeviceIndex>(cuda::current_device()));
  // The caller owns the memory: no deleter.
  auto storage = make_ref<StorageImpl>(DataPtr(data, nullptr, nullptr, d), nbytes, false);
  return finish(Tensor(make_ref<TensorImpl>(std::move(storage), o.dtype(), sizes, strides, 0)), o);
}

// ---- tensor({...}) ----
TensorData::TensorData(std::initializer_list<TensorData> nested) {
  sizes_.push_back(static_cast<int64_t>(nested.size()));
  type_ = get_default_dtype();
  bool first = true;
  for (const TensorData& child : nested) {
    if (first) {
      sizes_.insert(sizes_.end(), child.sizes_.begin(), child.sizes_.end());
      type_ = child.type_;
      first = false;
    } else {
      EMBER_CHECK(child.sizes_ == std::vector<int64_t>(sizes_.begin() + 1, sizes_.end()),
                  ValueError, "tensor(): expected sequence of length ",
                  (sizes_.size() > 1 ? sizes_[1] : 0), " at dim 1 (got ",
                  (child.sizes_.empty() ? 0 : child.sizes_[0]), ")");
      type_ = promote_types(type_, child.type_);
    }
    values_.insert(values_.end(), child.values_.begin(), child.values_.end());
  }
}

Tensor tensor(const TensorData& data, const TensorOptions& o) {
  ScalarType dt = o.has_dtype() ? o.dtype() : data.scalar_type();
  Tensor cpu = make_empty(data.sizes(), dt, Device(kCPU));
  const auto& v = data.values();
  EMBER_DISPATCH_ALL(dt, "tensor", [&] {
    auto* p = static_cast<scalar_t*>(cpu.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) p[i] = v[i].to<scalar_t>();
  });
  Device d = target_device(o);
  Tensor out = d.is_cpu() ? cpu : cpu.to(d);
  return finish(out, o);
}

}  // namespace ember
