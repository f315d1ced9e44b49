// Reduction front ends: sum, mean, prod, max/min, amax/amin, argmax/argmin, var/std,
// logsumexp, all/any, allclose/equal, norm, with their gradient rules.
// Each checks its dims and dtype, allocates the result, reduces on the input's backend into a
// view of it with the reduced dims kept as size 1, and records a backward node when needed.
#include <cmath>
#include <limits>

#include "autograd/record.h"
#include "core/autocast_hook.h"
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {
namespace {

using autograd::SavedTensor;
using autograd::variable_list;

struct ReducePlan {
  DimVector keep;             // the input's shape with the reduced dims set to 1
  DimVector result;           // the result's shape: `keep`, or `keep` without the reduced dims
  std::vector<int64_t> dims;  // the reduced dims, wrapped and ascending
  int64_t count = 1;          // input elements reduced into each output element
  bool keepdim = false;
};

// `dims` empty means every dim, as in PyTorch.
ReducePlan plan_reduce(const Tensor& a, IntArrayRef dims, bool keepdim, const char* op) {
  const int64_t nd = a.dim();
  EMBER_CHECK(nd <= 64, ValueError, op, "(): tensors of more than 64 dims are not supported");
  uint64_t mask = 0;
  if (dims.empty()) {
    mask = nd == 64 ? ~uint64_t(0) : (uint64_t(1) << nd) - 1;
  } else {
    for (int64_t d : dims) {
      const int64_t w = wrap_dim(d, nd, op);
      EMBER_CHECK(!(mask >> w & 1), ValueError, op, "(): dim ", w,
                  " appears multiple times in the list of dims");
      mask |= uint64_t(1) << w;
    }
  }
  ReducePlan p;
  p.keepdim = keepdim;
  for (int64_t d = 0; d < nd; ++d) {
    const bool reduced = mask >> d & 1;
    p.keep.push_back(reduced ? 1 : a.size(d));
    if (reduced) {
      p.count *= a.size(d);
      p.dims.push_back(d);
    }
    if (!reduced || keepdim) p.result.push_back(p.keep.back());
  }
  return p;
}

// The result tensor and a view of it with the reduced dims kept, for the backend.
Tensor keep_view(const Tensor& out, const ReducePlan& p) {
  if (p.keepdim) return out;
  return make_view(out, p.keep, contiguous_strides(p.keep), out.storage_offset());
}

Tensor reduce_into(ReduceOp op, const Tensor& in, const ReducePlan& p, ScalarType out_dtype) {
  Tensor out = make_empty(p.result, out_dtype, in.device());
  backend_for(in).reduce(op, keep_view(out, p), in);
  return out;
}

// Spreads a gradient of the result back over the reduced dims.
Tensor expand_grad(const Tensor& g, IntArrayRef keep, IntArrayRef sizes) {
  return g.reshape(keep).expand(sizes);
}

bool is_reduced_precision(ScalarType t) {
  return t == kHalf || t == kBFloat16;
}

void check_nonempty_dims(const Tensor& a, const ReducePlan& p, const char* op) {
  if (a.numel() != 0) return;
  for (int64_t d : p.dims) {
    EMBER_CHECK(a.size(d) != 0, IndexError, op, "(): Expected reduction dim ", d,
                " to have non-zero size.");
  }
}

Tensor sum_impl(const Tensor& a, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype,
                const char* node) {
  ReducePlan p = plan_reduce(a, dims, keepdim, "sum");
  const bool integral = is_integral(a.dtype(), /*include_bool=*/true);
  const ScalarType rt = dtype ? *dtype : (integral ? kLong : a.dtype());
  // Integers widen to int64 inside the kernel; any other change of dtype casts first.
  const Tensor in = (rt == a.dtype() || (rt == kLong && integral)) ? a : a.to(rt);
  Tensor out = reduce_into(ReduceOp::Sum, in, p, rt);
  if (autograd::needs_grad({in})) {
    autograd::record(node, out, {in},
                     [keep = p.keep, sizes = DimVector(in.sizes())](const variable_list& g) {
                       return variable_list{expand_grad(g[0], keep, sizes)};
                     });
  }
  return out;
}

Tensor mean_impl(const Tensor& a, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  const ScalarType rt = dtype ? *dtype : a.dtype();
  EMBER_CHECK(is_floating_point(rt), TypeError,
              "mean(): could not infer output dtype. Input dtype must be either a floating point "
              "or complex dtype. Got: ",
              to_string(rt));
  ReducePlan p = plan_reduce(a, dims, keepdim, "mean");
  const double n = static_cast<double>(p.count);
  Tensor out;
  {
    // One node, named as libtorch names it (mean() MeanBackward0, mean(dims) MeanBackward1),
    // instead of the sum and division nodes the computation would record.
    autograd::NoGradGuard no_grad;
    out = is_reduced_precision(rt)
              ? (sum_impl(a, dims, keepdim, kFloat, "") / n).to(rt)  // divide before rounding
              : sum_impl(a, dims, keepdim, rt, "") / n;
  }
  if (autograd::needs_grad({a})) {
    autograd::record(dims.empty() ? "MeanBackward0" : "MeanBackward1", out, {a},
                     [keep = p.keep, sizes = DimVector(a.sizes()), n,
                      in_dtype = a.dtype()](const variable_list& g) {
                       return variable_list{expand_grad(g[0] / n, keep, sizes).to(in_dtype)};
                     });
  }
  return out;
}

// max()/min() over everything; the gradient is shared evenly among tied maxima (PyTorch 1.13).
Tensor extreme_all(const Tensor& a, bool is_max) {
  const char* op = is_max ? "max" : "min";
  EMBER_CHECK(a.numel() > 0, IndexError, op,
              "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
              "reduction dim with the 'dim' argument.");
  ReducePlan p = plan_reduce(a, {}, false, op);
  Tensor out = reduce_into(is_max ? ReduceOp::Max : ReduceOp::Min, a, p, a.dtype());
  if (autograd::needs_grad({a})) {
    autograd::record(is_max ? "MaxBackward1" : "MinBackward1", out, {a},
                     [sa = SavedTensor(a), so = SavedTensor(out, true)](const variable_list& g) {
                       Tensor mask = eq(sa.unpack(), so.unpack());
                       return variable_list{mask * (g[0] / mask.sum())};
                     });
  }
  return out;
}

Tensor extreme_dims(const Tensor& a, IntArrayRef dims, bool keepdim, bool is_max) {
  const char* op = is_max ? "amax" : "amin";
  ReducePlan p = plan_reduce(a, dims, keepdim, op);
  check_nonempty_dims(a, p, op);
  Tensor out = reduce_into(is_max ? ReduceOp::Max : ReduceOp::Min, a, p, a.dtype());
  if (autograd::needs_grad({a})) {
    autograd::record(is_max ? "AmaxBackward0" : "AminBackward0", out, {a},
                     [sa = SavedTensor(a), so = SavedTensor(out, true), keep = p.keep,
                      rdims = p.dims](const variable_list& g) {
                       Tensor mask = eq(sa.unpack(), so.unpack().reshape(keep));
                       Tensor count = mask.sum(rdims, /*keepdim=*/true);
                       return variable_list{mask * (g[0].reshape(keep) / count)};
                     });
  }
  return out;
}

std::tuple<Tensor, Tensor> extreme_dim(const Tensor& a, int64_t dim, bool keepdim, bool is_max) {
  const char* op = is_max ? "max" : "min";
  const int64_t d = wrap_dim(dim, a.dim(), op);
  ReducePlan p = plan_reduce(a, {d}, keepdim, op);
  check_nonempty_dims(a, p, op);
  Tensor values = make_empty(p.result, a.dtype(), a.device());
  Tensor indices = make_empty(p.result, kLong, a.device());
  backend_for(a).arg_reduce(is_max, keep_view(values, p), keep_view(indices, p), a, d);
  if (autograd::needs_grad({a})) {
    autograd::record(
        is_max ? "MaxBackward0" : "MinBackward0", values, {a},
        [si = SavedTensor(indices), keep = p.keep, sizes = DimVector(a.sizes()),
         d](const variable_list& g) {
          if (sizes.empty()) return variable_list{g[0]};
          // The gradient goes to the selected position along `d`, zero elsewhere.
          DimVector line(sizes.size(), 1);
          line[d] = sizes[d];
          Tensor pos = arange(sizes[d], TensorOptions(kLong).device(g[0].device())).reshape(line);
          Tensor mask = eq(pos, si.unpack().reshape(keep));
          return variable_list{where(mask, g[0].reshape(keep), Scalar(0))};
        });
  }
  return {values, indices};
}

Tensor arg_extreme(const Tensor& a, std::optional<int64_t> dim, bool keepdim, bool is_max) {
  const char* op = is_max ? "argmax" : "argmin";
  if (!dim) {
    EMBER_CHECK(a.numel() > 0, IndexError, op,
                "(): Expected reduction dim to be specified for input.numel() == 0.");
    Tensor c = a.contiguous().detach();
    Tensor flat = make_view(c, {c.numel()}, {1}, c.storage_offset());
    Tensor values = make_empty({1}, a.dtype(), a.device());
    Tensor index = make_empty({}, kLong, a.device());
    backend_for(a).arg_reduce(is_max, values, make_view(index, {1}, {1}, 0), flat, 0);
    if (!keepdim) return index;
    return make_view(index, DimVector(a.dim(), 1), DimVector(a.dim(), 1), 0);
  }
  const int64_t d = wrap_dim(*dim, a.dim(), op);
  ReducePlan p = plan_reduce(a, {d}, keepdim, op);
  check_nonempty_dims(a, p, op);
  Tensor values = make_empty(p.keep, a.dtype(), a.device());
  Tensor indices = make_empty(p.result, kLong, a.device());
  backend_for(a).arg_reduce(is_max, values, keep_view(indices, p), a, d);
  return indices;
}

// Divides the summed squared deviations by max(0, count - correction): unbiased is correction 1.
Tensor var_impl(const Tensor& a, IntArrayRef dims, int64_t correction, bool keepdim,
                const char* op) {
  EMBER_CHECK(is_floating_point(a.dtype()), TypeError, op,
              "(): std and var only support floating point and complex dtypes, got ",
              to_string(a.dtype()));
  ReducePlan p = plan_reduce(a, dims, keepdim, op);
  // Two passes (mean, then squared deviations) for accuracy; 16-bit inputs compute in float.
  const Tensor x = is_reduced_precision(a.dtype()) ? a.to(kFloat) : a;
  Tensor dev = x - mean(x, dims, /*keepdim=*/true);
  const int64_t divisor = std::max<int64_t>(0, p.count - correction);
  Tensor v = sum(dev * dev, dims, keepdim) / static_cast<double>(divisor);
  return x.dtype() == a.dtype() ? v : v.to(a.dtype());
}

Tensor logical_reduce(const Tensor& a, bool is_all, IntArrayRef dims = {}, bool keepdim = false) {
  ReducePlan p = plan_reduce(a, dims, keepdim, is_all ? "all" : "any");
  // uint8 inputs give uint8 results, as in PyTorch.
  return reduce_into(is_all ? ReduceOp::All : ReduceOp::Any, a, p,
                     a.dtype() == kByte ? kByte : kBool);
}

}  // namespace

// ---- sum / mean / prod ----
Tensor sum(const Tensor& a, std::optional<ScalarType> dtype) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::sum, a);
    return sum(a, ac.output_dtype(dtype, a));
  }
  return sum_impl(a, {}, false, dtype, "SumBackward0");
}
Tensor sum(const Tensor& a, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::sum, a);
    return sum(a, dims, keepdim, ac.output_dtype(dtype, a));
  }
  return sum_impl(a, dims, keepdim, dtype, "SumBackward1");
}
Tensor mean(const Tensor& a, std::optional<ScalarType> dtype) {
  return mean_impl(a, {}, false, dtype);
}
Tensor mean(const Tensor& a, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  return mean_impl(a, dims, keepdim, dtype);
}

