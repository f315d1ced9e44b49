#pragma once
// ember::profiler: torch.profiler in C++ spelling.
//
//   {
//     ember::profiler::profile prof({ProfilerActivity::CPU, ProfilerActivity::CUDA},
//                                   /*record_shapes=*/true, /*profile_memory=*/true);
//     {
//       ember::profiler::record_function r("forward");
//       y = model->forward(x);
//     }
//     prof.stop();
//     prof.export_chrome_trace("trace.json");   // chrome://tracing or ui.perfetto.dev
//     std::cout << prof.key_averages().table("cuda_time_total", 10);
//   }
//
// While a profile records, every backend op (ember::add, ember::mm, ember::copy_, ...) is a range
// on the calling thread with the device it ran on (and its input shapes and dtypes with
// record_shapes); on a CUDA device its GPU time comes from CUDA events recorded around it on the
// op's stream. Copies between host and device carry their direction and bytes, host syncs their
// wait, and with profile_memory every allocation and free of a tensor made during the profile is
// an event with the device's running total. On CUDA builds the same ranges are NVTX ranges, so
// Nsight Systems shows the same names. When no profile is recording the cost is one relaxed load
// per op (docs/profiler.md).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/macros.h"
#include "ember/nn/arg.h"

namespace ember::profiler {

enum class ProfilerActivity { CPU, CUDA };

namespace detail {
class Session;
class Range;
}  // namespace detail

// CPU, and CUDA when a CUDA device is available (torch.profiler.supported_activities()).
EMBER_API std::vector<ProfilerActivity> supported_activities();

// torch.profiler.profile's keyword arguments.
struct EMBER_API ProfileOptions {
  ProfileOptions();
  EMBER_ARG(std::vector<ProfilerActivity>, activities);
  // Input shapes and dtypes of every op (key_averages(true) groups by them).
  EMBER_ARG(bool, record_shapes) = false;
  // Allocation and free events of tensors, with each device's running total.
  EMBER_ARG(bool, profile_memory) = false;
};

enum class EventKind {
  Op,              // a backend op (ember::add, ember::mm, ember::copy_, ...)
  UserAnnotation,  // record_function, ProfilerStep#N, autograd's evaluate_function ranges
  Sync,            // the host waiting for a CUDA device
};

// One range on a CPU thread. Times are microseconds since the profile started.
struct FunctionEvent {
  int64_t id = 0;
  int64_t parent = -1;  // the enclosing range on the same thread, -1 at top level
  std::string name;
  EventKind kind = EventKind::Op;
  int64_t thread = 0;  // the OS thread id
  double start_us = 0, end_us = 0;
  Device device{kCPU};                             // where an op ran
  std::vector<std::vector<int64_t>> input_shapes;  // with record_shapes
  std::vector<std::string> input_dtypes;           // with record_shapes
  int64_t kernel_launches = 0;                     // CUDA kernels and cuBLAS calls it queued
  // The GPU time of the op's own work (ops on a CUDA device with the CUDA activity), from events
  // recorded around it on its stream; placed on the same clock as start_us.
  bool has_cuda_time = false;
  int64_t stream = 0;
  double cuda_start_us = 0, cuda_end_us = 0;
  // Bytes allocated minus bytes freed while the range was innermost (profile_memory).
  int64_t self_cpu_memory_usage = 0, self_cuda_memory_usage = 0;
  // The host wait of a Sync event: what caused it ("item()", "a blocking device-to-host copy")
  // and whether it was implicit (inside an op) or the program's own synchronize().
  std::string sync_reason;
  bool sync_implicit = false;

