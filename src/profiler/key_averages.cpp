// key_averages(): totals per event name, and PyTorch's summary table (torch/autograd/
// profiler_util.py's _build_table: same columns, units, widths and footer).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <unordered_map>

#include "ember/error.h"
#include "ember/profiler.h"
#include "profiler/session.h"

namespace ember::profiler {
namespace {

std::string format_time(double us) {
  char buf[64];
  if (us >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.3fs", us / 1e6);
  } else if (us >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.3fms", us / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.3fus", us);
  }
  return buf;
}

std::string format_share(double us, double total_us) {
  if (total_us == 0) return "NaN";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f%%", us * 100.0 / total_us);
  return buf;
}

std::string format_memory(int64_t bytes) {
  const double kb = 1024, mb = kb * 1024, gb = mb * 1024;
  const double b = static_cast<double>(bytes), a = b < 0 ? -b : b;
  char buf[64];
  if (a >= gb) {
    std::snprintf(buf, sizeof buf, "%.2f Gb", b / gb);
  } else if (a >= mb) {
    std::snprintf(buf, sizeof buf, "%.2f Mb", b / mb);
  } else if (a >= kb) {
    std::snprintf(buf, sizeof buf, "%.2f Kb", b / kb);
  } else {
    std::snprintf(buf, sizeof buf, "%lld b", static_cast<long long>(bytes));
  }
  return buf;
}

// Python's str() of a list of shapes: [[2, 3], []].
std::string shapes_text(const std::vector<std::vector<int64_t>>& shapes) {
  std::string s = "[";
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i) s += ", ";
    s += "[";
    for (size_t j = 0; j < shapes[i].size(); ++j) {
      if (j) s += ", ";
      s += std::to_string(shapes[i][j]);
    }
    s += "]";
  }
  return s + "]";
}

using SortKey = std::function<double(const FunctionEventAvg&)>;

SortKey sort_key(const std::string& name) {
  static const std::map<std::string, SortKey> keys = {
      {"cpu_time", [](const FunctionEventAvg& e) { return e.cpu_time(); }},
      {"cuda_time", [](const FunctionEventAvg& e) { return e.cuda_time(); }},
      {"cpu_time_total", [](const FunctionEventAvg& e) { return e.cpu_time_total; }},
      {"cuda_time_total", [](const FunctionEventAvg& e) { return e.cuda_time_total; }},
      {"self_cpu_time_total", [](const FunctionEventAvg& e) { return e.self_cpu_time_total; }},
      {"self_cuda_time_total", [](const FunctionEventAvg& e) { return e.self_cuda_time_total; }},
      {"count", [](const FunctionEventAvg& e) { return static_cast<double>(e.count); }},
      {"cpu_memory_usage",
       [](const FunctionEventAvg& e) { return static_cast<double>(e.cpu_memory_usage); }},
      {"self_cpu_memory_usage",
       [](const FunctionEventAvg& e) { return static_cast<double>(e.self_cpu_memory_usage); }},
      {"cuda_memory_usage",
       [](const FunctionEventAvg& e) { return static_cast<double>(e.cuda_memory_usage); }},
      {"self_cuda_memory_usage",
       [](const FunctionEventAvg& e) { return static_cast<double>(e.self_cuda_memory_usage); }},
  };
  auto it = keys.find(name);
  if (it != keys.end()) return it->second;
  std::string known;
  for (const auto& [k, f] : keys) known += (known.empty() ? "" : ", ") + k;
  throw ValueError("key_averages().table: unknown sort_by '" + name + "'; expected one of " +
                   known);
}

// One table: the column layout of _build_table (right-aligned, two spaces between columns).
class Table {
 public:
  void add_column(size_t width) { widths_.push_back(width); }
  std::string row(const std::vector<std::string>& cells) const {
    std::string line;
    for (size_t i = 0; i < widths_.size(); ++i) {
      const std::string& c = i < cells.size() ? cells[i] : std::string();
      if (c.size() < widths_[i]) line += std::string(widths_[i] - c.size(), ' ');
      line += c + "  ";
    }
    return line + "\n";
  }
  std::string separator() const {
    std::string line;
    for (size_t w : widths_) line += std::string(w, '-') + "  ";
    return line + "\n";
  }

 private:
  std::vector<size_t> widths_;
};

}  // namespace

const FunctionEventAvg& KeyAverages::at(const std::string& key) const {
  for (const FunctionEventAvg& r : rows_) {
    if (r.key == key) return r;
  }
  throw ValueError("key_averages: no event named '" + key + "' was recorded");
}

