// Statistics keys and the memory_summary() table (PyTorch's layout, Ember's name).
#include "cuda_policy/memory_stats.h"

#include <cstdio>
#include <sstream>
#include <vector>

namespace ember::cuda_policy {
namespace {

const char* const kPoolNames[3] = {"all", "small_pool", "large_pool"};

void add(std::map<std::string, int64_t>& m, const std::string& prefix, const Stat& s) {
  m[prefix + ".current"] = s.current;
  m[prefix + ".peak"] = s.peak;
  m[prefix + ".allocated"] = s.allocated;
  m[prefix + ".freed"] = s.freed;
}
void add(std::map<std::string, int64_t>& m, const std::string& name, const StatArray& a) {
  for (int i = 0; i < 3; ++i) add(m, name + "." + kPoolNames[i], a[i]);
}

template <typename F>
void for_each_array(DeviceStats& s, F f) {
  for (StatArray* a :
       {&s.allocation, &s.segment, &s.active, &s.inactive_split, &s.allocated_bytes,
        &s.reserved_bytes, &s.active_bytes, &s.inactive_split_bytes, &s.requested_bytes}) {
    for (Stat& st : *a) f(st);
  }
  f(s.oversize_allocations);
  f(s.oversize_segments);
}

// A byte count scaled to the unit chosen by `pref` (the row's "all" value), as torch does.
std::string size_cell(int64_t v, int64_t pref) {
  const char* units[] = {"B  ", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  double p = static_cast<double>(pref);
  while (u < 5 && p >= 768 * 1024) {
    ++u;
    v /= 1024;
    p /= 1024;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%6lld %s", static_cast<long long>(v), units[u]);
  return buf;
}
std::string count_cell(int64_t v, int64_t pref) {
  const char* units[] = {" ", "K", "M"};
  int u = 0;
  double p = static_cast<double>(pref);
  while (u < 2 && p >= 750 * 1000) {
    ++u;
    v /= 1000;
    p /= 1000;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%7lld %s ", static_cast<long long>(v), units[u]);
  return buf;
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

void DeviceStats::reset_peak() {
  for_each_array(*this, [](Stat& s) { s.reset_peak(); });
}
void DeviceStats::reset_accumulated() {
  for_each_array(*this, [](Stat& s) { s.reset_accumulated(); });
  num_alloc_retries = num_ooms = num_sync_all_streams = 0;
  num_device_alloc = num_device_free = 0;
}

std::map<std::string, int64_t> DeviceStats::to_map() const {
  std::map<std::string, int64_t> m;
  add(m, "allocation", allocation);
  add(m, "segment", segment);
  add(m, "active", active);
  add(m, "inactive_split", inactive_split);
  add(m, "allocated_bytes", allocated_bytes);
  add(m, "reserved_bytes", reserved_bytes);
  add(m, "active_bytes", active_bytes);
  add(m, "inactive_split_bytes", inactive_split_bytes);
  add(m, "requested_bytes", requested_bytes);
  add(m, "oversize_allocations", oversize_allocations);
  add(m, "oversize_segments", oversize_segments);
  m["num_alloc_retries"] = num_alloc_retries;
  m["num_ooms"] = num_ooms;
  m["num_sync_all_streams"] = num_sync_all_streams;
  m["num_device_alloc"] = num_device_alloc;
  m["num_device_free"] = num_device_free;
  m["max_split_size"] = max_split_size;
  return m;
}

std::string format_memory_summary(const std::map<std::string, int64_t>& stats, int device,
                                  bool abbreviated) {
  auto get = [&](const std::string& k) -> int64_t {
    auto it = stats.find(k);
    return it == stats.end() ? 0 : it->second;
  };
  const std::string eq(75, '='), dash(75, '-');
  std::vector<std::string> lines;
  lines.push_back(eq);
  lines.push_back(
      pad(std::string(16, ' ') + "  Ember CUDA memory summary, device ID " + std::to_string(device),
          75));
  lines.push_back(dash);
  char buf[128];
  std::snprintf(buf, sizeof buf, "  %9s CUDA OOMs: %-12lld | %6s cudaMalloc retries: %-8lld", "",
                static_cast<long long>(get("num_ooms")), "",
                static_cast<long long>(get("num_alloc_retries")));
  lines.push_back(pad(buf, 75));
  lines.push_back(eq);
  lines.push_back("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ");

  struct Metric {
    const char* key;
    const char* name;
    bool bytes;
  };
  const Metric metrics[] = {
      {"allocated_bytes", "Allocated memory", true},
      {"active_bytes", "Active memory", true},
      {"requested_bytes", "Requested memory", true},
      {"reserved_bytes", "GPU reserved memory", true},
      {"inactive_split_bytes", "Non-releasable memory", true},
      {"allocation", "Allocations", false},
      {"active", "Active allocs", false},
      {"segment", "GPU reserved segments", false},
      {"inactive_split", "Non-releasable allocs", false},
  };
  auto row = [&](const std::string& name, const std::string& prefix, const int64_t pref[4],
                 bool bytes) {
    const char* fields[4] = {"current", "peak", "allocated", "freed"};
    std::string line = " " + pad(name, 21);
    for (int f = 0; f < 4; ++f) {
      int64_t v = get(prefix + fields[f]);
      line += " | " + (bytes ? size_cell(v, pref[f]) : count_cell(v, pref[f]));
    }
    lines.push_back(line + " ");
  };
  for (const Metric& m : metrics) {
    lines.push_back(dash);
    std::string all = std::string(m.key) + ".all.";
    const int64_t pref[4] = {get(all + "current"), get(all + "peak"), get(all + "allocated"),
                             get(all + "freed")};
    row(m.name, all, pref, m.bytes);
    if (!abbreviated) {
      row("      from large pool", std::string(m.key) + ".large_pool.", pref, m.bytes);
      row("      from small pool", std::string(m.key) + ".small_pool.", pref, m.bytes);
    }
  }
  for (const Metric& m : {Metric{"oversize_allocations", "Oversize allocations", false},
                          Metric{"oversize_segments", "Oversize GPU segments", false}}) {
    lines.push_back(dash);
    std::string p = std::string(m.key) + ".";
    // Each oversize cell is scaled by its own value, as torch does.
    std::string line = " " + pad(m.name, 21);
    for (const char* f : {"current", "peak", "allocated", "freed"}) {
      int64_t v = get(p + f);
      line += " | " + count_cell(v, v);
    }
    lines.push_back(line + " ");
  }
  lines.push_back(eq);
  std::string out;
  for (const std::string& l : lines) out += "|" + l + "|\n";
  return out;
}

std::string format_size(uint64_t size) {
  std::ostringstream os;
  os.precision(2);
  os << std::fixed;
  if (size <= 1024) {
    os << size << " bytes";
  } else if (size <= (1ull << 20)) {
    os << static_cast<double>(size) / 1024.0 << " KiB";
  } else if (size <= (1ull << 30)) {
    os << static_cast<double>(size) / 1048576.0 << " MiB";
  } else {
    os << static_cast<double>(size) / 1073741824.0 << " GiB";
  }
  return os.str();
}

}  // namespace ember::cuda_policy
