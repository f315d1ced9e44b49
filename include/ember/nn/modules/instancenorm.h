#pragma once
// InstanceNorm1d, InstanceNorm2d and InstanceNorm3d: each channel of each sample normalised over
// its positions, with optional affine parameters and running statistics (buffers, as BatchNorm's).
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/normalization.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {
namespace detail {

// What the InstanceNorm modules share; D is the number of spatial dims.
template <size_t D, typename Derived>
class EMBER_API InstanceNormImpl : public Cloneable<Derived> {
 public:
  explicit InstanceNormImpl(const InstanceNormOptions& options_) : options(options_) { reset(); }
  // Creates the parameters and running statistics (the constructor calls it; clone() too).
  void reset() override;
  void reset_running_stats();
  void reset_parameters();
  // [N, C, spatial...] or unbatched [C, spatial...].
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  InstanceNormOptions options;
  Tensor weight, bias;                                    // [C], when affine
  Tensor running_mean, running_var, num_batches_tracked;  // when track_running_stats
};

}  // namespace detail

class EMBER_API InstanceNorm1dImpl : public detail::InstanceNormImpl<1, InstanceNorm1dImpl> {
 public:
  explicit InstanceNorm1dImpl(int64_t num_features)
      : InstanceNorm1dImpl(InstanceNormOptions(num_features)) {}
  explicit InstanceNorm1dImpl(const InstanceNormOptions& options) : InstanceNormImpl(options) {}
};
EMBER_MODULE(InstanceNorm1d);

class EMBER_API InstanceNorm2dImpl : public detail::InstanceNormImpl<2, InstanceNorm2dImpl> {
 public:
  explicit InstanceNorm2dImpl(int64_t num_features)
      : InstanceNorm2dImpl(InstanceNormOptions(num_features)) {}
  explicit InstanceNorm2dImpl(const InstanceNormOptions& options) : InstanceNormImpl(options) {}
};
EMBER_MODULE(InstanceNorm2d);

class EMBER_API InstanceNorm3dImpl : public detail::InstanceNormImpl<3, InstanceNorm3dImpl> {
 public:
  explicit InstanceNorm3dImpl(int64_t num_features)
      : InstanceNorm3dImpl(InstanceNormOptions(num_features)) {}
  explicit InstanceNorm3dImpl(const InstanceNormOptions& options) : InstanceNormImpl(options) {}
};
EMBER_MODULE(InstanceNorm3d);

// Defined once, in src/nn/instance_norm.cpp.
extern template class detail::InstanceNormImpl<1, InstanceNorm1dImpl>;
extern template class detail::InstanceNormImpl<2, InstanceNorm2dImpl>;
extern template class detail::InstanceNormImpl<3, InstanceNorm3dImpl>;

}  // namespace ember::nn
