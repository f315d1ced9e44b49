#include "ember_train/amp_choice.h"

namespace ember::train {

std::optional<ScalarType> amp_dtype(const TrainArgs& args, const Device& device) {
  if (!args.amp) return std::nullopt;
  if (args.amp_dtype == "float16") return kHalf;
  if (args.amp_dtype == "bfloat16") return kBFloat16;
  return device.is_cuda() ? kHalf : kBFloat16;
}

std::string amp_description(std::optional<ScalarType> dtype) {
  if (!dtype) return "float32";
  return std::string("mixed precision: ") + (*dtype == kHalf ? "float16" : "bfloat16") +
         " autocast" + (*dtype == kHalf ? " + GradScaler" : "");
}

}  // namespace ember::train
