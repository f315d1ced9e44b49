#pragma once
// The tag constants of libtorch's option variants (ember::kMean, ember::kFanIn, ...) and ATen's
// integer Reduction codes used by the free functions ember::mse_loss / ember::nll_loss.
#include <cstdint>
#include <string>
#include <variant>

namespace ember {

namespace enumtype {
#define EMBER_ENUM_TAG(Name, text)                       \
  struct Name {                                          \
    static constexpr const char* name() { return text; } \
  };
EMBER_ENUM_TAG(kNone, "none")
EMBER_ENUM_TAG(kMean, "mean")
EMBER_ENUM_TAG(kSum, "sum")
EMBER_ENUM_TAG(kMax, "max")
EMBER_ENUM_TAG(kFanIn, "fan_in")
EMBER_ENUM_TAG(kFanOut, "fan_out")
EMBER_ENUM_TAG(kLinear, "linear")
EMBER_ENUM_TAG(kConv1D, "conv1d")
EMBER_ENUM_TAG(kConv2D, "conv2d")
EMBER_ENUM_TAG(kConv3D, "conv3d")
EMBER_ENUM_TAG(kConvTranspose1D, "conv_transpose1d")
EMBER_ENUM_TAG(kConvTranspose2D, "conv_transpose2d")
EMBER_ENUM_TAG(kConvTranspose3D, "conv_transpose3d")
EMBER_ENUM_TAG(kSigmoid, "sigmoid")
EMBER_ENUM_TAG(kTanh, "tanh")
EMBER_ENUM_TAG(kReLU, "relu")
EMBER_ENUM_TAG(kLeakyReLU, "leaky_relu")
EMBER_ENUM_TAG(kZeros, "zeros")
EMBER_ENUM_TAG(kValid, "valid")
EMBER_ENUM_TAG(kSame, "same")
EMBER_ENUM_TAG(kConstant, "constant")
EMBER_ENUM_TAG(kReflect, "reflect")
EMBER_ENUM_TAG(kReplicate, "replicate")
EMBER_ENUM_TAG(kCircular, "circular")
EMBER_ENUM_TAG(kBorder, "border")
EMBER_ENUM_TAG(kReflection, "reflection")
EMBER_ENUM_TAG(kNearest, "nearest")
EMBER_ENUM_TAG(kNearestExact, "nearest-exact")
EMBER_ENUM_TAG(kBilinear, "bilinear")
EMBER_ENUM_TAG(kBicubic, "bicubic")
EMBER_ENUM_TAG(kTrilinear, "trilinear")
EMBER_ENUM_TAG(kArea, "area")
EMBER_ENUM_TAG(kBatchMean, "batchmean")
EMBER_ENUM_TAG(kLSTM, "LSTM")
EMBER_ENUM_TAG(kGRU, "GRU")
EMBER_ENUM_TAG(kRNN_TANH, "RNN_TANH")
EMBER_ENUM_TAG(kRNN_RELU, "RNN_RELU")
#undef EMBER_ENUM_TAG
}  // namespace enumtype

constexpr enumtype::kNone kNone{};
constexpr enumtype::kMean kMean{};
constexpr enumtype::kSum kSum{};
constexpr enumtype::kMax kMax{};
constexpr enumtype::kFanIn kFanIn{};
constexpr enumtype::kFanOut kFanOut{};
constexpr enumtype::kLinear kLinear{};
constexpr enumtype::kConv1D kConv1D{};
constexpr enumtype::kConv2D kConv2D{};
constexpr enumtype::kConv3D kConv3D{};
constexpr enumtype::kConvTranspose1D kConvTranspose1D{};
constexpr enumtype::kConvTranspose2D kConvTranspose2D{};
constexpr enumtype::kConvTranspose3D kConvTranspose3D{};
constexpr enumtype::kSigmoid kSigmoid{};
constexpr enumtype::kTanh kTanh{};
constexpr enumtype::kReLU kReLU{};
constexpr enumtype::kLeakyReLU kLeakyReLU{};
constexpr enumtype::kZeros kZeros{};
constexpr enumtype::kValid kValid{};
constexpr enumtype::kSame kSame{};
constexpr enumtype::kConstant kConstant{};
constexpr enumtype::kReflect kReflect{};
constexpr enumtype::kReplicate kReplicate{};
constexpr enumtype::kCircular kCircular{};
constexpr enumtype::kBorder kBorder{};
constexpr enumtype::kReflection kReflection{};
constexpr enumtype::kNearest kNearest{};
constexpr enumtype::kNearestExact kNearestExact{};
constexpr enumtype::kBilinear kBilinear{};
constexpr enumtype::kBicubic kBicubic{};
constexpr enumtype::kTrilinear kTrilinear{};
constexpr enumtype::kArea kArea{};
constexpr enumtype::kBatchMean kBatchMean{};
constexpr enumtype::kLSTM kLSTM{};
constexpr enumtype::kGRU kGRU{};
constexpr enumtype::kRNN_TANH kRNN_TANH{};
constexpr enumtype::kRNN_RELU kRNN_RELU{};

// The name of whichever tag a variant holds ("mean", "fan_in", ...).
template <typename... Tags>
std::string enum_name(const std::variant<Tags...>& v) {
  return std::visit([](const auto& tag) { return std::string(tag.name()); }, v);
}

// ATen's reduction codes, as taken by ember::mse_loss(input, target, reduction).
namespace Reduction {
enum Reduction { None = 0, Mean = 1, Sum = 2, END };
}

namespace nn {
using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;
// The ATen code of a reduction tag.
inline int64_t reduction_code(const reduction_t& r) {
  return std::holds_alternative<enumtype::kNone>(r)   ? Reduction::None
         : std::holds_alternative<enumtype::kMean>(r) ? Reduction::Mean
                                                      : Reduction::Sum;
}
}  // namespace nn

}  // namespace ember
