// Helpers shared by the parity suites (see test_util.h).
#include "support/test_util.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <utility>

#include "ember/autograd.h"
#include "ember/cuda.h"
#include "support/torch_oracle.h"

namespace ember::testing {

std::string source_dir() {
  if (const char* env = std::getenv("EMBER_SOURCE_DIR"); env && *env) return env;
  struct stat st;
  if (::stat(EMBER_SOURCE_DIR "/tests/support", &st) == 0) return EMBER_SOURCE_DIR;
  return ".";
}

std::string support_dir() {
  return source_dir() + "/tests/support";
}

std::vector<Device> cuda_devices() {
  std::vector<Device> out;
  if (!cuda::is_available()) return out;
  for (int i = 0; i < cuda::device_count(); ++i) {
    out.emplace_back(kCUDA, static_cast<DeviceIndex>(i));
  }
  return out;
}

std::vector<Device> test_devices() {
  std::vector<Device> out = {Device(kCPU)};
  for (const Device& d : cuda_devices()) out.push_back(d);
  return out;
}

const char* domain_name(Domain d) {
  switch (d) {
    case Domain::Normal:
      return "normal";
    case Domain::Positive:
      return "positive";
    case Domain::Unit:
      return "unit";
    case Domain::AwayFromZero:
      return "away-from-zero";
    case Domain::SmallInt:
      return "small-int";
    case Domain::Index:
      return "index";
    case Domain::Bool:
      return "bool";
  }
  return "?";
}

uint64_t seed_for(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h;
}

namespace {

// Random signs: -1 or +1 in float64.
Tensor random_signs(IntArrayRef shape) {
  return where(rand(shape, kDouble) < 0.5, -1.0, ones(shape, kDouble));
}

}  // namespace

Tensor make_input(const InputSpec& spec, uint64_t seed) {
  NoGradGuard no_grad;
  manual_seed(seed);
  const IntArrayRef shape(spec.shape);
  if (spec.domain == Domain::Index) {
    EMBER_CHECK(spec.high > 0, ValueError, "make_input: Domain::Index needs high > 0");
    return randint(0, spec.high, shape, kLong).to(spec.dtype);
  }
  if (spec.dtype == kBool || spec.domain == Domain::Bool) {
    return randint(0, 2, shape, kLong).to(kBool).to(spec.dtype);
  }
  if (!is_floating_point(spec.dtype) || spec.domain == Domain::SmallInt) {
    // Integer dtypes: small integers whose sign follows the domain.
    switch (spec.domain) {
      case Domain::Positive:
        return randint(1, 6, shape, kLong).to(spec.dtype);
      case Domain::AwayFromZero:
        return (randint(1, 6, shape, kLong) * random_signs(shape).to(kLong)).to(spec.dtype);
      case Domain::SmallInt:
        return randint(-3, 4, shape, kLong).to(spec.dtype);
      default:
        return randint(-10, 11, shape, kLong).to(spec.dtype);
    }
  }
  Tensor u = rand(shape, kDouble);
  Tensor x;
  switch (spec.domain) {
    case Domain::Positive:
      x = u * 1.5 + 0.5;
      break;
    case Domain::Unit:
      x = u * 1.8 - 0.9;
      break;
    case Domain::AwayFromZero:
      x = (u * 1.5 + 0.5) * random_signs(shape);
      break;
    default:
      x = randn(shape, kDouble);
      break;
  }
  return x.to(spec.dtype);
}

Tensor make_input(std::vector<int64_t> shape, ScalarType dtype, uint64_t seed) {
  InputSpec spec;
  spec.shape = std::move(shape);
  spec.dtype = dtype;
  spec.domain = is_floating_point(dtype) ? Domain::Normal : Domain::SmallInt;
  return make_input(spec, seed);
}

std::map<std::string, Tensor> torch_run(const std::string& py,
                                        const std::map<std::string, Tensor>& in,
                                        const std::vector<std::string>& out) {
  return TorchOracle::instance().run(py, in, out);
}

Tensor non_contiguous(const Tensor& t) {
  NoGradGuard no_grad;
  if (t.dim() == 0 || t.numel() <= 1) return t;
  const int64_t nd = t.dim();
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  Tensor view;
  if (nd >= 2 && sizes[nd - 1] > 1 && sizes[nd - 2] > 1) {
    std::swap(sizes[nd - 1], sizes[nd - 2]);
    view = empty(sizes, t.options()).transpose(-1, -2);
  } else {
    // Every other element along the first dim longer than 1.
    int64_t d = 0;
    while (sizes[d] == 1) ++d;
    sizes[d] *= 2;
    view = empty(sizes, t.options()).slice(d, 0, sizes[d], 2);
  }
  view.copy_(t);
  EMBER_CHECK(!view.is_contiguous(), Error, "non_contiguous: layout for shape ", t.sizes(),
              " came out contiguous");
  return view;
}

void expect_gradients_match_finite_differences(const TensorFn& f, const std::vector<Tensor>& inputs,
                                               Device device, const std::string& context,
                                               double eps, double rtol, double atol) {
  // CPU float64 masters that the finite differences perturb in place.
  std::vector<Tensor> base;
  std::vector<bool> differentiable;
  for (const Tensor& x : inputs) {
    bool fp = x.is_floating_point();
    differentiable.push_back(fp);
    base.push_back(fp ? x.to(kDouble, false, /*copy=*/true).contiguous() : x);
  }
  auto on_device = [&](bool track) {
    std::vector<Tensor> xs;
    for (size_t i = 0; i < base.size(); ++i) {
      Tensor t = base[i].to(device, false, /*copy=*/true);
      if (track && differentiable[i]) t.requires_grad_(true);
      xs.push_back(t);
    }
    return xs;
  };

  std::vector<Tensor> xs = on_device(true);
  Tensor out = f(xs);
  ASSERT_TRUE(out.is_floating_point())
      << context << ": a differentiable op returned dtype " << out.dtype();
  ASSERT_TRUE(out.requires_grad()) << context << ": the output does not require grad";
  manual_seed(seed_for(context + "/cotangent"));
  Tensor v = randn(out.sizes(), kDouble).to(device);
  (out * v).sum().backward();

  auto loss = [&]() {
    NoGradGuard no_grad;
    return (f(on_device(false)) * v).sum().item<double>();
  };
  for (size_t i = 0; i < base.size(); ++i) {
    if (!differentiable[i]) continue;
    const Tensor& g = xs[i].grad();
    Tensor analytic = g.defined() ? g.cpu() : zeros_like(base[i]);
    Tensor numeric = empty_like(base[i]);
    double* p = base[i].data_ptr<double>();
    double* pn = numeric.data_ptr<double>();
    for (int64_t j = 0; j < base[i].numel(); ++j) {
      const double orig = p[j];
      p[j] = orig + eps;
      const double plus = loss();
      p[j] = orig - eps;
      const double minus = loss();
      p[j] = orig;
      pn[j] = (plus - minus) / (2 * eps);
    }
    expect_close(analytic, numeric, rtol, atol,
                 detail::str_cat(context, ": gradient of input ", i, " on ", device,
                                 " (autograd vs central differences)"));
  }
}

}  // namespace ember::testing
