#pragma once
// BatchNorm1d, BatchNorm2d and BatchNorm3d with running statistics kept as buffers (running_mean,
// running_var, num_batches_tracked), so they move with to() and appear in state_dict().
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/normalization.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API BatchNormImplBase : public Module {
 public:
  BatchNormImplBase(const BatchNormOptions& options, int64_t dims);
  // Creates the parameters and running statistics (the constructor calls it; clone() too).
  virtual void reset();
  Tensor forward(const Tensor& input);
  void reset_running_stats();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  BatchNormOptions options;
  Tensor weight, bias;                                    // [C], when affine
  Tensor running_mean, running_var, num_batches_tracked;  // when track_running_stats

 private:
  virtual void check_input_dim(const Tensor& input) const = 0;
  int64_t dims_;
};

class EMBER_API BatchNorm1dImpl : public BatchNormImplBase {
  EMBER_CLONEABLE(BatchNorm1dImpl)
  explicit BatchNorm1dImpl(int64_t num_features)
      : BatchNorm1dImpl(BatchNormOptions(num_features)) {}
  explicit BatchNorm1dImpl(const BatchNormOptions& options) : BatchNormImplBase(options, 1) {}

 private:
  void check_input_dim(const Tensor& input) const override;
};
EMBER_MODULE(BatchNorm1d);

class EMBER_API BatchNorm2dImpl : public BatchNormImplBase {
  EMBER_CLONEABLE(BatchNorm2dImpl)
  explicit BatchNorm2dImpl(int64_t num_features)
      : BatchNorm2dImpl(BatchNormOptions(num_features)) {}
  explicit BatchNorm2dImpl(const BatchNormOptions& options) : BatchNormImplBase(options, 2) {}

 private:
  void check_input_dim(const Tensor& input) const override;
};
EMBER_MODULE(BatchNorm2d);

class EMBER_API BatchNorm3dImpl : public BatchNormImplBase {
  EMBER_CLONEABLE(BatchNorm3dImpl)
  explicit BatchNorm3dImpl(int64_t num_features)
      : BatchNorm3dImpl(BatchNormOptions(num_features)) {}
  explicit BatchNorm3dImpl(const BatchNormOptions& options) : BatchNormImplBase(options, 3) {}

 private:
  void check_input_dim(const Tensor& input) const override;
};
EMBER_MODULE(BatchNorm3d);

}  // namespace ember::nn