Tensor prod(const Tensor& a) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::prod, a);
    return prod(ac.cast(a));
  }
  ReducePlan p = plan_reduce(a, {}, false, "prod");
  const ScalarType rt = is_integral(a.dtype(), true) ? kLong : a.dtype();
  Tensor out = reduce_into(ReduceOp::Prod, a, p, rt);
  if (autograd::needs_grad({a})) {
    autograd::record("ProdBackward0", out, {a},
                     [sa = SavedTensor(a), so = SavedTensor(out, true)](const variable_list& g) {
                       Tensor x = sa.unpack();
                       // Meta tensors have no zeros to count: the zero-free formula's shape.
                       if (x.is_meta()) return variable_list{g[0] * so.unpack() / x};
                       Tensor zero = x.eq(0);
                       const int64_t zeros = zero.sum().item<int64_t>();
                       if (zeros == 0) return variable_list{g[0] * so.unpack() / x};
                       if (zeros > 1) return variable_list{zeros_like(x)};
                       // One zero: its gradient is the product of all the other elements.
                       Tensor others = prod(where(zero, Scalar(1), x));
                       return variable_list{where(zero, g[0] * others, Scalar(0))};
                     });
  }
  return out;
}

// Over one dim, with a gradient that needs no host sync and is exact with zeros: the product of
// the other elements is the exclusive cumulative product from the left times the one from the
// right.
Tensor prod(const Tensor& a, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  if (dtype && *dtype != a.dtype()) return prod(a.to(*dtype), dim, keepdim);
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::prod, a);
    return prod(ac.cast(a), dim, keepdim);
  }
  const int64_t d = wrap_dim(dim, a.dim(), "prod");
  ReducePlan p = plan_reduce(a, {d}, keepdim, "prod");
  const ScalarType rt = is_integral(a.dtype(), true) ? kLong : a.dtype();
  Tensor out = reduce_into(ReduceOp::Prod, a, p, rt);
  if (autograd::needs_grad({a})) {
    autograd::record("ProdBackward1", out, {a},
                     [sa = SavedTensor(a), keep = p.keep, d](const variable_list& g) {
                       Tensor x = sa.unpack();
                       if (x.dim() == 0) return variable_list{g[0]};
                       const int64_t n = x.size(d);
                       Tensor one = ones_like(x.narrow(d, 0, 1));
                       Tensor left = cat({one, cumprod(x.narrow(d, 0, n - 1), d)}, d);
                       Tensor xr = flip(x, {d});
                       Tensor right = flip(cat({one, cumprod(xr.narrow(d, 0, n - 1), d)}, d), {d});
                       return variable_list{g[0].reshape(keep) * left * right};
                     });
  }
  return out;
}

