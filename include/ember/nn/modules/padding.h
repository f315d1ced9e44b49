#pragma once
// The padding modules: ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d, ConstantPad1d/2d/3d and
// ZeroPad2d, each ember::pad with its mode over the last D dims.
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/padding.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {
namespace detail {

// Options holds the padding (and a value for constant padding); Derived names the module and
// its pad() mode as kName and kMode.
template <size_t D, typename Derived, typename Options>
class EMBER_API PadImpl : public Cloneable<Derived> {
 public:
  explicit PadImpl(const Options& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  Options options;
};

}  // namespace detail

#define EMBER_PAD_MODULE(Name, D, Options, mode)                                      \
  class EMBER_API Name##Impl : public detail::PadImpl<D, Name##Impl, Options> {       \
   public:                                                                            \
    static constexpr const char* kName = #Name;                                       \
    static constexpr const char* kMode = mode;                                        \
    explicit Name##Impl(const Options& options) : PadImpl(options) {}                 \
    explicit Name##Impl(ExpandingArray<D * 2> padding) : PadImpl(Options(padding)) {} \
  };                                                                                  \
  EMBER_MODULE(Name)

EMBER_PAD_MODULE(ReflectionPad1d, 1, ReflectionPadOptions<1>, "reflect");
EMBER_PAD_MODULE(ReflectionPad2d, 2, ReflectionPadOptions<2>, "reflect");
EMBER_PAD_MODULE(ReflectionPad3d, 3, ReflectionPadOptions<3>, "reflect");
EMBER_PAD_MODULE(ReplicationPad1d, 1, ReplicationPadOptions<1>, "replicate");
EMBER_PAD_MODULE(ReplicationPad2d, 2, ReplicationPadOptions<2>, "replicate");
EMBER_PAD_MODULE(ReplicationPad3d, 3, ReplicationPadOptions<3>, "replicate");
EMBER_PAD_MODULE(ZeroPad2d, 2, ZeroPad2dOptions, "constant");
#undef EMBER_PAD_MODULE

#define EMBER_CONSTANT_PAD_MODULE(Name, D)                                                    \
  class EMBER_API Name##Impl : public detail::PadImpl<D, Name##Impl, ConstantPadOptions<D>> { \
   public:                                                                                    \
    static constexpr const char* kName = #Name;                                               \
    static constexpr const char* kMode = "constant";                                          \
    explicit Name##Impl(const ConstantPadOptions<D>& options) : PadImpl(options) {}           \
    Name##Impl(ExpandingArray<D * 2> padding, double value)                                   \
        : PadImpl(ConstantPadOptions<D>(padding, value)) {}                                   \
  };                                                                                          \
  EMBER_MODULE(Name)

EMBER_CONSTANT_PAD_MODULE(ConstantPad1d, 1);
EMBER_CONSTANT_PAD_MODULE(ConstantPad2d, 2);
EMBER_CONSTANT_PAD_MODULE(ConstantPad3d, 3);
#undef EMBER_CONSTANT_PAD_MODULE

}  // namespace ember::nn
