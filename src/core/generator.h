#pragma once
// The default random generator: a seed and a Philox counter offset advanced per draw.
#include <cstdint>

namespace ember {

struct PhiloxState {
  uint64_t seed;
  uint64_t offset;
};
// Reserves `blocks` Philox blocks and returns where they start.
PhiloxState reserve_random_blocks(uint64_t blocks);
// The whole state, to put back later (Module::clone keeps the random numbers drawn after it).
PhiloxState generator_state();
void set_generator_state(PhiloxState state);

}  // namespace ember