// ---- max / min ----
Tensor max(const Tensor& a) {
  return extreme_all(a, true);
}
Tensor min(const Tensor& a) {
  return extreme_all(a, false);
}
std::tuple<Tensor, Tensor> max(const Tensor& a, int64_t dim, bool keepdim) {
  return extreme_dim(a, dim, keepdim, true);
}
std::tuple<Tensor, Tensor> min(const Tensor& a, int64_t dim, bool keepdim) {
  return extreme_dim(a, dim, keepdim, false);
}
Tensor amax(const Tensor& a, IntArrayRef dims, bool keepdim) {
  return extreme_dims(a, dims, keepdim, true);
}
Tensor amin(const Tensor& a, IntArrayRef dims, bool keepdim) {
  return extreme_dims(a, dims, keepdim, false);
}
Tensor argmax(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(a, dim, keepdim, true);
}
Tensor argmin(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(a, dim, keepdim, false);
}

// ---- statistics ----
Tensor var(const Tensor& a, IntArrayRef dims, bool unbiased, bool keepdim) {
  return var_impl(a, dims, unbiased ? 1 : 0, keepdim, "var");
}
Tensor std(const Tensor& a, IntArrayRef dims, bool unbiased, bool keepdim) {
  return sqrt(var_impl(a, dims, unbiased ? 1 : 0, keepdim, "std"));
}
// No dims: over every element (var_impl reads an empty list as all dims, as PyTorch).
Tensor var(const Tensor& a, bool unbiased) {
  return var_impl(a, {}, unbiased ? 1 : 0, false, "var");
}
Tensor std(const Tensor& a, bool unbiased) {
  return sqrt(var_impl(a, {}, unbiased ? 1 : 0, false, "std"));
}
// libtorch 1.13's correction overloads: no dims is every dim, no correction is 1.
Tensor var(const Tensor& a, std::optional<IntArrayRef> dims, std::optional<int64_t> correction,
           bool keepdim) {
  return var_impl(a, dims.value_or(IntArrayRef{}), correction.value_or(1), keepdim, "var");
}
Tensor std(const Tensor& a, std::optional<IntArrayRef> dims, std::optional<int64_t> correction,
           bool keepdim) {
  return sqrt(var_impl(a, dims.value_or(IntArrayRef{}), correction.value_or(1), keepdim, "std"));
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& a, IntArrayRef dims, bool unbiased,
                                    bool keepdim) {
  return {var(a, dims, unbiased, keepdim), mean(a, dims, keepdim)};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& a, IntArrayRef dims, bool unbiased,
                                    bool keepdim) {
  return {std(a, dims, unbiased, keepdim), mean(a, dims, keepdim)};
}

