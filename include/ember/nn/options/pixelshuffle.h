#pragma once
// Options of PixelShuffle, PixelUnshuffle, ChannelShuffle and their functional forms.
#include <cstdint>

#include "ember/nn/arg.h"

namespace ember::nn {

struct PixelShuffleOptions {
  PixelShuffleOptions(int64_t upscale_factor)  // NOLINT: implicit as in libtorch
      : upscale_factor_(upscale_factor) {}
  EMBER_ARG(int64_t, upscale_factor);
};

struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(int64_t downscale_factor)  // NOLINT: implicit as in libtorch
      : downscale_factor_(downscale_factor) {}
  EMBER_ARG(int64_t, downscale_factor);
};

struct ChannelShuffleOptions {
  ChannelShuffleOptions(int64_t groups) : groups_(groups) {}  // NOLINT: implicit
  EMBER_ARG(int64_t, groups);
};

namespace functional {
using PixelShuffleFuncOptions = PixelShuffleOptions;
using PixelUnshuffleFuncOptions = PixelUnshuffleOptions;
}  // namespace functional

}  // namespace ember::nn
