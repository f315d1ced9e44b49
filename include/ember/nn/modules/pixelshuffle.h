#pragma once
// PixelShuffle and PixelUnshuffle (channels to space and back) and ChannelShuffle.
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/pixelshuffle.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API PixelShuffleImpl : public Cloneable<PixelShuffleImpl> {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  PixelShuffleOptions options;
};
EMBER_MODULE(PixelShuffle);

class EMBER_API PixelUnshuffleImpl : public Cloneable<PixelUnshuffleImpl> {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  PixelUnshuffleOptions options;
};
EMBER_MODULE(PixelUnshuffle);

class EMBER_API ChannelShuffleImpl : public Cloneable<ChannelShuffleImpl> {
 public:
  explicit ChannelShuffleImpl(const ChannelShuffleOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  ChannelShuffleOptions options;
};
EMBER_MODULE(ChannelShuffle);

}  // namespace ember::nn
