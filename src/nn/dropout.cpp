// dropout and its variants (feature, alpha, feature alpha) and their modules: a Bernoulli(1 - p)
// mask, of the input's shape or one draw per channel, scaled by 1 / (1 - p) (inverted dropout) or,
// for alpha dropout, scaled and shifted so that SELU activations keep mean 0 and variance 1.
#include "ember/nn/modules/dropout.h"

#include <cmath>

#include "ember/nn/functional.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"

namespace ember {

Tensor dropout(const Tensor& input, double p, bool train) {
  EMBER_CHECK(p >= 0 && p <= 1, ValueError,
              "dropout probability has to be between 0 and 1, but got ", p);
  if (!train || p == 0 || input.numel() == 0) return input;
  if (p == 1) return input * 0;
  Tensor keep;
  {
    NoGradGuard no_grad;
    keep = (rand_like(input, input.is_floating_point() ? input.dtype() : get_default_dtype()) >=
            Scalar(p))
               .to(input.dtype())
               .mul_(1.0 / (1.0 - p));
  }
  return input * keep;
}

namespace {

void check_probability(double p) {
  EMBER_CHECK(p >= 0 && p <= 1, ValueError,
              "dropout probability has to be between 0 and 1, but got ", p);
}

// A Bernoulli(1 - p) mask in the input's dtype: of its shape, or [N, C, 1, ...] per channel.
Tensor keep_mask(const Tensor& input, double p, bool per_channel) {
  NoGradGuard no_grad;
  std::vector<int64_t> shape = input.sizes().vec();
  if (per_channel) {
    EMBER_CHECK(input.dim() >= 2, ValueError,
                "Feature dropout requires at least 2 dimensions in the input, got ", input.dim());
    for (size_t d = 2; d < shape.size(); ++d) shape[d] = 1;
  }
  const ScalarType dtype = input.is_floating_point() ? input.dtype() : get_default_dtype();
  return (rand(shape, input.options().dtype(dtype)) >= Scalar(p)).to(input.dtype());
}

Tensor inverted_dropout(const Tensor& input, double p, bool train, bool per_channel) {
  check_probability(p);
  if (!train || p == 0 || input.numel() == 0) return input;
  if (p == 1) return input * 0;
  return input * keep_mask(input, p, per_channel).mul_(1.0 / (1.0 - p));
}

Tensor alpha_dropout_impl(const Tensor& input, double p, bool train, bool per_channel) {
  check_probability(p);
  if (!train || p == 0 || input.numel() == 0) return input;
  // SELU's negative saturation, -scale * alpha; a and b restore mean 0 and variance 1.
  constexpr double kAlpha = 1.7580993408473766;
  const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  Tensor keep = keep_mask(input, p, per_channel);
  Tensor shift;
  {
    NoGradGuard no_grad;
    shift = (keep - 1).mul_(kAlpha * a).add_(kAlpha * a * p);
  }
  return input * keep.mul_(a) + shift;
}

}  // namespace

Tensor feature_dropout(const Tensor& input, double p, bool train) {
  return inverted_dropout(input, p, train, /*per_channel=*/true);
}

Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  return alpha_dropout_impl(input, p, train, /*per_channel=*/false);
}

Tensor feature_alpha_dropout(const Tensor& input, double p, bool train) {
  return alpha_dropout_impl(input, p, train, /*per_channel=*/true);
}

namespace nn {

DropoutImpl::DropoutImpl(const DropoutOptions& options_) : options(options_) {
  EMBER_CHECK(options.p() >= 0 && options.p() <= 1, ValueError,
              "dropout probability has to be between 0 and 1, but got ", options.p());
}

Tensor DropoutImpl::forward(Tensor input) {
  return functional::dropout(input, functional::DropoutFuncOptions()
                                        .p(options.p())
                                        .training(is_training())
                                        .inplace(options.inplace()));
}

void DropoutImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::Dropout(p=" << options.p()
         << ", inplace=" << options.inplace() << ")";
}

namespace detail {

template <typename Derived>
DropoutVariantImpl<Derived>::DropoutVariantImpl(const DropoutOptions& options_)
    : options(options_) {
  check_probability(options.p());
}

template <typename Derived>
Tensor DropoutVariantImpl<Derived>::forward(Tensor input) {
  const bool unbatched = input.dim() == Derived::kUnbatchedDims;
  Tensor out =
      Derived::kFunction(unbatched ? input.unsqueeze(0) : input, options.p(), this->is_training());
  if (unbatched) out = out.squeeze(0);
  return options.inplace() && !out.is_same(input) ? input.copy_(out) : out;
}

template <typename Derived>
void DropoutVariantImpl<Derived>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::" << Derived::kName << "(p=" << options.p()
         << ", inplace=" << options.inplace() << ")";
}

template class DropoutVariantImpl<Dropout1dImpl>;
template class DropoutVariantImpl<Dropout2dImpl>;
template class DropoutVariantImpl<Dropout3dImpl>;
template class DropoutVariantImpl<AlphaDropoutImpl>;
template class DropoutVariantImpl<FeatureAlphaDropoutImpl>;

}  // namespace detail
}  // namespace nn
}  // namespace ember
