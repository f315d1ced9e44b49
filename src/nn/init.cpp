// nn::init with PyTorch's formulas (torch/nn/init.py).
#include "ember/nn/init.h"

#include <cmath>

#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::nn::init {
namespace {

double fan(const Tensor& t, const FanModeType& mode) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(t);
  return static_cast<double>(std::holds_alternative<enumtype::kFanIn>(mode) ? fan_in : fan_out);
}

}  // namespace

double calculate_gain(NonlinearityType nonlinearity, double param) {
  if (std::holds_alternative<enumtype::kTanh>(nonlinearity)) return 5.0 / 3.0;
  if (std::holds_alternative<enumtype::kReLU>(nonlinearity)) return std::sqrt(2.0);
  if (std::holds_alternative<enumtype::kLeakyReLU>(nonlinearity)) {
    return std::sqrt(2.0 / (1 + param * param));
  }
  return 1.0;  // linear, conv*, sigmoid
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK(tensor.dim() >= 2, ValueError,
              "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions "
              "(got shape ",
              tensor.sizes(), ")");
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

Tensor constant_(Tensor tensor, Scalar value) {
  NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}
Tensor ones_(Tensor tensor) {
  return constant_(std::move(tensor), 1);
}
Tensor zeros_(Tensor tensor) {
  NoGradGuard no_grad;
  tensor.zero_();
  return tensor;
}
Tensor uniform_(Tensor tensor, double low, double high) {
  NoGradGuard no_grad;
  tensor.uniform_(low, high);
  return tensor;
}
Tensor normal_(Tensor tensor, double mean, double std) {
  NoGradGuard no_grad;
  tensor.normal_(mean, std);
  return tensor;
}

Tensor trunc_normal_(Tensor tensor, double mean, double std, double a, double b) {
  EMBER_CHECK(std > 0 && a < b, ValueError,
              "trunc_normal_: expected std > 0 and a < b, got std=", std, ", a=", a, ", b=", b);
  const auto normal_cdf = [](double x) { return (1 + std::erf(x / std::sqrt(2.0))) / 2; };
  const double low = normal_cdf((a - mean) / std), high = normal_cdf((b - mean) / std);
  NoGradGuard no_grad;
  // erfinv of U(2 low - 1, 2 high - 1) is a standard normal truncated to the bounds, divided by
  // sqrt(2); the clamp only catches rounding at the ends.
  tensor.uniform_(2 * low - 1, 2 * high - 1);
  tensor.copy_(erfinv(tensor) * (std * std::sqrt(2.0)) + mean);
  tensor.clamp_(a, b);
  return tensor;
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(fan(tensor, mode));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -bound, bound);
}
Tensor kaiming_normal_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(fan(tensor, mode));
  return normal_(std::move(tensor), 0, std);
}
Tensor xavier_uniform_(Tensor tensor, double gain) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double bound = gain * std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  return uniform_(std::move(tensor), -bound, bound);
}
Tensor xavier_normal_(Tensor tensor, double gain) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  return normal_(std::move(tensor), 0,
                 gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out)));
}

}  // namespace ember::nn::init