std::string KeyAverages::table(const std::string& sort_by, int64_t row_limit) const {
  if (rows_.empty()) return "";
  std::vector<FunctionEventAvg> rows = rows_;
  if (!sort_by.empty()) {
    const SortKey key = sort_key(sort_by);
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const auto& a, const auto& b) { return key(a) > key(b); });
  }
  bool has_cuda_time = false, has_cuda_mem = cuda_memory_, has_shapes = false;
  size_t name_width = 0, shapes_width = 0;
  double self_cpu_total = 0, self_cuda_total = 0;
  for (const FunctionEventAvg& r : rows) {
    has_cuda_time |= r.self_cuda_time_total > 0;
    has_cuda_mem |= r.self_cuda_memory_usage > 0;
    has_shapes |= !r.input_shapes.empty();
    name_width = std::max(name_width, r.key.size() + 4);
    shapes_width = std::max(shapes_width, shapes_text(r.input_shapes).size() + 4);
    self_cpu_total += r.self_cpu_time_total;
    self_cuda_total += r.self_cuda_time_total;
  }
  const size_t kMaxName = 55, kMaxShapes = 80, kColumn = 12;
  name_width = std::min(name_width, kMaxName);
  shapes_width = std::min(shapes_width, kMaxShapes);

  std::vector<std::string> headers = {"Name",        "Self CPU %", "Self CPU",
                                      "CPU total %", "CPU total",  "CPU time avg"};
  if (has_cuda_time) {
    headers.insert(headers.end(), {"Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"});
  }
  if (profile_memory_) {
    headers.insert(headers.end(), {"CPU Mem", "Self CPU Mem"});
    if (has_cuda_mem) headers.insert(headers.end(), {"CUDA Mem", "Self CUDA Mem"});
  }
  headers.push_back("# of Calls");
  Table t;
  t.add_column(name_width);
  for (size_t i = 1; i < headers.size(); ++i) t.add_column(kColumn);
  if (has_shapes) {
    headers.push_back("Input Shapes");
    t.add_column(shapes_width);
  }

  std::string out = t.separator() + t.row(headers) + t.separator();
  int64_t shown = 0;
  for (const FunctionEventAvg& r : rows) {
    if (shown++ == row_limit) break;
    std::string name = r.key;
    if (name.size() >= kMaxName - 3) name = name.substr(0, kMaxName - 3) + "...";
    std::vector<std::string> cells = {name,
                                      format_share(r.self_cpu_time_total, self_cpu_total),
                                      format_time(r.self_cpu_time_total),
                                      format_share(r.cpu_time_total, self_cpu_total),
                                      format_time(r.cpu_time_total),
                                      format_time(r.cpu_time())};
    if (has_cuda_time) {
      cells.insert(cells.end(), {format_time(r.self_cuda_time_total),
                                 format_share(r.self_cuda_time_total, self_cuda_total),
                                 format_time(r.cuda_time_total), format_time(r.cuda_time())});
    }
    if (profile_memory_) {
      cells.insert(cells.end(),
                   {format_memory(r.cpu_memory_usage), format_memory(r.self_cpu_memory_usage)});
      if (has_cuda_mem) {
        cells.insert(cells.end(),
                     {format_memory(r.cuda_memory_usage), format_memory(r.self_cuda_memory_usage)});
      }
    }
    cells.push_back(std::to_string(r.count));
    if (has_shapes) cells.push_back(shapes_text(r.input_shapes).substr(0, shapes_width));
    out += t.row(cells);
  }
  out += t.separator();
  out += "Self CPU time total: " + format_time(self_cpu_total) + "\n";
  if (has_cuda_time) out += "Self CUDA time total: " + format_time(self_cuda_total) + "\n";
  return out;
}

KeyAverages profile::key_averages(bool group_by_input_shape) {
  const std::vector<FunctionEvent>& evs = events();
  // Totals of each event with its descendants: CPU time is the range itself; CUDA time and
  // memory are summed up the parent chain.
  std::unordered_map<int64_t, size_t> index;
  for (size_t i = 0; i < evs.size(); ++i) index[evs[i].id] = i;
  std::vector<double> child_cpu(evs.size(), 0), cuda_total(evs.size(), 0);
  std::vector<int64_t> cpu_mem(evs.size(), 0), cuda_mem(evs.size(), 0);
  for (size_t i = 0; i < evs.size(); ++i) {
    const FunctionEvent& e = evs[i];
    cuda_total[i] += e.cuda_time_us();
    cpu_mem[i] += e.self_cpu_memory_usage;
    cuda_mem[i] += e.self_cuda_memory_usage;
    auto parent = index.find(e.parent);
    if (parent != index.end()) child_cpu[parent->second] += e.cpu_time_us();
    for (int64_t p = e.parent; p != -1;) {
      auto it = index.find(p);
      if (it == index.end()) break;
      cuda_total[it->second] += e.cuda_time_us();
      cpu_mem[it->second] += e.self_cpu_memory_usage;
      cuda_mem[it->second] += e.self_cuda_memory_usage;
      p = evs[it->second].parent;
    }
  }
  std::vector<FunctionEventAvg> rows;
  std::map<std::pair<std::string, std::string>, size_t> row_of;
  for (size_t i = 0; i < evs.size(); ++i) {
    const FunctionEvent& e = evs[i];
    const std::string shapes = group_by_input_shape ? shapes_text(e.input_shapes) : "";
    auto [it, fresh] = row_of.emplace(std::make_pair(e.name, shapes), rows.size());
    if (fresh) {
      rows.emplace_back();
      rows.back().key = e.name;
      if (group_by_input_shape) rows.back().input_shapes = e.input_shapes;
    }
    FunctionEventAvg& r = rows[it->second];
    r.count += 1;
    r.cpu_time_total += e.cpu_time_us();
    r.self_cpu_time_total += e.cpu_time_us() - child_cpu[i];
    r.self_cuda_time_total += e.cuda_time_us();
    r.cuda_time_total += cuda_total[i];
    r.self_cpu_memory_usage += e.self_cpu_memory_usage;
    r.cpu_memory_usage += cpu_mem[i];
    r.self_cuda_memory_usage += e.self_cuda_memory_usage;
    r.cuda_memory_usage += cuda_mem[i];
  }
  bool cuda_memory = false;
  for (const MemoryEvent& m : session_->memory()) cuda_memory |= m.device.is_cuda();
  return KeyAverages(std::move(rows), session_->profile_memory, cuda_memory);
}

}  // namespace ember::profiler
