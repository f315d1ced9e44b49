#pragma once
// --amp's dtype and its description, shared by both jobs of ember-train.
#include <optional>
#include <string>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember_train/args.h"

namespace ember::train {

// The autocast dtype of --amp on `device` ("auto": float16 on CUDA, bfloat16 on the CPU), or
// nothing without --amp.
std::optional<ScalarType> amp_dtype(const TrainArgs& args, const Device& device);
// "float32", or "mixed precision: float16 autocast + GradScaler" and the like.
std::string amp_description(std::optional<ScalarType> dtype);

}  // namespace ember::train
