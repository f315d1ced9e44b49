// pixel_shuffle, pixel_unshuffle and channel_shuffle: a reshape, a permutation and a reshape, so
// they are views and copies that every device runs and autograd inverts. With their modules.
#include "ember/nn/modules/pixelshuffle.h"

#include "ember/nn/ops.h"
#include "ember/ops.h"

namespace ember {
namespace {

// The dims before the last three, which both ops keep.
std::vector<int64_t> leading_dims(const Tensor& input) {
  return std::vector<int64_t>(input.sizes().begin(), input.sizes().end() - 3);
}

std::vector<int64_t> concat(std::vector<int64_t> a, std::initializer_list<int64_t> b) {
  a.insert(a.end(), b);
  return a;
}

// The permutation that keeps the leading dims and orders the last five as `order`.
std::vector<int64_t> permutation(size_t leading, std::initializer_list<int64_t> order) {
  std::vector<int64_t> p;
  for (size_t i = 0; i < leading; ++i) p.push_back(static_cast<int64_t>(i));
  for (int64_t o : order) p.push_back(static_cast<int64_t>(leading) + o);
  return p;
}

}  // namespace

Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor) {
  EMBER_CHECK(input.dim() >= 3, ValueError,
              "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(upscale_factor > 0, ValueError,
              "pixel_shuffle expects a positive upscale_factor, but got ", upscale_factor);
  const int64_t r = upscale_factor, C = input.size(-3), H = input.size(-2), W = input.size(-1);
  EMBER_CHECK(C % (r * r) == 0, ValueError,
              "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
              "square of upscale_factor, but input.size(-3)=",
              C, " is not divisible by ", r * r);
  const std::vector<int64_t> lead = leading_dims(input);
  const int64_t oc = C / (r * r);
  return input.reshape(concat(lead, {oc, r, r, H, W}))
      .permute(permutation(lead.size(), {0, 3, 1, 4, 2}))
      .reshape(concat(lead, {oc, H * r, W * r}));
}

Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor) {
  EMBER_CHECK(input.dim() >= 3, ValueError,
              "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(downscale_factor > 0, ValueError,
              "pixel_unshuffle expects a positive downscale_factor, but got ", downscale_factor);
  const int64_t r = downscale_factor, C = input.size(-3), H = input.size(-2), W = input.size(-1);
  EMBER_CHECK(H % r == 0, ValueError,
              "pixel_unshuffle expects height to be divisible by downscale_factor, but "
              "input.size(-2)=",
              H, " is not divisible by ", r);
  EMBER_CHECK(W % r == 0, ValueError,
              "pixel_unshuffle expects width to be divisible by downscale_factor, but "
              "input.size(-1)=",
              W, " is not divisible by ", r);
  const std::vector<int64_t> lead = leading_dims(input);
  return input.reshape(concat(lead, {C, H / r, r, W / r, r}))
      .permute(permutation(lead.size(), {0, 2, 4, 1, 3}))
      .reshape(concat(lead, {C * r * r, H / r, W / r}));
}

Tensor channel_shuffle(const Tensor& input, int64_t groups) {
  EMBER_CHECK(input.dim() >= 3, ValueError,
              "channel_shuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(groups > 0, ValueError,
              "Number of groups to divide channels in must be positive. Value of groups:", groups);
  const int64_t C = input.size(1);
  EMBER_CHECK(C % groups == 0, ValueError, "Number of channels must be divisible by groups. Got ",
              C, " channels and ", groups, " groups.");
  std::vector<int64_t> split{input.size(0), groups, C / groups};
  split.insert(split.end(), input.sizes().begin() + 2, input.sizes().end());
  return input.reshape(split).transpose(1, 2).reshape(input.sizes());
}

namespace nn {

Tensor PixelShuffleImpl::forward(const Tensor& input) {
  return pixel_shuffle(input, options.upscale_factor());
}
void PixelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}

Tensor PixelUnshuffleImpl::forward(const Tensor& input) {
  return pixel_unshuffle(input, options.downscale_factor());
}
void PixelUnshuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}

Tensor ChannelShuffleImpl::forward(const Tensor& input) {
  return channel_shuffle(input, options.groups());
}
void ChannelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::ChannelShuffle(groups=" << options.groups() << ")";
}

}  // namespace nn
}  // namespace ember
