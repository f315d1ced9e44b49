#pragma once
// torch.get_rng_state / set_rng_state: the default generator's whole state as a uint8 CPU tensor,
// to put back later (activation checkpointing replays dropout with it). Ember has one Philox
// generator for every device (one seed gives one stream on the CPU and CUDA alike), so this is
// also what torch.cuda.get_rng_state returns for each device.
#include "ember/tensor.h"

namespace ember {

// 16 bytes: the seed and the Philox counter offset, each little-endian uint64.
EMBER_API Tensor get_rng_state();
// Restores a state from get_rng_state; anything else (dtype, shape) is a ValueError.
EMBER_API void set_rng_state(const Tensor& state);

}  // namespace ember
