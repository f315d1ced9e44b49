// The distributions beyond uniform and normal (exponential_, geometric_, cauchy_, log_normal_,
// bernoulli, random_, normal with tensor parameters), drawn from the default Philox generator.
// Each is the inverse CDF of uniform draws (or a scaled normal draw) written with device-agnostic
// ops, so every device gives the same numbers for the same seed and no backend needs a kernel of
// its own. The values differ from PyTorch's (another generator); the distributions do not.
#include <cmath>
#include <limits>

#include "autograd/record.h"
#include "core/generator.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember {
namespace {

// Uniform draws in [0, 1) of self's shape and device, in float32 for 16-bit tensors (whose own
// rounding would make 1 - u reach 0) and in self's dtype otherwise.
Tensor uniform_like(const Tensor& self) {
  const ScalarType dt = self.dtype() == kDouble ? kDouble : kFloat;
  return empty(self.sizes(), TensorOptions(dt).device(self.device())).uniform_();
}

// Writes `values` into self in place (no graph: sampling is not differentiable).
Tensor& write(const Tensor& self, const Tensor& values, const char* op) {
  autograd::check_inplace_allowed(self, op);
  NoGradGuard no_grad;
  self.copy_(values);
  return const_cast<Tensor&>(self);
}

void check_floating(const Tensor& self, const char* op) {
  EMBER_CHECK(is_floating_point(self.dtype()), TypeError, op, " is not implemented for dtype ",
              to_string(self.dtype()), " (expected a floating point tensor)");
}

// The largest integer random_() draws for a dtype: what the dtype holds exactly (the mantissa's
// range for floating types), capped at 2^53 so that the bound survives Backend::random's double.
int64_t random_upper_bound(ScalarType dt) {
  switch (dt) {
    case kBool:
      return 2;
    case kByte:
      return 256;
    case kChar:
      return 128;
    case kShort:
      return int64_t{1} << 15;
    case kInt:
      return int64_t{1} << 31;
    case kHalf:
      return (int64_t{1} << 11) + 1;
    case kBFloat16:
      return (int64_t{1} << 8) + 1;
    case kFloat:
      return (int64_t{1} << 24) + 1;
    default:
      return int64_t{1} << 53;  // int64 and double
  }
}

}  // namespace

Tensor& Tensor::exponential_(double lambd) const {
  check_floating(*this, "exponential_");
  EMBER_CHECK(lambd >= 0.0, ValueError,
              "exponential_ expects lambda >= 0.0, but found lambda=", lambd);
  // -log(1 - u) / lambda: 1 - u lies in (0, 1], so the log is finite.
  Tensor u = uniform_like(*this);
  return write(*this, ember::neg(ember::log1p(ember::neg(u))) / lambd, "exponential_");
}

Tensor& Tensor::geometric_(double p) const {
  EMBER_CHECK(p > 0.0 && p < 1.0, ValueError,
              "geometric_ expects p to be in (0, 1), but got p=", p);
  // The number of Bernoulli(p) trials up to the first success: ceil(log(1 - u) / log(1 - p)),
  // at least 1.
  Tensor u = uniform_like(*this);
  Tensor k = ember::ceil(ember::log1p(ember::neg(u)) / std::log1p(-p)).clamp_min(1);
  return write(*this, k, "geometric_");
}

Tensor& Tensor::cauchy_(double median, double sigma) const {
  check_floating(*this, "cauchy_");
  EMBER_CHECK(sigma > 0.0, ValueError, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  Tensor u = uniform_like(*this);
  return write(*this, ember::tan((u - 0.5) * M_PI) * sigma + median, "cauchy_");
}

Tensor& Tensor::log_normal_(double mean, double std) const {
  check_floating(*this, "log_normal_");
  EMBER_CHECK(std > 0.0, ValueError, "log_normal_ expects std > 0.0, but found std=", std);
  const ScalarType dt = dtype() == kDouble ? kDouble : kFloat;
  Tensor z = empty(sizes(), TensorOptions(dt).device(device())).normal_(mean, std);
  return write(*this, ember::exp(z), "log_normal_");
}

Tensor& Tensor::bernoulli_(double p) const {
  EMBER_CHECK(p >= 0.0 && p <= 1.0, ValueError,
              "bernoulli_ expects p to be in [0, 1], but got p=", p);
  return write(*this, ember::lt(uniform_like(*this), p), "bernoulli_");
}

Tensor& Tensor::bernoulli_(const Tensor& p) const {
  EMBER_CHECK(p.device() == device(), ValueError, "bernoulli_: p is on ", p.device().str(),
              " but self is on ", device().str());
  // Probabilities are not range-checked: reading them back would make the host wait for the
  // device (PyTorch checks CPU tensors only; values outside [0, 1] clamp here).
  return write(*this, ember::lt(uniform_like(*this), p.detach()), "bernoulli_");
}

Tensor& Tensor::random_(int64_t from, std::optional<int64_t> to) const {
  autograd::check_inplace_allowed(*this, "random_");
  const int64_t high = to.value_or(random_upper_bound(dtype()));
  Tensor drawn = randint(from, high, sizes(), TensorOptions(dtype()).device(device()));
  return write(*this, drawn, "random_");
}

Tensor& Tensor::random_(int64_t to) const {
  return random_(0, to);
}

Tensor& Tensor::random_() const {
  return random_(0, std::nullopt);
}

Tensor bernoulli(const Tensor& p) {
  check_floating(p, "bernoulli");
  return ember::lt(uniform_like(p), p.detach()).to(p.dtype());
}

Tensor bernoulli(const Tensor& self, double p) {
  Tensor out = empty_like(self);
  out.bernoulli_(p);
  return out;
}

Tensor Tensor::bernoulli() const {
  return ember::bernoulli(*this);
}

Tensor Tensor::bernoulli(double p) const {
  return ember::bernoulli(*this, p);
}

Tensor normal(const Tensor& mean, const Tensor& std) {
  check_floating(mean, "normal");
  check_floating(std, "normal");
  if (!std.device().is_cuda()) {  // a CUDA check would make the host wait for the device
    EMBER_CHECK(!ember::lt(std.detach(), 0).any().item<bool>(), ValueError,
                "normal expects all elements of std >= 0.0");
  }
  NoGradGuard no_grad;
  Tensor shape = ember::add(mean.detach(), std.detach());  // the broadcast shape and dtype
  Tensor z = empty_like(shape).normal_();
  return mean.detach() + std.detach() * z;
}

Tensor normal(const Tensor& mean, double std) {
  EMBER_CHECK(std >= 0.0, ValueError, "normal expects std >= 0.0, but found std ", std);
  check_floating(mean, "normal");
  NoGradGuard no_grad;
  return mean.detach() + empty_like(mean).normal_() * std;
}

Tensor normal(double mean, const Tensor& std) {
  return normal(full_like(std, mean), std);
}

}  // namespace ember
