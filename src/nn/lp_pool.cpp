// lp_pool1d, lp_pool2d and LPPool1d/2d: PyTorch's composition, the average pool of x^p scaled
// back to a sum, then the p-th root: (sign(s) * relu(|s|) * window size)^(1/p) for s the average.
#include "ember/nn/modules/pooling.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"

namespace ember {
namespace {

Tensor root_of_sum(const Tensor& average, double norm_type, int64_t window) {
  return (sign(average) * relu(abs(average))).mul(static_cast<double>(window)).pow(1.0 / norm_type);
}

}  // namespace

Tensor lp_pool1d(const Tensor& input, double norm_type, ExpandingArray<1> kernel_size,
                 std::optional<ExpandingArray<1>> stride, bool ceil_mode) {
  Tensor average = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode);
  return root_of_sum(average, norm_type, kernel_size[0]);
}

Tensor lp_pool2d(const Tensor& input, double norm_type, ExpandingArray<2> kernel_size,
                 std::optional<ExpandingArray<2>> stride, bool ceil_mode) {
  Tensor average = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode);
  return root_of_sum(average, norm_type, kernel_size[0] * kernel_size[1]);
}

namespace nn {

Tensor LPPool1dImpl::forward(const Tensor& input) {
  return ember::lp_pool1d(input, options.norm_type(), options.kernel_size(), options.stride(),
                          options.ceil_mode());
}
void LPPool1dImpl::pretty_print(std::ostream& stream) const {
  // libtorch prints a one-element size as a number.
  stream << std::boolalpha << "ember::nn::LPPool1d(norm_type=" << options.norm_type()
         << ", kernel_size=" << options.kernel_size()[0] << ", stride=" << options.stride()[0]
         << ", ceil_mode=" << options.ceil_mode() << ")";
}

Tensor LPPool2dImpl::forward(const Tensor& input) {
  return ember::lp_pool2d(input, options.norm_type(), options.kernel_size(), options.stride(),
                          options.ceil_mode());
}
void LPPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::LPPool2d(norm_type=" << options.norm_type()
         << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
         << ", ceil_mode=" << options.ceil_mode() << ")";
}

}  // namespace nn
}  // namespace ember
