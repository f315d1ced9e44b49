// export_chrome_trace: the Trace Event Format that chrome://tracing and ui.perfetto.dev open.
// The host process has a track per thread (ops, record_function ranges, syncs, copies and
// memory instants); each CUDA device is a process with a track per stream (the ops' GPU time)
// and a counter track of its allocated memory; flow arrows join an op to its GPU time.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "ember/error.h"
#include "ember/profiler.h"
#include "profiler/session.h"

namespace ember::profiler {
namespace {

using json = nlohmann::json;

const char* category(EventKind k) {
  switch (k) {
    case EventKind::Op:
      return "cpu_op";
    case EventKind::UserAnnotation:
      return "user_annotation";
    case EventKind::Sync:
      return "cuda_sync";
  }
  return "?";
}

// As Kineto names copies: "Memcpy HtoD (Pageable -> Device)".
std::string copy_name(const CopyEvent& c) {
  const std::string host = c.pinned ? "Pinned" : "Pageable";
  if (c.direction == "HtoD") return "Memcpy HtoD (" + host + " -> Device)";
  if (c.direction == "DtoH") return "Memcpy DtoH (Device -> " + host + ")";
  return "Memcpy DtoD (Device -> Device)";
}

json copy_args(const CopyEvent& c) {
  return {{"bytes", c.bytes},
          {"direction", c.direction},
          {"pinned", c.pinned},
          {"blocking", c.blocking},
          {"External id", c.op}};
}

json meta(const char* what, int64_t pid, int64_t tid, const json& args) {
  json m = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", args}};
  if (tid >= 0) m["tid"] = tid;
  return m;
}

std::atomic<uint64_t> g_tmp_counter{0};

// Writes `text` next to `path` under a temporary name and renames it over `path`.
void write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" +
                          std::to_string(g_tmp_counter.fetch_add(1));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  auto fail = [&](const char* step) {
    const int err = errno;
    throw Error("export_chrome_trace: cannot " + std::string(step) + " '" + (fd < 0 ? tmp : path) +
                "': " + std::strerror(err));
  };
  if (fd < 0) fail("create");
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      errno = err;
      fail("write");
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    errno = err;
    fail("write");
  }
}

}  // namespace

