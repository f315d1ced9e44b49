// dropout and Dropout: a Bernoulli(1 - p) mask scaled by 1 / (1 - p) (inverted dropout).
#include "ember/nn/modules/dropout.h"

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

}  // namespace nn
}  // namespace ember