Tensor logsumexp(const Tensor& a, IntArrayRef dims, bool keepdim) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::logsumexp, a);
    return logsumexp(ac.cast(a), dims, keepdim);
  }
  const Tensor x = is_floating_point(a.dtype()) ? a : a.to(get_default_dtype());
  ReducePlan p = plan_reduce(x, dims, keepdim, "logsumexp");
  Tensor m;
  {
    // The shift only keeps exp in range; it carries no gradient. Infinite maxima shift by 0 so
    // that inf - inf does not make NaN.
    NoGradGuard no_grad;
    m = amax(x, dims, /*keepdim=*/true);
    m = where(abs(m).eq(std::numeric_limits<double>::infinity()), Scalar(0.0), m);
  }
  Tensor r = log(sum(exp(x - m), dims, keepdim));
  return r + (keepdim ? m : m.reshape(p.result));
}

// ---- comparisons of whole tensors ----
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  check_same_device(a, b, "allclose");
  EMBER_CHECK(a.dtype() == b.dtype(), TypeError, to_string(a.dtype()), " did not match ",
              to_string(b.dtype()));
  NoGradGuard no_grad;
  Tensor close = eq(a, b);  // also equal infinities
  const bool fp = is_floating_point(a.dtype());
  const Tensor x = fp ? a : a.to(kDouble), y = fp ? b : b.to(kDouble);
  close = logical_or(close, le(abs(x - y), abs(y) * rtol + atol));
  if (equal_nan) close = logical_or(close, logical_and(isnan(a), isnan(b)));
  return close.all().item<bool>();
}

