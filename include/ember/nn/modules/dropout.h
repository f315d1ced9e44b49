#pragma once
// Dropout: zeroes elements with probability p in training and scales the rest by 1 / (1 - p);
// the identity in eval().
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/ops.h"
#include "ember/nn/options/dropout.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  void reset() override {}
  explicit DropoutImpl(const DropoutOptions& options = {});
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  DropoutOptions options;
};
EMBER_MODULE(Dropout);

namespace detail {

// Dropout1d/2d/3d (whole channels), AlphaDropout and FeatureAlphaDropout: Derived names its
// function (kFunction), itself (kName) and the rank of an unbatched input (kUnbatchedDims, 0 for
// none), which gets a batch dim of 1 for the call.
template <typename Derived>
class EMBER_API DropoutVariantImpl : public Cloneable<Derived> {
 public:
  explicit DropoutVariantImpl(const DropoutOptions& options_ = {});
  void reset() override {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  DropoutOptions options;
};

}  // namespace detail

#define EMBER_DROPOUT_VARIANT(Name, function, unbatched_dims)                                \
  class EMBER_API Name##Impl : public detail::DropoutVariantImpl<Name##Impl> {               \
   public:                                                                                   \
    static constexpr const char* kName = #Name;                                              \
    static constexpr int64_t kUnbatchedDims = unbatched_dims;                                \
    static constexpr Tensor (*kFunction)(const Tensor&, double, bool) = &function;           \
    explicit Name##Impl(const DropoutOptions& options = {}) : DropoutVariantImpl(options) {} \
  };                                                                                         \
  EMBER_MODULE(Name)

EMBER_DROPOUT_VARIANT(Dropout1d, ::ember::feature_dropout, 2);
EMBER_DROPOUT_VARIANT(Dropout2d, ::ember::feature_dropout, 0);  // 3-D input is [N, C, L]
EMBER_DROPOUT_VARIANT(Dropout3d, ::ember::feature_dropout, 4);
EMBER_DROPOUT_VARIANT(AlphaDropout, ::ember::alpha_dropout, 0);
EMBER_DROPOUT_VARIANT(FeatureAlphaDropout, ::ember::feature_alpha_dropout, 0);
#undef EMBER_DROPOUT_VARIANT
using Dropout1dOptions = DropoutOptions;
using Dropout2dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;
using AlphaDropoutOptions = DropoutOptions;
using FeatureAlphaDropoutOptions = DropoutOptions;

}  // namespace ember::nn
