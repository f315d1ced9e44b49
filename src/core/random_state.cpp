// get_rng_state / set_rng_state: the generator's (seed, offset) pair as 16 bytes, a layout of our
// own (PyTorch's CPU state is a 5056-byte Mersenne Twister; the two are not interchangeable).
#include "ember/random_state.h"

#include <cstring>

#include "core/generator.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember {
namespace {
constexpr int64_t kStateBytes = 16;

void put_le64(uint8_t* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get_le64(const uint8_t* in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(in[i]) << (8 * i);
  return v;
}
}  // namespace

Tensor get_rng_state() {
  const PhiloxState s = generator_state();
  Tensor state = empty({kStateBytes}, kByte);
  uint8_t* bytes = state.data_ptr<uint8_t>();
  put_le64(bytes, s.seed);
  put_le64(bytes + 8, s.offset);
  return state;
}

void set_rng_state(const Tensor& state) {
  EMBER_CHECK(state.scalar_type() == kByte && state.dim() == 1 && state.numel() == kStateBytes,
              ValueError, "set_rng_state: expected a 1-D uint8 tensor of ", kStateBytes,
              " bytes from get_rng_state, got ", state.scalar_type(), " of shape ", state.sizes());
  const Tensor bytes = state.cpu().contiguous();
  const uint8_t* in = bytes.data_ptr<uint8_t>();
  set_generator_state(PhiloxState{get_le64(in), get_le64(in + 8)});
}

}  // namespace ember
