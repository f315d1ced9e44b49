#pragma once
// The timing harness shared by the Ember and libtorch benchmark programs: each row is timed as
// repeated samples after a warm-up, and reported as the median with min and max, in JSON.
// It depends on neither library, so both programs measure in exactly the same way.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

namespace bench {

// Wall time by default. Process CPU time (summed over threads) is the robust choice for
// single-threaded runs on a machine that other jobs are loading.
enum class ClockKind { kWall, kCpu };

inline double now_seconds(ClockKind k) {
  timespec ts;
  clock_gettime(k == ClockKind::kCpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// How a row turns seconds per call into its figure.
enum class Unit { kMicroseconds, kMilliseconds, kSeconds, kGBps, kGFLOPs, kTFLOPs };

inline const char* unit_name(Unit u) {
  switch (u) {
    case Unit::kMicroseconds:
      return "us";
    case Unit::kMilliseconds:
      return "ms";
    case Unit::kSeconds:
      return "s";
    case Unit::kGBps:
      return "GB/s";
    case Unit::kGFLOPs:
      return "GFLOP/s";
    case Unit::kTFLOPs:
      return "TFLOP/s";
  }
  return "?";
}

inline bool higher_is_better(Unit u) {
  return u == Unit::kGBps || u == Unit::kGFLOPs || u == Unit::kTFLOPs;
}

// work: bytes (GB/s) or floating-point operations (GFLOP/s) per call; unused for time units.
inline double figure(Unit u, double seconds, double work) {
  switch (u) {
    case Unit::kMicroseconds:
      return seconds * 1e6;
    case Unit::kMilliseconds:
      return seconds * 1e3;
    case Unit::kSeconds:
      return seconds;
    case Unit::kGBps:
      return work / seconds / 1e9;
    case Unit::kGFLOPs:
      return work / seconds / 1e9;
    case Unit::kTFLOPs:
      return work / seconds / 1e12;
  }
  return 0;
}

struct Row {
  std::string name, group, unit, column;  // column: "ember", "libtorch" or "ref"
  std::string ref_label;                  // what a "ref" column measured
  double median = 0, min = 0, max = 0;
  int samples = 0;
  long iters_per_sample = 0;
};

struct Options {
  double sample_seconds = 0.02;  // target length of one sample
  int samples = 11;              // samples per row (fewer for slow rows, at least min_samples)
  int min_samples = 3;
  double row_budget_seconds = 3.0;  // slow rows take fewer samples to stay within this
  std::vector<std::string> groups;  // empty: every group
  std::string filter;               // only rows whose name contains this
  bool list_only = false;
  int threads = 2;
  ClockKind clock = ClockKind::kWall;
  int epochs = 3;        // timed passes over Fashion-MNIST per model
  std::string out_path;  // JSON destination; stdout when empty
};

class Runner {
 public:
  Runner(std::string program, Options opts) : program_(std::move(program)), opts_(opts) {}

  bool wants(const std::string& group) const {
    if (opts_.list_only) return false;
    if (opts_.groups.empty()) return true;
    return std::find(opts_.groups.begin(), opts_.groups.end(), group) != opts_.groups.end();
  }
  bool wants_row(const std::string& name) const {
    return opts_.filter.empty() || name.find(opts_.filter) != std::string::npos;
  }
  const Options& options() const { return opts_; }
  double now() const { return now_seconds(opts_.clock); }

  // Times fn (one call = one unit of work) and records the row.
  void time(const std::string& group, const std::string& name, Unit unit, double work,
            const std::function<void()>& fn, const std::string& column = "",
            const std::string& ref_label = "") {
    if (!wants_row(name)) return;
    // Warm-up: at least 3 calls and 0.1 s, which also estimates the cost of one call.
    double t0 = now();
    long calls = 0;
    do {
      fn();
      ++calls;
    } while (calls < 3 || now() - t0 < 0.1);
    double per_call = (now() - t0) / calls;
    long iters = std::max(1L, static_cast<long>(opts_.sample_seconds / per_call));
    int samples = opts_.samples;
    double sample_cost = per_call * iters;
    if (sample_cost * samples > opts_.row_budget_seconds) {
      samples =
          std::max(opts_.min_samples, static_cast<int>(opts_.row_budget_seconds / sample_cost));
    }
    std::vector<double> per_call_s;
    for (int s = 0; s < samples; ++s) {
      double ts = now();
      for (long i = 0; i < iters; ++i) fn();
      per_call_s.push_back((now() - ts) / iters);
    }
    record(group, name, unit, work, per_call_s, iters, column, ref_label);
  }

  // Records samples timed by the caller (e.g. whole epochs), in seconds per call.
  void record(const std::string& group, const std::string& name, Unit unit, double work,
              std::vector<double> per_call_s, long iters, const std::string& column = "",
              const std::string& ref_label = "") {
    std::sort(per_call_s.begin(), per_call_s.end());
    size_t n = per_call_s.size();
    double med = n % 2 ? per_call_s[n / 2] : 0.5 * (per_call_s[n / 2 - 1] + per_call_s[n / 2]);
    Row r;
    r.name = name;
    r.group = group;
    r.unit = unit_name(unit);
    r.column = column.empty() ? program_ : column;
    r.ref_label = ref_label;
    r.median = figure(unit, med, work);
    double a = figure(unit, per_call_s.front(), work), b = figure(unit, per_call_s.back(), work);
    r.min = std::min(a, b);
    r.max = std::max(a, b);
    r.samples = static_cast<int>(n);
    r.iters_per_sample = iters;
    std::fprintf(stderr, "  %-8s %-28s %12.4g %-7s [%.4g .. %.4g]\n", r.column.c_str(),
                 name.c_str(), r.median, r.unit.c_str(), r.min, r.max);
    rows_.push_back(r);
  }

  // Writes every row as one JSON document.
  void write_json(const std::string& info) const {
    FILE* f = opts_.out_path.empty() ? stdout : std::fopen(opts_.out_path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s: %s\n", opts_.out_path.c_str(), std::strerror(errno));
      std::exit(1);
    }
    std::fprintf(f,
                 "{\"program\": \"%s\", \"threads\": %d, \"clock\": \"%s\", \"info\": \"%s\", "
                 "\"rows\": [\n",
                 program_.c_str(), opts_.threads, opts_.clock == ClockKind::kCpu ? "cpu" : "wall",
                 info.c_str());
    for (size_t i = 0; i < rows_.size(); ++i) {
      const Row& r = rows_[i];
      std::fprintf(f,
                   "  {\"name\": \"%s\", \"group\": \"%s\", \"column\": \"%s\", \"ref_label\": "
                   "\"%s\", \"unit\": \"%s\", \"median\": %.6g, \"min\": %.6g, \"max\": %.6g, "
                   "\"samples\": %d, \"iters_per_sample\": %ld}%s\n",
                   r.name.c_str(), r.group.c_str(), r.column.c_str(), r.ref_label.c_str(),
                   r.unit.c_str(), r.median, r.min, r.max, r.samples, r.iters_per_sample,
                   i + 1 < rows_.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
    if (f != stdout) std::fclose(f);
  }

 private:
  std::string program_;
  Options opts_;
  std::vector<Row> rows_;
};

// --groups a,b  --filter SUBSTRING  --clock wall|cpu  --threads N  --epochs N  --quick  --list
// --out FILE
// (--benchmark_out=FILE and --benchmark_format=json are accepted as Google Benchmark spells them).
inline Options parse_args(int argc, char** argv, const char* usage) {
  Options o;
  auto split = [](const std::string& s) {
    std::vector<std::string> v;
    size_t b = 0;
    while (b <= s.size()) {
      size_t e = s.find(',', b);
      if (e == std::string::npos) e = s.size();
      if (e > b) v.push_back(s.substr(b, e - b));
      b = e + 1;
    }
    return v;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag) -> std::string {
      std::string f = flag;
      if (a.rfind(f + "=", 0) == 0) return a.substr(f.size() + 1);
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n%s", flag, usage);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--groups" || a.rfind("--groups=", 0) == 0) {
      o.groups = split(value("--groups"));
    } else if (a == "--threads" || a.rfind("--threads=", 0) == 0) {
      o.threads = std::atoi(value("--threads").c_str());
    } else if (a == "--epochs" || a.rfind("--epochs=", 0) == 0) {
      o.epochs = std::atoi(value("--epochs").c_str());
    } else if (a == "--clock" || a.rfind("--clock=", 0) == 0) {
      std::string c = value("--clock");
      if (c != "wall" && c != "cpu") {
        std::fprintf(stderr, "--clock is wall or cpu, not %s\n", c.c_str());
        std::exit(2);
      }
      o.clock = c == "cpu" ? ClockKind::kCpu : ClockKind::kWall;
    } else if (a == "--filter" || a.rfind("--filter=", 0) == 0) {
      o.filter = value("--filter");
    } else if (a == "--out" || a.rfind("--out=", 0) == 0) {
      o.out_path = value("--out");
    } else if (a.rfind("--benchmark_out=", 0) == 0) {
      o.out_path = a.substr(std::strlen("--benchmark_out="));
    } else if (a.rfind("--benchmark_format", 0) == 0) {
      // JSON is the only format.
    } else if (a == "--quick") {
      o.sample_seconds = 0.005;
      o.samples = 5;
      o.row_budget_seconds = 1.0;
      o.epochs = 1;
    } else if (a == "--list") {
      o.list_only = true;
    } else if (a == "-h" || a == "--help") {
      std::fputs(usage, stdout);
      std::exit(0);
    } else {
      std::fprintf(stderr, "unknown argument %s\n%s", a.c_str(), usage);
      std::exit(2);
    }
  }
  if (o.threads < 1) o.threads = 1;
  return o;
}

}  // namespace bench
