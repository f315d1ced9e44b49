// ember::cuda::TransferAudit: differences of the global transfer counters, per step, and the
// findings a PyTorch user would want to hear about.
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/device_audit.h"
#include "core/transfer_counters.h"
#include "ember/cuda.h"

namespace ember {
namespace audit {
TransferCounters& counters() {
  static TransferCounters c;
  return c;
}
}  // namespace audit

namespace cuda {
namespace {

TransferStats snapshot() {
  const audit::TransferCounters& c = audit::counters();
  TransferStats s;
  s.h2d_pageable = c.h2d_pageable;
  s.h2d_pinned = c.h2d_pinned;
  s.h2d_blocking = c.h2d_blocking;
  s.h2d_bytes = c.h2d_bytes;
  s.d2h_pageable = c.d2h_pageable;
  s.d2h_pinned = c.d2h_pinned;
  s.d2h_small = c.d2h_small;
  s.d2h_bytes = c.d2h_bytes;
  s.d2d = c.d2d;
  s.implicit_syncs = c.implicit_syncs;
  s.explicit_syncs = c.explicit_syncs;
  s.sync_wait_ms = static_cast<double>(c.sync_wait_us.load()) / 1000.0;
  s.kernel_launches = c.kernel_launches;
  s.cpu_ops = c.cpu_ops;
  return s;
}

std::string fmt(const char* f, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

}  // namespace

TransferAudit::TransferAudit() : start_(snapshot()), first_event_(audit::transfer_audit_open()) {
  audit::g_open_audits.fetch_add(1);
  audit::audit_thread_enter();
}
TransferAudit::~TransferAudit() {
  audit::audit_thread_leave();
  audit::g_open_audits.fetch_sub(1);
  audit::transfer_audit_close();
}

std::vector<TransferEvent> TransferAudit::events() const {
  return audit::transfer_events_since(first_event_);
}

void TransferAudit::step() {
  ++steps_;
}

TransferStats TransferAudit::stats() const {
  TransferStats now = snapshot(), d;
  d.steps = steps_;
  d.h2d_pageable = now.h2d_pageable - start_.h2d_pageable;
  d.h2d_pinned = now.h2d_pinned - start_.h2d_pinned;
  d.h2d_blocking = now.h2d_blocking - start_.h2d_blocking;
  d.h2d_bytes = now.h2d_bytes - start_.h2d_bytes;
  d.d2h_pageable = now.d2h_pageable - start_.d2h_pageable;
  d.d2h_pinned = now.d2h_pinned - start_.d2h_pinned;
  d.d2h_small = now.d2h_small - start_.d2h_small;
  d.d2h_bytes = now.d2h_bytes - start_.d2h_bytes;
  d.d2d = now.d2d - start_.d2d;
  d.implicit_syncs = now.implicit_syncs - start_.implicit_syncs;
  d.explicit_syncs = now.explicit_syncs - start_.explicit_syncs;
  d.sync_wait_ms = now.sync_wait_ms - start_.sync_wait_ms;
  d.kernel_launches = now.kernel_launches - start_.kernel_launches;
  d.cpu_ops = now.cpu_ops - start_.cpu_ops;
  return d;
}

std::vector<std::string> TransferAudit::findings() const {
  const TransferStats s = stats();
  const double n = static_cast<double>(std::max<int64_t>(s.steps, 1));
  std::vector<std::string> out;
  if (s.h2d_pageable > 0) {
    out.push_back(
        fmt("%.3g host->device copies per step from pageable memory (%.3g MB per step), "
            "each blocking the host until the GPU is idle: use pin_memory=true in the "
            "DataLoader (or Tensor::pin_memory()) and .to(device, non_blocking=true)",
            static_cast<double>(s.h2d_pageable) / n, static_cast<double>(s.h2d_bytes) / n / 1e6));
  } else if (s.h2d_blocking > 0) {
    out.push_back(
        fmt("%.3g host->device copies per step from pinned memory wait for the GPU: "
            "pass non_blocking=true to .to()/copy_()",
            static_cast<double>(s.h2d_blocking) / n));
  }
  // Occasional reads (a progress line every few steps) are fine; one per step is the pattern.
  if (s.d2h_small * 2 >= std::max<int64_t>(s.steps, 1)) {
    out.push_back(
        fmt("%.3g device->host reads of a few bytes per step (item(), printing a CUDA "
            "tensor): each forces a sync with the GPU; e.g. loss.item() every step: "
            "accumulate the loss on the device and log every N steps",
            static_cast<double>(s.d2h_small) / n));
  }
  const int64_t big_d2h = s.d2h_pageable + s.d2h_pinned - s.d2h_small;
  if (big_d2h > 0) {
    out.push_back(
        fmt("%.3g larger device->host copies per step (%.3g MB per step): keep "
            "intermediate results on the device",
            static_cast<double>(big_d2h) / n, static_cast<double>(s.d2h_bytes) / n / 1e6));
  }
  if (s.cpu_ops > 0 && s.kernel_launches > 0) {
    out.push_back(
        fmt("%.3g ops per step ran on the CPU while the rest ran on CUDA: create "
            "tensors on the model's device (TensorOptions().device(d)) and move "
            "modules and buffers with ->to(device)",
            static_cast<double>(s.cpu_ops) / n));
  }
  // As for small reads: an occasional sync (a progress line) is fine, one per step is not.
  if (s.implicit_syncs * 2 >= std::max<int64_t>(s.steps, 1)) {
    out.push_back(
        fmt("%.3g implicit host syncs per step, %.3g ms per step waiting for the GPU: "
            "ember::cuda::set_sync_debug_mode(\"warn\") shows where each one happens",
            static_cast<double>(s.implicit_syncs) / n, s.sync_wait_ms / n));
  }
  return out;
}

std::string TransferAudit::report() const {
  const TransferStats s = stats();
  const double n = static_cast<double>(std::max<int64_t>(s.steps, 1));
  std::ostringstream o;
  o << "Transfer audit: " << s.steps << " step" << (s.steps == 1 ? "" : "s") << "; per step:\n";
  auto row = [&](const char* what, double v) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "  %-38s %10.3g\n", what, v / n);
    o << buf;
  };
  row("host->device copies, pageable", static_cast<double>(s.h2d_pageable));
  row("host->device copies, pinned", static_cast<double>(s.h2d_pinned));
  row("host->device MB", static_cast<double>(s.h2d_bytes) / 1e6);
  row("device->host copies, pageable", static_cast<double>(s.d2h_pageable));
  row("device->host copies, pinned", static_cast<double>(s.d2h_pinned));
  row("device->host MB", static_cast<double>(s.d2h_bytes) / 1e6);
  row("device->device copies between GPUs", static_cast<double>(s.d2d));
  row("implicit host syncs", static_cast<double>(s.implicit_syncs));
  row("explicit synchronize() calls", static_cast<double>(s.explicit_syncs));
  row("ms waiting for the GPU", s.sync_wait_ms);
  row("kernel launches", static_cast<double>(s.kernel_launches));
  row("ops run on the CPU", static_cast<double>(s.cpu_ops));
  const auto f = findings();
  o << (f.empty() ? "No transfer or sync problems found.\n" : "Findings:\n");
  for (const std::string& line : f) o << "  - " << line << "\n";
  // Where the copies and syncs came from (with a location hook), most frequent first.
  const std::vector<TransferEvent> ev = events();
  if (!ev.empty()) {
    std::map<std::string, std::map<std::string, std::pair<int64_t, int64_t>>> by_place;
    for (const TransferEvent& e : ev) {
      // The hook names places in its own front end's terms; it may have none for an event.
      auto& c = by_place[e.location.empty() ? "(no location)" : e.location][e.kind];
      c.first += 1;
      c.second += e.bytes;
    }
    std::vector<std::pair<int64_t, std::string>> order;
    for (const auto& [place, kinds] : by_place) {
      int64_t n = 0;
      for (const auto& kv : kinds) n += kv.second.first;
      order.emplace_back(-n, place);
    }
    std::sort(order.begin(), order.end());
    o << "Where (copies and syncs by location, in total):\n";
    for (const auto& [neg, place] : order) {
      o << "  " << place << ":";
      const char* sep = " ";
      for (const auto& [kind, c] : by_place[place]) {
        o << sep << c.first << " " << kind << (c.first == 1 ? "" : "s");
        if (c.second > 0) o << " (" << c.second << " bytes)";
        sep = ", ";
      }
      o << "\n";
    }
  }
  return o.str();
}

}  // namespace cuda
}  // namespace ember
