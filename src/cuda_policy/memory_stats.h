#pragma once
// The caching allocator's statistics with PyTorch's key names ("allocated_bytes.all.current"),
// and memory_summary()'s table.
#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "ember/macros.h"

namespace ember::cuda_policy {

struct Stat {
  int64_t current = 0, peak = 0, allocated = 0, freed = 0;
  void update(int64_t amount) {
    current += amount;
    if (amount > 0) allocated += amount;
    if (amount < 0) freed -= amount;
    if (current > peak) peak = current;
  }
  void reset_peak() { peak = current; }
  void reset_accumulated() { allocated = freed = 0; }
};

enum class StatType : int { All = 0, SmallPool = 1, LargePool = 2 };
using StatArray = std::array<Stat, 3>;

struct EMBER_API DeviceStats {
  StatArray allocation, segment, active, inactive_split;
  StatArray allocated_bytes, reserved_bytes, active_bytes, inactive_split_bytes, requested_bytes;
  Stat oversize_allocations, oversize_segments;
  int64_t num_alloc_retries = 0, num_ooms = 0, num_sync_all_streams = 0;
  int64_t num_device_alloc = 0, num_device_free = 0;
  int64_t max_split_size = 0;

  // Updates the pool's entry and the "all" entry.
  static void update(StatArray& s, bool small_pool, int64_t amount) {
    s[0].update(amount);
    s[small_pool ? 1 : 2].update(amount);
  }
  void reset_peak();
  void reset_accumulated();
  // torch.cuda.memory_stats(): flat keys such as "reserved_bytes.large_pool.peak".
  std::map<std::string, int64_t> to_map() const;
};

// torch.cuda.memory_summary()'s table, 75 columns wide.
EMBER_API std::string format_memory_summary(const std::map<std::string, int64_t>& stats, int device,
                                            bool abbreviated);
// PyTorch's size format for messages: "512 bytes", "2.00 MiB", "1.50 GiB".
EMBER_API std::string format_size(uint64_t bytes);

}  // namespace ember::cuda_policy
