#pragma once
// The global counters an audit reads (see core/device_audit.h).
#include <atomic>
#include <cstdint>

namespace ember::audit {

struct TransferCounters {
  std::atomic<int64_t> h2d_pageable{0}, h2d_pinned{0}, h2d_blocking{0}, h2d_bytes{0};
  std::atomic<int64_t> d2h_pageable{0}, d2h_pinned{0}, d2h_small{0}, d2h_bytes{0};
  std::atomic<int64_t> d2d{0};
  std::atomic<int64_t> implicit_syncs{0}, explicit_syncs{0}, sync_wait_us{0};
  std::atomic<int64_t> kernel_launches{0}, cpu_ops{0};
};

TransferCounters& counters();

}  // namespace ember::audit