bool equal(const Tensor& a, const Tensor& b) {
  check_same_device(a, b, "equal");
  if (a.sizes() != b.sizes()) return false;
  NoGradGuard no_grad;
  return eq(a, b).all().item<bool>();
}

// ---- Tensor members ----
Tensor Tensor::sum(std::optional<ScalarType> dtype) const {
  return ember::sum(*this, dtype);
}
Tensor Tensor::sum(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::sum(*this, dims, keepdim, dtype);
}
Tensor Tensor::mean(std::optional<ScalarType> dtype) const {
  return ember::mean(*this, dtype);
}
Tensor Tensor::mean(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::mean(*this, dims, keepdim, dtype);
}
Tensor Tensor::prod() const {
  return ember::prod(*this);
}
Tensor Tensor::max() const {
  return ember::max(*this);
}
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return ember::max(*this, dim, keepdim);
}
Tensor Tensor::min() const {
  return ember::min(*this);
}
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return ember::min(*this, dim, keepdim);
}
Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const {
  return ember::amax(*this, dims, keepdim);
}
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const {
  return ember::amin(*this, dims, keepdim);
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return ember::argmax(*this, dim, keepdim);
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return ember::argmin(*this, dim, keepdim);
}
Tensor Tensor::var(IntArrayRef dims, bool unbiased, bool keepdim) const {
  return ember::var(*this, dims, unbiased, keepdim);
}
Tensor Tensor::std(IntArrayRef dims, bool unbiased, bool keepdim) const {
  return ember::std(*this, dims, unbiased, keepdim);
}
Tensor Tensor::var(bool unbiased) const {
  return ember::var(*this, unbiased);
}
Tensor Tensor::std(bool unbiased) const {
  return ember::std(*this, unbiased);
}
Tensor Tensor::var(std::optional<IntArrayRef> dims, std::optional<int64_t> correction,
                   bool keepdim) const {
  return ember::var(*this, dims, correction, keepdim);
}
Tensor Tensor::std(std::optional<IntArrayRef> dims, std::optional<int64_t> correction,
                   bool keepdim) const {
  return ember::std(*this, dims, correction, keepdim);
}
bool Tensor::allclose(const Tensor& o, double rtol, double atol, bool equal_nan) const {
  return ember::allclose(*this, o, rtol, atol, equal_nan);
}
bool Tensor::equal(const Tensor& o) const {
  return ember::equal(*this, o);
}
Tensor all(const Tensor& a) {
  return logical_reduce(a, true);
}
Tensor any(const Tensor& a) {
  return logical_reduce(a, false);
}
Tensor all(const Tensor& a, int64_t dim, bool keepdim) {
  return logical_reduce(a, true, {wrap_dim(dim, a.dim(), "all")}, keepdim);
}
Tensor any(const Tensor& a, int64_t dim, bool keepdim) {
  return logical_reduce(a, false, {wrap_dim(dim, a.dim(), "any")}, keepdim);
}
Tensor Tensor::all() const {
  return ember::all(*this);
}
Tensor Tensor::any() const {
  return ember::any(*this);
}
Tensor Tensor::all(int64_t dim, bool keepdim) const {
  return ember::all(*this, dim, keepdim);
}
Tensor Tensor::any(int64_t dim, bool keepdim) const {
  return ember::any(*this, dim, keepdim);
}
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::prod(*this, dim, keepdim, dtype);
}

