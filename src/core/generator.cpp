// Global seed and counter for the Philox generator (torch.manual_seed).
#include "core/generator.h"

#include <mutex>

#include "ember/cuda.h"
#include "ember/ops.h"

namespace ember {
namespace {
std::mutex g_mutex;
uint64_t g_seed = 67280421310721ull;  // PyTorch's default seed
uint64_t g_offset = 0;
}  // namespace

void manual_seed(uint64_t seed) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_seed = seed;
    g_offset = 0;
  }
}

uint64_t initial_seed() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_seed;
}

PhiloxState reserve_random_blocks(uint64_t blocks) {
  std::lock_guard<std::mutex> lock(g_mutex);
  PhiloxState s{g_seed, g_offset};
  g_offset += blocks;
  return s;
}

PhiloxState generator_state() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return PhiloxState{g_seed, g_offset};
}

void set_generator_state(PhiloxState state) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_seed = state.seed;
  g_offset = state.offset;
}

}  // namespace ember