void profile::export_chrome_trace(const std::string& path) {
  const std::vector<FunctionEvent>& evs = events();
  const int64_t pid = ::getpid();
  auto gpu_pid = [&](const Device& d) { return pid + 1 + d.index(); };

  std::unordered_map<int64_t, const CopyEvent*> copy_of_op;
  for (const CopyEvent& c : session_->copies()) copy_of_op[c.op] = &c;

  json trace = json::array();
  std::set<int64_t> threads;
  std::map<int, std::set<int64_t>> streams;  // device -> streams
  std::set<int> devices;
  for (const FunctionEvent& e : evs) {
    threads.insert(e.thread);
    json args = {{"External id", e.id}};
    if (e.kind == EventKind::Op) {
      args["device"] = e.device.str();
      if (!e.input_shapes.empty()) {
        args["Input Dims"] = e.input_shapes;
        args["Input type"] = e.input_dtypes;
      }
      if (e.kernel_launches) args["kernel launches"] = e.kernel_launches;
    }
    if (e.kind == EventKind::Sync) {
      args["implicit"] = e.sync_implicit;
      args["reason"] = e.sync_reason;
    }
    trace.push_back({{"ph", "X"},
                     {"cat", category(e.kind)},
                     {"name", e.name},
                     {"pid", pid},
                     {"tid", e.thread},
                     {"ts", e.start_us},
                     {"dur", e.cpu_time_us()},
                     {"args", args}});
    if (!e.has_cuda_time) continue;
    const int d = e.device.index();
    devices.insert(d);
    streams[d].insert(e.stream);
    auto copy = copy_of_op.find(e.id);
    json gpu_args = {{"device", d}, {"stream", e.stream}, {"External id", e.id}};
    std::string name = e.name;
    if (copy != copy_of_op.end()) {
      name = copy_name(*copy->second);
      gpu_args.update(copy_args(*copy->second));
    }
    trace.push_back({{"ph", "X"},
                     {"cat", copy != copy_of_op.end() ? "gpu_memcpy" : "kernel"},
                     {"name", name},
                     {"pid", gpu_pid(e.device)},
                     {"tid", e.stream},
                     {"ts", e.cuda_start_us},
                     {"dur", e.cuda_time_us()},
                     {"args", gpu_args}});
    // The arrow from the op to its GPU time.
    trace.push_back({{"ph", "s"},
                     {"cat", "ac2g"},
                     {"name", "ac2g"},
                     {"id", e.id},
                     {"pid", pid},
                     {"tid", e.thread},
                     {"ts", e.start_us}});
    trace.push_back({{"ph", "f"},
                     {"bp", "e"},
                     {"cat", "ac2g"},
                     {"name", "ac2g"},
                     {"id", e.id},
                     {"pid", gpu_pid(e.device)},
                     {"tid", e.stream},
                     {"ts", e.cuda_start_us}});
  }
  for (const CopyEvent& c : session_->copies()) {
    threads.insert(c.thread);
    trace.push_back({{"ph", "i"},
                     {"s", "t"},
                     {"cat", "cuda_memcpy"},
                     {"name", copy_name(c)},
                     {"pid", pid},
                     {"tid", c.thread},
                     {"ts", c.time_us},
                     {"args", copy_args(c)}});
  }
  // Memory: an instant per allocation or free, and a counter track per device that starts at 0.
  std::set<Device, detail::DeviceLess> memory_devices;
  for (const MemoryEvent& m : session_->memory()) {
    threads.insert(m.thread);
    const bool on_gpu = m.device.is_cuda();
    if (on_gpu) devices.insert(m.device.index());
    if (memory_devices.insert(m.device).second) {
      trace.push_back({{"ph", "C"},
                       {"name", "Memory " + m.device.str()},
                       {"pid", on_gpu ? gpu_pid(m.device) : pid},
                       {"ts", 0.0},
                       {"args", {{"Total Allocated", 0}}}});
    }
    trace.push_back({{"ph", "i"},
                     {"s", "t"},
                     {"cat", "cpu_instant_event"},
                     {"name", "[memory]"},
                     {"pid", pid},
                     {"tid", m.thread},
                     {"ts", m.time_us},
                     {"args",
                      {{"Device Type", on_gpu ? 1 : 0},
                       {"Device Id", on_gpu ? m.device.index() : -1},
                       {"Addr", m.address},
                       {"Bytes", m.bytes},
                       {"Total Allocated", m.total_allocated},
                       {"External id", m.op}}}});
    trace.push_back({{"ph", "C"},
                     {"name", "Memory " + m.device.str()},
                     {"pid", on_gpu ? gpu_pid(m.device) : pid},
                     {"ts", m.time_us},
                     {"args", {{"Total Allocated", m.total_allocated}}}});
  }
  // Names of processes and tracks.
  trace.push_back(
      meta("process_name", pid, -1, {{"name", "Ember host (pid " + std::to_string(pid) + ")"}}));
  trace.push_back(meta("process_sort_index", pid, -1, {{"sort_index", 0}}));
  for (int64_t t : threads) {
    trace.push_back(meta("thread_name", pid, t,
                         {{"name", t == pid ? "main thread" : "thread " + std::to_string(t)}}));
  }
  json properties = json::array();
  for (int d : devices) {
    const Device dev(kCUDA, static_cast<DeviceIndex>(d));
    const int64_t gp = gpu_pid(dev);
    trace.push_back(meta("process_name", gp, -1, {{"name", dev.str()}}));
    trace.push_back(meta("process_sort_index", gp, -1, {{"sort_index", 1 + d}}));
    for (int64_t s : streams[d]) {
      trace.push_back(
          meta("thread_name", gp, s,
               {{"name", s == 0 ? std::string("default stream") : "stream " + std::to_string(s)}}));
    }
    const cuda::DeviceProperties p = cuda::get_device_properties(d);
    properties.push_back({{"id", d},
                          {"name", p.name},
                          {"totalGlobalMem", p.total_memory},
                          {"computeMajor", p.major},
                          {"computeMinor", p.minor},
                          {"numSms", p.multi_processor_count}});
  }
  json doc = {{"schemaVersion", 1},
              {"displayTimeUnit", "ms"},
              {"deviceProperties", properties},
              {"traceEvents", trace}};
  write_atomically(path, doc.dump());
}

}  // namespace ember::profiler