// The vector p-norm over `dims` (all elements when empty; Frobenius for p = 2).
Tensor norm(const Tensor& a, const std::optional<Scalar>& p_opt, IntArrayRef dims, bool keepdim) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::norm, a);
    return norm(ac.cast(a), p_opt, dims, keepdim);
  }
  EMBER_CHECK(ember::is_floating_point(a.dtype()), ValueError,
              "norm(): input dtype should be either floating point or complex. Got ",
              to_string(a.dtype()), " instead.");
  const Scalar p = p_opt.value_or(Scalar(2.0));
  const double pv = p.toDouble();
  DimVector wrapped;
  for (int64_t d : dims) wrapped.push_back(wrap_dim(d, a.dim(), "norm"));
  const IntArrayRef rd(wrapped);
  if (pv == 2.0) {
    const Tensor x = is_reduced_precision(a.dtype()) ? a.to(kFloat) : a;
    ReducePlan plan = plan_reduce(x, rd, keepdim, "norm");
    Tensor out;
    {
      NoGradGuard no_grad;
      out = ember::sqrt(ember::sum(x * x, rd, keepdim));
    }
    if (autograd::needs_grad({x})) {
      // d|x|/dx = x / |x|, and 0 at x = 0 (as PyTorch) rather than 0/0.
      autograd::record(
          "NormBackward1", out, {x},
          [sx = SavedTensor(x), so = SavedTensor(out, true),
           keep = plan.keep](const variable_list& g) {
            Tensor n = so.unpack().reshape(keep);
            return variable_list{sx.unpack() * where(n.eq(0), Scalar(0.0), g[0].reshape(keep) / n)};
          });
    }
    return x.dtype() == a.dtype() ? out : out.to(a.dtype());
  }
  if (std::isinf(pv)) {
    return pv > 0 ? ember::abs(a).amax(rd, keepdim) : ember::abs(a).amin(rd, keepdim);
  }
  if (pv == 0.0) return a.ne(0).sum(rd, keepdim).to(a.dtype());
  if (pv == 1.0) return ember::abs(a).sum(rd, keepdim);
  return ember::pow(ember::sum(ember::pow(ember::abs(a), p), rd, keepdim), 1.0 / pv);
}

Tensor Tensor::norm(const Scalar& p) const {
  return ember::norm(*this, p, {}, false);
}
Tensor Tensor::norm(const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) const {
  return ember::norm(*this, p, dim, keepdim);
}

}  // namespace ember