  double cpu_time_us() const { return end_us - start_us; }
  double cuda_time_us() const { return has_cuda_time ? cuda_end_us - cuda_start_us : 0; }
};

// A tensor's memory allocated (bytes > 0) or freed (bytes < 0) during the profile; total is the
// device's running total of memory allocated during the profile and not yet freed.
struct MemoryEvent {
  double time_us = 0;
  Device device{kCPU};
  int64_t bytes = 0;
  int64_t total_allocated = 0;
  uint64_t address = 0;
  int64_t thread = 0;
  int64_t op = -1;  // the innermost range at the time, -1 when none
};

// A copy between host and device or between devices ("HtoD", "DtoH", "DtoD").
struct CopyEvent {
  double time_us = 0;
  std::string direction;
  int64_t bytes = 0;
  bool pinned = false;    // the host side is pinned memory
  bool blocking = false;  // the host waited for it
  int64_t thread = 0;
  int64_t op = -1;  // the op that made it (its range), -1 when none
};

// The events of one name (and input shapes, when grouped by them), as torch's FunctionEventAvg.
struct FunctionEventAvg {
  std::string key;
  std::vector<std::vector<int64_t>> input_shapes;  // when grouped by input shape
  int64_t count = 0;
  double self_cpu_time_total = 0, cpu_time_total = 0;
  double self_cuda_time_total = 0, cuda_time_total = 0;
  int64_t self_cpu_memory_usage = 0, cpu_memory_usage = 0;
  int64_t self_cuda_memory_usage = 0, cuda_memory_usage = 0;
  double cpu_time() const { return count ? cpu_time_total / count : 0; }
  double cuda_time() const { return count ? cuda_time_total / count : 0; }
};

class EMBER_API KeyAverages {
 public:
  // Memory columns with profile_memory; CUDA ones when CUDA memory was seen.
  explicit KeyAverages(std::vector<FunctionEventAvg> rows, bool profile_memory = false,
                       bool cuda_memory = false)
      : rows_(std::move(rows)), profile_memory_(profile_memory), cuda_memory_(cuda_memory) {}
  // PyTorch's summary table. sort_by: "" (in order of first appearance) or a column as torch
  // names it: cpu_time, cuda_time, cpu_time_total, cuda_time_total, self_cpu_time_total,
  // self_cuda_time_total, count, cpu_memory_usage, self_cpu_memory_usage, cuda_memory_usage,
  // self_cuda_memory_usage (ValueError otherwise); largest first, at most row_limit rows.
  std::string table(const std::string& sort_by = "", int64_t row_limit = 100) const;
  const std::vector<FunctionEventAvg>& rows() const { return rows_; }
  size_t size() const { return rows_.size(); }
  const FunctionEventAvg& operator[](size_t i) const { return rows_[i]; }
  auto begin() const { return rows_.begin(); }
  auto end() const { return rows_.end(); }
  // The row of `key` (the first, when grouped by input shape); ValueError naming it if none.
  const FunctionEventAvg& at(const std::string& key) const;

 private:
  std::vector<FunctionEventAvg> rows_;
  bool profile_memory_;
  bool cuda_memory_;
};

// torch.profiler.profile: records from construction until stop() (or destruction). One profile
// records at a time in a process (Error otherwise). Reading the results stops it.
class EMBER_API profile {
 public:
  explicit profile(const ProfileOptions& options = ProfileOptions());
  explicit profile(std::vector<ProfilerActivity> activities, bool record_shapes = false,
                   bool profile_memory = false);
  ~profile();
  profile(const profile&) = delete;
  profile& operator=(const profile&) = delete;

  // Ends the recording; waits for the GPU work it timed, to read its CUDA events. Idempotent.
  void stop();
  // Marks the end of a training step: the steps become ranges ProfilerStep#0, #1, ... as with
  // torch.profiler's prof.step(). The first range starts at the first call.
  void step();

  const std::vector<FunctionEvent>& events();
  const std::vector<MemoryEvent>& memory_events();
  const std::vector<CopyEvent>& copy_events();
  // Totals per event name (and input shapes): the rows of table().
  KeyAverages key_averages(bool group_by_input_shape = false);
  // A Chrome trace-event JSON file (chrome://tracing, ui.perfetto.dev), written to a temporary
  // file next to `path` and renamed over it, so a reader never sees half a trace.
  void export_chrome_trace(const std::string& path);

 private:
  std::shared_ptr<detail::Session> session_;
  std::unique_ptr<detail::Range> step_range_;
  int64_t step_ = 0;
};

// torch.profiler.record_function: a named range around a block (nested ranges nest in the
// trace). Costs one relaxed load when no profile is recording.
class EMBER_API record_function {
 public:
  explicit record_function(const std::string& name);
  ~record_function();
  record_function(const record_function&) = delete;
  record_function& operator=(const record_function&) = delete;
  // Ends the range before the end of the scope.
  void end();

 private:
  std::unique_ptr<detail::Range> range_;
};

// torch.autograd.profiler.emit_nvtx: every op and record_function range becomes an NVTX range
// (for Nsight Systems) without recording a profile. Does nothing on builds without real CUDA.
class EMBER_API emit_nvtx {
 public:
  explicit emit_nvtx(bool enabled = true);
  ~emit_nvtx();
  emit_nvtx(const emit_nvtx&) = delete;
  emit_nvtx& operator=(const emit_nvtx&) = delete;

 private:
  bool enabled_;
};

// True while a profile records (or an emit_nvtx scope is open).
EMBER_API bool is_enabled();

}  // namespace ember::profiler
