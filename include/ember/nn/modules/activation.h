#pragma once
// Activation layers: ReLU, LeakyReLU, ELU, Softplus, Hardtanh, GELU, SiLU, Sigmoid, Tanh,
// Softmax, LogSoftmax, ReLU6, SELU, CELU, Hardshrink, Softshrink, Threshold, GLU, PReLU, Softmin,
// Mish, Hardswish, Hardsigmoid, Softsign, Tanhshrink, LogSigmoid, RReLU, Softmax2d.
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/activation.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  void reset() override {}
  explicit ReLUImpl(const ReLUOptions& options = {});
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  ReLUOptions options;
};
EMBER_MODULE(ReLU);

class EMBER_API LeakyReLUImpl : public Cloneable<LeakyReLUImpl> {
 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options = {});
  void reset() override;
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  LeakyReLUOptions options;
};
EMBER_MODULE(LeakyReLU);

class EMBER_API ELUImpl : public Cloneable<ELUImpl> {
 public:
  explicit ELUImpl(const ELUOptions& options = {});
  void reset() override;
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  ELUOptions options;
};
EMBER_MODULE(ELU);

class EMBER_API SoftplusImpl : public Cloneable<SoftplusImpl> {
 public:
  explicit SoftplusImpl(const SoftplusOptions& options = {});
  void reset() override;
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  SoftplusOptions options;
};
EMBER_MODULE(Softplus);

class EMBER_API HardtanhImpl : public Cloneable<HardtanhImpl> {
 public:
  explicit HardtanhImpl(const HardtanhOptions& options = {});
  void reset() override;
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  HardtanhOptions options;
};
EMBER_MODULE(Hardtanh);

class EMBER_API GELUImpl : public Cloneable<GELUImpl> {
 public:
  void reset() override {}
  explicit GELUImpl(GELUOptions options = {});
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  GELUOptions options;
};
EMBER_MODULE(GELU);

class EMBER_API SiLUImpl : public Cloneable<SiLUImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(SiLU);

class EMBER_API SigmoidImpl : public Cloneable<SigmoidImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Sigmoid);

class EMBER_API TanhImpl : public Cloneable<TanhImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Tanh);

class EMBER_API SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  void reset() override {}
  explicit SoftmaxImpl(int64_t dim) : SoftmaxImpl(SoftmaxOptions(dim)) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  SoftmaxOptions options;
};
EMBER_MODULE(Softmax);

class EMBER_API LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
 public:
  void reset() override {}
  explicit LogSoftmaxImpl(int64_t dim) : LogSoftmaxImpl(LogSoftmaxOptions(dim)) {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  LogSoftmaxOptions options;
};
EMBER_MODULE(LogSoftmax);

// A module with options: forward(input) and libtorch's printout.
#define EMBER_ACTIVATION_WITH_OPTIONS(Name, Input)            \
  class EMBER_API Name##Impl : public Cloneable<Name##Impl> { \
   public:                                                    \
    explicit Name##Impl(const Name##Options& options_ = {});  \
    void reset() override;                                    \
    Tensor forward(Input input);                              \
    void pretty_print(std::ostream& stream) const override;   \
    Name##Options options;                                    \
  };                                                          \
  EMBER_MODULE(Name)
// A module without options: forward(input) and its name as printout.
#define EMBER_ACTIVATION(Name)                                \
  class EMBER_API Name##Impl : public Cloneable<Name##Impl> { \
   public:                                                    \
    void reset() override {}                                  \
    Tensor forward(const Tensor& input);                      \
    void pretty_print(std::ostream& stream) const override;   \
  };                                                          \
  EMBER_MODULE(Name)

EMBER_ACTIVATION_WITH_OPTIONS(ReLU6, Tensor);
EMBER_ACTIVATION_WITH_OPTIONS(SELU, Tensor);
EMBER_ACTIVATION_WITH_OPTIONS(CELU, Tensor);
EMBER_ACTIVATION_WITH_OPTIONS(Hardshrink, const Tensor&);
EMBER_ACTIVATION_WITH_OPTIONS(Softshrink, const Tensor&);
EMBER_ACTIVATION_WITH_OPTIONS(GLU, const Tensor&);
EMBER_ACTIVATION(Mish);
EMBER_ACTIVATION(Hardswish);
EMBER_ACTIVATION(Hardsigmoid);
EMBER_ACTIVATION(Softsign);
EMBER_ACTIVATION(Tanhshrink);
EMBER_ACTIVATION(LogSigmoid);
// Softmax over the channels of [N, C, H, W] or [C, H, W] (dim -3).
EMBER_ACTIVATION(Softmax2d);
// Random slopes in training (is_training()), their mean in evaluation.
EMBER_ACTIVATION_WITH_OPTIONS(RReLU, Tensor);
#undef EMBER_ACTIVATION
#undef EMBER_ACTIVATION_WITH_OPTIONS

class EMBER_API ThresholdImpl : public Cloneable<ThresholdImpl> {
 public:
  ThresholdImpl(double threshold, double value)
      : ThresholdImpl(ThresholdOptions(threshold, value)) {}
  explicit ThresholdImpl(const ThresholdOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  ThresholdOptions options;
};
EMBER_MODULE(Threshold);

class EMBER_API SoftminImpl : public Cloneable<SoftminImpl> {
 public:
  explicit SoftminImpl(int64_t dim) : SoftminImpl(SoftminOptions(dim)) {}
  explicit SoftminImpl(const SoftminOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  SoftminOptions options;
};
EMBER_MODULE(Softmin);

// leaky_relu with learned slopes: `weight` holds num_parameters of them, each starting at init.
class EMBER_API PReLUImpl : public Cloneable<PReLUImpl> {
 public:
  explicit PReLUImpl(const PReLUOptions& options_ = {});
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  PReLUOptions options;
  Tensor weight;  // [num_parameters]
};
EMBER_MODULE(PReLU);

}  // namespace ember::nn
