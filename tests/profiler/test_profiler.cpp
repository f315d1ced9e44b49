// ember::profiler on every device (the CPU and each CUDA device, simulated or real): ops with
// their shapes and device, record_function nesting, steps, backward nodes, CUDA times from
// events, copies, syncs, memory events whose totals return to the start, the Chrome trace
// (parsed back as JSON) and PyTorch's summary table.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "core/backend.h"
#include "core/listener.h"
#include "ember/ember.h"
#include "ember/profiler.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"

namespace ember {
namespace {

using json = nlohmann::json;
using profiler::EventKind;
using profiler::FunctionEvent;
using profiler::ProfileOptions;
using profiler::ProfilerActivity;

std::vector<const FunctionEvent*> named(const std::vector<FunctionEvent>& evs,
                                        const std::string& name) {
  std::vector<const FunctionEvent*> out;
  for (const auto& e : evs) {
    if (e.name == name) out.push_back(&e);
  }
  return out;
}

const FunctionEvent* by_id(const std::vector<FunctionEvent>& evs, int64_t id) {
  for (const auto& e : evs) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

// True when `inner`'s parent chain reaches `outer`.
bool inside(const std::vector<FunctionEvent>& evs, const FunctionEvent& inner,
            const FunctionEvent& outer) {
  for (const FunctionEvent* e = by_id(evs, inner.parent); e; e = by_id(evs, e->parent)) {
    if (e->id == outer.id) return true;
  }
  return false;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("ember_profiler_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return json::parse(in);
}

ProfileOptions all_options() {
  return ProfileOptions().record_shapes(true).profile_memory(true);
}

class Profiler : public ::testing::TestWithParam<Device> {};

TEST_P(Profiler, OpsCarryNameShapesDeviceAndGpuTime) {
  const Device d = GetParam();
  Tensor a = ones({2, 3}, TensorOptions().device(d));
  Tensor b = ones({3, 4}, TensorOptions().device(d));
  profiler::profile prof(all_options());
  Tensor c = relu(matmul(a, b) + 1.0);
  Tensor s = c.sum();
  const auto& evs = prof.events();

  auto adds = named(evs, "ember::add");
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_EQ(adds[0]->kind, EventKind::Op);
  EXPECT_EQ(adds[0]->device, d);
  ASSERT_EQ(adds[0]->input_shapes.size(), 2u);
  EXPECT_EQ(adds[0]->input_shapes[0], (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(adds[0]->input_dtypes[0], "Float");
  auto mms = named(evs, "ember::mm");
  ASSERT_EQ(mms.size(), 1u);
  EXPECT_EQ(mms[0]->input_shapes[0], (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(mms[0]->input_shapes[1], (std::vector<int64_t>{1, 3, 4}));
  ASSERT_EQ(named(evs, "ember::relu").size(), 1u);
  ASSERT_EQ(named(evs, "ember::sum").size(), 1u);
  for (const auto& e : evs) {
    EXPECT_LE(e.start_us, e.end_us) << e.name;
    EXPECT_GE(e.start_us, 0) << e.name;
    EXPECT_EQ(e.thread, evs.front().thread);
    if (e.kind != EventKind::Op) continue;
    EXPECT_EQ(e.device, d) << e.name;
    EXPECT_EQ(e.has_cuda_time, d.is_cuda()) << e.name;
    if (d.is_cuda()) {
      EXPECT_GE(e.kernel_launches, 1) << e.name;
      EXPECT_LE(e.cuda_start_us, e.cuda_end_us) << e.name;
      // The GPU runs an op after the host queued it.
      EXPECT_GE(e.cuda_start_us, e.start_us - 50.0) << e.name;
    } else {
      EXPECT_EQ(e.kernel_launches, 0) << e.name;
    }
  }
}

TEST_P(Profiler, ShapesOnlyWhenAsked) {
  const Device d = GetParam();
  Tensor a = ones({5}, TensorOptions().device(d));
  profiler::profile prof(ProfileOptions().record_shapes(false));
  Tensor b = a * a;
  auto muls = named(prof.events(), "ember::mul");
  ASSERT_EQ(muls.size(), 1u);
  EXPECT_TRUE(muls[0]->input_shapes.empty());
  EXPECT_EQ(muls[0]->device, d);
}

TEST_P(Profiler, RecordFunctionRangesNest) {
  const Device d = GetParam();
  Tensor x = ones({4, 4}, TensorOptions().device(d));
  profiler::profile prof(all_options());
  {
    profiler::record_function outer("outer");
    Tensor y = x * 2.0;
    {
      profiler::record_function inner("inner");
      Tensor z = y.exp();
    }
  }
  const auto& evs = prof.events();
  auto outer = named(evs, "outer"), inner = named(evs, "inner");
  ASSERT_EQ(outer.size(), 1u);
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_EQ(outer[0]->kind, EventKind::UserAnnotation);
  EXPECT_EQ(inner[0]->parent, outer[0]->id);
  EXPECT_EQ(outer[0]->parent, -1);
  auto exps = named(evs, "ember::exp"), muls = named(evs, "ember::mul");
  ASSERT_EQ(exps.size(), 1u);
  ASSERT_EQ(muls.size(), 1u);
  EXPECT_EQ(exps[0]->parent, inner[0]->id);
  EXPECT_EQ(muls[0]->parent, outer[0]->id);
  EXPECT_LE(outer[0]->start_us, inner[0]->start_us);
  EXPECT_GE(outer[0]->end_us, inner[0]->end_us);
  EXPECT_LE(inner[0]->start_us, exps[0]->start_us);
  EXPECT_GE(inner[0]->end_us, exps[0]->end_us);
}

TEST_P(Profiler, StepsBecomeProfilerStepRanges) {
  const Device d = GetParam();
  Tensor x = ones({3}, TensorOptions().device(d));
  profiler::profile prof;
  for (int i = 0; i < 3; ++i) {
    Tensor y = x + static_cast<double>(i);
    prof.step();
  }
  const auto& evs = prof.events();
  for (int i = 0; i < 3; ++i) {
    auto steps = named(evs, "ProfilerStep#" + std::to_string(i));
    ASSERT_EQ(steps.size(), 1u) << i;
    int adds_inside = 0;
    for (const FunctionEvent* add : named(evs, "ember::add"))
      adds_inside += add->parent == steps[0]->id;
    EXPECT_EQ(adds_inside, 1) << "step " << i;
  }
}

TEST_P(Profiler, BackwardNodesAreRangesAroundTheirOps) {
  const Device d = GetParam();
  Tensor w = ones({3}, TensorOptions().device(d).requires_grad(true));
  Tensor x = full({3}, 2.0, TensorOptions().device(d));
  profiler::profile prof;
  Tensor loss = (w * x).sum();
  loss.backward();
  const auto& evs = prof.events();
  auto nodes = named(evs, "autograd::engine::evaluate_function: MulBackward0");
  ASSERT_EQ(nodes.size(), 1u);
  int muls_inside = 0;
  for (const FunctionEvent* m : named(evs, "ember::mul")) muls_inside += inside(evs, *m, *nodes[0]);
  EXPECT_GE(muls_inside, 1);
  ASSERT_EQ(named(evs, "autograd::engine::evaluate_function: SumBackward0").size(), 1u);
}

TEST_P(Profiler, MemoryEventsAndTotalsReturnToTheStart) {
  const Device d = GetParam();
  Tensor before = ones({100}, TensorOptions().device(d));  // allocated before: its free is not
  profiler::profile prof(all_options());
  {
    profiler::record_function r("make");
    Tensor a = zeros({256}, TensorOptions().device(d));  // 1 KiB
    Tensor b = a + 1.0;
    before = Tensor();
  }
  const auto& mem = prof.memory_events();
  // The running total of each device (the scalar 1.0 is a 0-dim CPU tensor: cpu events too).
  std::map<std::string, int64_t> sum;
  std::vector<int64_t> on_device;
  for (const auto& m : mem) {
    sum[m.device.str()] += m.bytes;
    EXPECT_EQ(m.total_allocated, sum[m.device.str()]) << m.device;
    EXPECT_NE(m.address, 0u);
    EXPECT_NE(m.op, -1);  // charged to a range
    if (m.device == d && (m.bytes == 1024 || m.bytes == -1024)) on_device.push_back(m.bytes);
  }
  for (const auto& [device, total] : sum) EXPECT_EQ(total, 0) << device;
  // zeros and the sum (1 KiB each) allocated, then both freed; `before` is not reported.
  ASSERT_EQ(on_device.size(), 4u);
  EXPECT_EQ(on_device[0], 1024);
  EXPECT_EQ(on_device[1], 1024);
  EXPECT_EQ(on_device[2] + on_device[3], -2048);
  // Each output is charged to the op that made it (zeros to its fill_, the sum to add), the frees
  // to "make", where they happened: no net memory inside "make".
  const auto avg = prof.key_averages();
  auto self_mem = [&](const profiler::FunctionEventAvg& r) {
    return d.is_cuda() ? r.self_cuda_memory_usage : r.self_cpu_memory_usage;
  };
  EXPECT_EQ(self_mem(avg.at("ember::fill_")), 1024);
  EXPECT_EQ(self_mem(avg.at("ember::add")), 1024);
  EXPECT_EQ(self_mem(avg.at("make")), -2048);
  EXPECT_EQ(avg.at("make").cpu_memory_usage, 0);
  EXPECT_EQ(avg.at("make").cuda_memory_usage, 0);
  for (const auto& m : mem) {
    if (m.bytes == 1024) EXPECT_NE(m.op, -1);
  }
  const std::string table = avg.table();
  EXPECT_NE(table.find("CPU Mem"), std::string::npos) << table;
  EXPECT_EQ(table.find("CUDA Mem") != std::string::npos, d.is_cuda()) << table;
}

TEST_P(Profiler, ChromeTraceHasOpsRangesGpuTimeMemoryAndCopies) {
  const Device d = GetParam();
  Tensor host = arange(64, TensorOptions().dtype(kFloat));
  const std::string path = temp_path("trace_" + d.str() + ".json");
  {
    profiler::profile prof(all_options());
    {
      profiler::record_function step("train_step");
      Tensor x = host.to(d);
      Tensor y = (x * x).sum();
      float v = y.item<float>();
      EXPECT_EQ(v, 85344.0f);
    }
    prof.export_chrome_trace(path);
  }
  const json doc = read_json(path);
  std::remove(path.c_str());
  ASSERT_TRUE(doc.contains("traceEvents"));
  const json& evs = doc["traceEvents"];
  const int64_t pid = ::getpid();
  const json* step = nullptr;
  std::vector<const json*> ops, kernels, memory, counters, copies, syncs, flows;
  for (const json& e : evs) {
    ASSERT_TRUE(e.contains("ph") && e.contains("name") && e.contains("pid")) << e.dump();
    const std::string ph = e["ph"], name = e["name"];
    if (ph == "M") continue;
    ASSERT_TRUE(e.contains("ts")) << e.dump();
    if (ph == "X") {
      ASSERT_TRUE(e.contains("dur") && e.contains("tid") && e.contains("cat")) << e.dump();
      EXPECT_GE(e["dur"].get<double>(), 0.0) << e.dump();
      const std::string cat = e["cat"];
      if (name == "train_step") step = &e;
      if (cat == "cpu_op") ops.push_back(&e);
      if (cat == "kernel" || cat == "gpu_memcpy") kernels.push_back(&e);
      if (cat == "cuda_sync") syncs.push_back(&e);
    } else if (ph == "i" && name == "[memory]") {
      memory.push_back(&e);
    } else if (ph == "i") {
      copies.push_back(&e);
    } else if (ph == "C") {
      counters.push_back(&e);
    } else if (ph == "s" || ph == "f") {
      flows.push_back(&e);
    }
  }
  ASSERT_NE(step, nullptr);
  EXPECT_EQ((*step)["pid"], pid);
  const double t0 = (*step)["ts"], t1 = t0 + (*step)["dur"].get<double>();
  bool saw_mul = false;
  for (const json* op : ops) {
    EXPECT_EQ((*op)["pid"], pid);
    EXPECT_EQ((*op)["tid"], (*step)["tid"]);
    // Every op ran inside the record_function range.
    EXPECT_GE((*op)["ts"].get<double>(), t0);
    EXPECT_LE((*op)["ts"].get<double>() + (*op)["dur"].get<double>(), t1 + 1e-3);
    const json& args = (*op)["args"];
    ASSERT_TRUE(args.contains("device")) << op->dump();
    if ((*op)["name"] == "ember::mul") {
      saw_mul = true;
      EXPECT_EQ(args["device"], d.str());
      EXPECT_EQ(args["Input Dims"], json::parse("[[64], [64]]"));
      EXPECT_EQ(args["Input type"], json::parse(R"(["Float", "Float"])"));
    }
  }
  EXPECT_TRUE(saw_mul);

  // Memory: instants with the running total, a counter track per device back to 0 at the end.
  ASSERT_FALSE(memory.empty());
  std::map<int64_t, int64_t> bytes_by_device;
  for (const json* m : memory)
    bytes_by_device[(*m)["args"]["Device Id"]] += (*m)["args"]["Bytes"].get<int64_t>();
  for (const auto& [device, bytes] : bytes_by_device) EXPECT_EQ(bytes, 0) << "device " << device;
  std::map<std::string, int64_t> last_total;
  for (const json* c : counters) last_total[(*c)["name"]] = (*c)["args"]["Total Allocated"];
  ASSERT_TRUE(last_total.count("Memory " + d.str())) << "no counter for " << d;
  for (const auto& [track, total] : last_total) EXPECT_EQ(total, 0) << track;

  if (!d.is_cuda()) {
    EXPECT_TRUE(kernels.empty());
    EXPECT_TRUE(copies.empty());
    EXPECT_TRUE(syncs.empty());
    return;
  }
  // CUDA: every op's GPU time on a track of the device's process, joined by flow arrows.
  EXPECT_FALSE(kernels.empty());
  for (const json* k : kernels) {
    EXPECT_NE((*k)["pid"], pid);
    EXPECT_EQ((*k)["args"]["device"], d.index());
  }
  EXPECT_EQ(flows.size(), 2 * kernels.size());
  bool names_device = false;
  for (const json& e : evs) {
    if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == d.str())
      names_device = true;
  }
  EXPECT_TRUE(names_device);
  // The copies: pageable host->device of 256 bytes, and item()'s 4-byte device->host read.
  std::map<std::string, int64_t> copy_bytes;
  for (const json* c : copies)
    copy_bytes[(*c)["args"]["direction"]] += (*c)["args"]["bytes"].get<int64_t>();
  EXPECT_EQ(copy_bytes["HtoD"], 256);
  EXPECT_EQ(copy_bytes["DtoH"], 4);
  bool memcpy_on_gpu = false;
  for (const json* k : kernels) memcpy_on_gpu |= (*k)["name"] == "Memcpy HtoD (Pageable -> Device)";
  EXPECT_TRUE(memcpy_on_gpu);
  // The syncs: the blocking copy in, and item().
  bool item_sync = false;
  for (const json* s : syncs) {
    EXPECT_EQ((*s)["args"]["implicit"], true);
    item_sync |= (*s)["args"]["reason"] == "item()";
  }
  EXPECT_TRUE(item_sync) << "no sync for item()";
  ASSERT_TRUE(doc["deviceProperties"].is_array());
  EXPECT_EQ(doc["deviceProperties"].size(), 1u);
}

TEST_P(Profiler, KeyAveragesTableAsPyTorch) {
  const Device d = GetParam();
  Tensor x = ones({8}, TensorOptions().device(d));
  profiler::profile prof(ProfileOptions().record_shapes(true));
  for (int i = 0; i < 3; ++i) x = x + 1.0;
  {
    profiler::record_function r("block");
    x = x.exp();
  }
  auto avg = prof.key_averages();
  EXPECT_EQ(avg.at("ember::add").count, 3);
  EXPECT_EQ(avg.at("block").count, 1);
  EXPECT_GE(avg.at("block").cpu_time_total, avg.at("ember::exp").cpu_time_total);
  EXPECT_LE(avg.at("block").self_cpu_time_total, avg.at("block").cpu_time_total);
  if (d.is_cuda()) {
    EXPECT_GT(avg.at("ember::add").self_cuda_time_total, 0);
    EXPECT_EQ(avg.at("block").self_cuda_time_total, 0);
    EXPECT_DOUBLE_EQ(avg.at("block").cuda_time_total, avg.at("ember::exp").cuda_time_total);
  }
  const std::string table = avg.table("count", 10);
  // Header, then rows largest count first; PyTorch's footer.
  EXPECT_NE(table.find("Self CPU %"), std::string::npos) << table;
  EXPECT_NE(table.find("# of Calls"), std::string::npos) << table;
  EXPECT_EQ(table.find("Self CUDA") != std::string::npos, d.is_cuda()) << table;
  EXPECT_NE(table.find("Self CPU time total: "), std::string::npos) << table;
  EXPECT_LT(table.find("ember::add"), table.find("ember::exp")) << table;
  EXPECT_EQ(table.rfind("---", 0), 0u) << table;
  EXPECT_THROW((void)avg.table("fastest"), ValueError);
  EXPECT_THROW((void)avg.at("ember::nothing"), ValueError);
  // Grouped by input shape: the shapes column.
  auto by_shape = prof.key_averages(/*group_by_input_shape=*/true);
  EXPECT_EQ(by_shape.at("ember::add").input_shapes, (std::vector<std::vector<int64_t>>{{8}, {}}));
  EXPECT_NE(by_shape.table().find("Input Shapes"), std::string::npos);
}

TEST_P(Profiler, OpsOfOtherThreadsOnTheirOwnTrack) {
  const Device d = GetParam();
  Tensor x = ones({4}, TensorOptions().device(d));
  profiler::profile prof;
  Tensor main_result = x + 1.0;
  std::thread([&] {
    if (d.is_cuda()) cuda::set_device(d.index());
    Tensor y = x * 3.0;
  }).join();
  const auto& evs = prof.events();
  auto adds = named(evs, "ember::add"), muls = named(evs, "ember::mul");
  ASSERT_EQ(adds.size(), 1u);
  ASSERT_EQ(muls.size(), 1u);
  EXPECT_NE(adds[0]->thread, muls[0]->thread);
  EXPECT_EQ(muls[0]->device, d);
}

INSTANTIATE_TEST_SUITE_P(Devices, Profiler, ::testing::ValuesIn(testing::test_devices()),
                         [](const auto& info) {
                           std::string s = info.param.str();
                           for (char& c : s) c = c == ':' ? '_' : c;
                           return s;
                         });

TEST(ProfilerScope, NothingIsRecordedOutsideAProfile) {
  EXPECT_FALSE(profiler::is_enabled());
  {
    profiler::record_function r("nobody listens");
    Tensor x = ones({2}) + 1.0;
  }
  profiler::profile prof;
  EXPECT_TRUE(profiler::is_enabled());
  Tensor a = ones({2}) * 2.0;
  prof.stop();
  EXPECT_FALSE(profiler::is_enabled());
  Tensor b = ones({2}) * 3.0;  // after stop
  EXPECT_EQ(named(prof.events(), "ember::mul").size(), 1u);
  EXPECT_TRUE(named(prof.events(), "nobody listens").empty());
  prof.stop();  // idempotent
}

TEST(ProfilerScope, OneProfileAtATime) {
  profiler::profile first;
  try {
    profiler::profile second;
    FAIL() << "a second profile started";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Profiler is already enabled"), std::string::npos)
        << e.what();
  }
  first.stop();
  profiler::profile third;  // fine once the first stopped
  Tensor x = ones({1}) + 1.0;
  EXPECT_EQ(named(third.events(), "ember::add").size(), 1u);
}

TEST(ProfilerScope, RangesEndedOutOfOrderKeepTheStackIntact) {
  profiler::profile prof;
  auto outer = std::make_unique<profiler::record_function>("outer");
  profiler::record_function inner("inner");
  outer->end();  // ends before inner
  Tensor x = ones({1}) + 1.0;
  inner.end();
  Tensor y = ones({1}) * 1.0;
  const auto& evs = prof.events();
  ASSERT_EQ(named(evs, "outer").size(), 1u);
  auto in = named(evs, "inner");
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(named(evs, "ember::add")[0]->parent, in[0]->id);
  EXPECT_EQ(named(evs, "ember::mul")[0]->parent, -1);
}

TEST(ProfilerScope, CpuOnlyActivityRecordsNoGpuTime) {
  EMBER_SKIP_WITHOUT_CUDA();
  const auto devices = testing::cuda_devices();
  Tensor x = ones({4}, TensorOptions().device(devices[0]));
  profiler::profile prof({ProfilerActivity::CPU});
  Tensor y = x + 1.0;
  auto adds = named(prof.events(), "ember::add");
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_EQ(adds[0]->device, devices[0]);
  EXPECT_FALSE(adds[0]->has_cuda_time);
}

TEST(ProfilerScope, EmitNvtxRecordsNothing) {
  {
    profiler::emit_nvtx nvtx;
    EXPECT_TRUE(profiler::is_enabled());
    profiler::record_function r("nvtx only");
    Tensor x = ones({3}) + 1.0;
    EXPECT_EQ(x.sum().item<float>(), 6.0f);
  }
  EXPECT_FALSE(profiler::is_enabled());
  profiler::emit_nvtx off(false);
  EXPECT_FALSE(profiler::is_enabled());
}

// The profiler reaches core through the listener it attaches (core/listener.h): attached exactly
// while a profile records or an emit_nvtx scope is open, so that core's hooks cost one load else.
TEST(ProfilerScope, ListenerAttachedOnlyWhileOn) {
  EXPECT_EQ(audit::listener(), nullptr);
  {
    profiler::profile prof;
    EXPECT_NE(audit::listener(), nullptr);
    {
      profiler::emit_nvtx nvtx;
      EXPECT_NE(audit::listener(), nullptr);
    }
    EXPECT_NE(audit::listener(), nullptr);  // the profile still records
  }
  EXPECT_EQ(audit::listener(), nullptr);
  {
    profiler::emit_nvtx nvtx;
    EXPECT_NE(audit::listener(), nullptr);
  }
  EXPECT_EQ(audit::listener(), nullptr);
}

TEST(ChromeTrace, WrittenAtomically) {
  const std::string path = temp_path("atomic.json");
  {
    std::ofstream old(path);
    old << "previous contents";
  }
  profiler::profile prof;
  Tensor x = ones({2}) + 1.0;
  prof.export_chrome_trace(path);
  EXPECT_TRUE(read_json(path).contains("traceEvents"));
  // No temporary file left next to it.
  const auto dir = std::filesystem::path(path).parent_path();
  const std::string stem = std::filesystem::path(path).filename().string();
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string f = entry.path().filename().string();
    EXPECT_FALSE(f.rfind(stem + ".tmp", 0) == 0) << "left behind: " << f;
  }
  std::remove(path.c_str());
  // A directory that does not exist: an Error naming the file, nothing written.
  const std::string bad = temp_path("no_such_dir") + "/trace.json";
  try {
    prof.export_chrome_trace(bad);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
}

// One call of a backend family through the profiler's wrapper: the op it must record.
struct FamilyCall {
  const char* family;  // its name in EMBER_BACKEND_FAMILIES
  std::function<void(Backend&)> call;
  std::string label;
  std::vector<std::vector<int64_t>> input_shapes;
};

Tensor meta(std::vector<int64_t> sizes, ScalarType dtype = kFloat) {
  return empty(sizes, TensorOptions().device(kMeta).dtype(dtype));
}

// The meta backend runs no kernel, so operands need not agree: each input gets a shape of its
// own, and the recorded shapes show which tensors were taken as inputs, in which order.
std::vector<FamilyCall> every_family_call() {
  const Window g{1, 4, 4, 2, 2, 1, 1, 0, 0, 1, 1, 3, 3};
  auto gemm = [](int64_t batch, double beta) {
    return [=](Backend& b) {
      b.gemm(meta({batch, 2, 4}), meta({batch, 2, 3}), meta({1, 3, 4}), 1.0, beta);
    };
  };
  auto random = [](RandomKind kind) {
    return [=](Backend& b) { b.random(meta({6}), kind, 0, 1, 7, 0); };
  };
  return {
      {"fill", [](Backend& b) { b.fill(meta({2}), 1.0); }, "ember::fill_", {{2}}},
      {"copy",
       [](Backend& b) {
         b.copy(meta({3}), meta({1, 3}), false);
       },
       "ember::copy_",
       {{3}, {1, 3}}},
      {"unary",
       [](Backend& b) {
         b.unary(UnaryOp::Exp, meta({2, 3}), meta({1, 2, 3}), {});
       },
       "ember::exp",
       {{1, 2, 3}}},
      {"binary",
       [](Backend& b) {
         b.binary(BinaryOp::Add, meta({2, 3}), meta({1, 3}), meta({2, 1}), {});
       },
       "ember::add",
       {{1, 3}, {2, 1}}},
      {"where",
       [](Backend& b) { b.where(meta({2}), meta({3}, kBool), meta({4}), meta({5})); },
       "ember::where",
       {{3}, {4}, {5}}},
      {"reduce",
       [](Backend& b) {
         b.reduce(ReduceOp::Sum, meta({1, 3}), meta({2, 3}));
       },
       "ember::sum",
       {{2, 3}}},
      {"arg_reduce",
       [](Backend& b) {
         b.arg_reduce(true, meta({2, 1}), meta({2, 1}, kLong), meta({2, 3}), 1);
       },
       "ember::argmax",
       {{2, 3}}},
      {"arg_reduce",
       [](Backend& b) {
         b.arg_reduce(false, meta({2, 1}), meta({2, 1}, kLong), meta({2, 3}), 1);
       },
       "ember::argmin",
       {{2, 3}}},
      {"gemm", gemm(1, 0), "ember::mm", {{1, 2, 3}, {1, 3, 4}}},
      {"gemm", gemm(5, 0), "ember::bmm", {{5, 2, 3}, {1, 3, 4}}},
      {"gemm", gemm(1, 1), "ember::addmm", {{1, 2, 3}, {1, 3, 4}}},
      {"gemm", gemm(5, 1), "ember::baddbmm", {{5, 2, 3}, {1, 3, 4}}},
      {"arange", [](Backend& b) { b.arange(meta({6}), 0, 1); }, "ember::arange", {{6}}},
      {"random", random(RandomKind::Uniform), "ember::uniform_", {{6}}},
      {"random", random(RandomKind::Normal), "ember::normal_", {{6}}},
      {"random", random(RandomKind::RandInt), "ember::random_", {{6}}},
      {"index_select",
       [](Backend& b) {
         b.index_select(meta({2, 3}), meta({5, 3}), 0, meta({2}, kLong));
       },
       "ember::index_select",
       {{5, 3}, {2}}},
      {"index_add",
       [](Backend& b) {
         b.index_add(meta({5, 3}), 0, meta({2}, kLong), meta({2, 3}));
       },
       "ember::index_add_",
       {{5, 3}, {2}, {2, 3}}},
      {"index_copy",
       [](Backend& b) {
         b.index_copy(meta({5, 3}), 0, meta({2}, kLong), meta({2, 3}));
       },
       "ember::index_copy_",
       {{5, 3}, {2}, {2, 3}}},
      // Meta refuses nonzero (its size needs the values); the op is recorded all the same.
      {"nonzero",
       [](Backend& b) { EXPECT_THROW(b.nonzero(meta({4}, kBool)), NotImplementedError); },
       "ember::nonzero",
       {{4}}},
      {"gather",
       [](Backend& b) {
         b.gather(meta({2, 3}), meta({5, 3}), 0, meta({2, 1}, kLong));
       },
       "ember::gather",
       {{5, 3}, {2, 1}}},
      {"scatter_add",
       [](Backend& b) {
         b.scatter_add(meta({5, 3}), 0, meta({2, 1}, kLong), meta({2, 3}));
       },
       "ember::scatter_add_",
       {{5, 3}, {2, 1}, {2, 3}}},
      {"sort",
       [](Backend& b) {
         b.sort(meta({2, 3}), meta({2, 3}, kLong), meta({1, 2, 3}), false);
       },
       "ember::sort",
       {{1, 2, 3}}},
      {"scan",
       [](Backend& b) {
         b.scan(ScanOp::Sum, meta({2, 3}), meta({1, 6}), 1, 6, 1);
       },
       "ember::cumsum",
       {{1, 6}}},
      {"scan",
       [](Backend& b) {
         b.scan(ScanOp::Prod, meta({2, 3}), meta({1, 6}), 1, 6, 1);
       },
       "ember::cumprod",
       {{1, 6}}},
      {"im2col",
       [=](Backend& b) {
         b.im2col(meta({1, 4, 9}), meta({1, 1, 4, 4}), g);
       },
       "ember::im2col",
       {{1, 1, 4, 4}}},
      {"col2im",
       [=](Backend& b) {
         b.col2im(meta({1, 1, 4, 4}), meta({1, 4, 9}), g);
       },
       "ember::col2im",
       {{1, 4, 9}}},
      {"softmax",
       [](Backend& b) {
         b.softmax(meta({2, 3}), meta({6}), 2, 3, 1, false);
       },
       "ember::_softmax",
       {{6}}},
      {"softmax",
       [](Backend& b) {
         b.softmax(meta({2, 3}), meta({6}), 2, 3, 1, true);
       },
       "ember::_log_softmax",
       {{6}}},
      {"softmax_backward",
       [](Backend& b) {
         b.softmax_backward(meta({2, 3}), meta({6}), meta({3, 2}), 2, 3, 1, false);
       },
       "ember::_softmax_backward_data",
       {{6}, {3, 2}}},
      {"softmax_backward",
       [](Backend& b) {
         b.softmax_backward(meta({2, 3}), meta({6}), meta({3, 2}), 2, 3, 1, true);
       },
       "ember::_log_softmax_backward_data",
       {{6}, {3, 2}}},
      {"max_pool2d",
       [=](Backend& b) {
         b.max_pool2d(meta({1, 3, 3}), meta({1, 3, 3}, kLong), meta({1, 4, 4}), g);
       },
       "ember::max_pool2d_with_indices",
       {{1, 4, 4}}},
      {"max_pool2d_backward",
       [=](Backend& b) {
         b.max_pool2d_backward(meta({1, 4, 4}), meta({1, 3, 3}), meta({1, 9}, kLong), g);
       },
       "ember::max_pool2d_with_indices_backward",
       {{1, 3, 3}, {1, 9}}},
      {"convolution",
       [](Backend& b) {
         const Window c{2, 5, 5, 3, 3, 1, 1, 0, 0, 1, 1, 3, 3};
         b.convolution(meta({1, 3, 3, 3}), meta({1, 2, 5, 5}), meta({3, 2, 3, 3}), meta({3}), c, 1);
       },
       "ember::convolution",
       {{1, 2, 5, 5}, {3, 2, 3, 3}}},
      {"convolution_backward",
       [](Backend& b) {
         const Window c{2, 5, 5, 3, 3, 1, 1, 0, 0, 1, 1, 3, 3};
         b.convolution_backward(meta({1, 2, 5, 5}), meta({3, 2, 3, 3}), Tensor(),
                                meta({1, 3, 3, 3}), meta({1, 2, 5, 5}), meta({3, 2, 3, 3}), c, 1);
       },
       "ember::convolution_backward",
       {{1, 3, 3, 3}, {1, 2, 5, 5}, {3, 2, 3, 3}}},
      {"attention",
       [](Backend& b) {
         const AttentionGeometry a{1, 2, 1, 3, 4, 5, 6, 0.5, false, 0.0, 0, 0, false, {}};
         b.attention(meta({1, 2, 3, 6}), meta({1, 2, 3}), meta({1, 2, 3, 5}), meta({1, 1, 4, 5}),
                     meta({1, 1, 4, 6}), Tensor(), a);
       },
       "ember::_scaled_dot_product_flash_attention",
       {{1, 2, 3, 5}, {1, 1, 4, 5}, {1, 1, 4, 6}}},
      {"attention_backward",
       [](Backend& b) {
         const AttentionGeometry a{1, 2, 1, 3, 4, 5, 6, 0.5, false, 0.0, 0, 0, false, {}};
         b.attention_backward(meta({1, 2, 3, 5}), meta({1, 1, 4, 5}), meta({1, 1, 4, 6}),
                              meta({1, 2, 3, 6}), meta({1, 2, 3, 5}), meta({1, 1, 4, 5}),
                              meta({1, 1, 4, 6}), meta({1, 2, 3, 6}), meta({1, 2, 3}), Tensor(), a);
       },
       "ember::_scaled_dot_product_flash_attention_backward",
       {{1, 2, 3, 6}, {1, 2, 3, 5}, {1, 1, 4, 5}, {1, 1, 4, 6}}},
      {"row_norm",
       [](Backend& b) {
         const RowNormGeometry n{6, 8, 3, 2, 1e-5};  // group_norm: 3 groups, 2 channels of 4
         b.row_norm(meta({2, 6, 4}), meta({6}), meta({6}), meta({2, 6, 4}), meta({6}), meta({6}),
                    n);
       },
       "ember::native_group_norm",
       {{2, 6, 4}}},
      {"row_norm_backward",
       [](Backend& b) {
         const RowNormGeometry n{4, 5, 1, 5, 1e-5};  // layer_norm over the last 5
         b.row_norm_backward(meta({4, 5}), meta({5}), Tensor(), meta({4, 5}), meta({4, 5}),
                             meta({4}), meta({4}), meta({5}), n);
       },
       "ember::native_layer_norm_backward",
       {{4, 5}, {4, 5}}},
      {"lu_factor",
       [](Backend& b) {
         b.lu_factor(meta({2, 3, 3}), meta({2, 3}, kInt), meta({2}, kInt));
       },
       "ember::linalg_lu_factor_ex",
       {{2, 3, 3}}},
      {"lu_solve",
       [](Backend& b) {
         b.lu_solve(meta({2, 4, 3}), meta({2, 3, 3}), meta({2, 3}, kInt), true);
       },
       "ember::linalg_lu_solve",
       {{2, 3, 3}, {2, 4, 3}}},
      {"cholesky",
       [](Backend& b) {
         b.cholesky(meta({2, 3, 3}), meta({2}, kInt));
       },
       "ember::linalg_cholesky_ex",
       {{2, 3, 3}}},
      {"geqrf",
       [](Backend& b) {
         b.geqrf(meta({2, 3, 4}), meta({2, 3}));
       },
       "ember::geqrf",
       {{2, 3, 4}}},
      {"householder_product",
       [](Backend& b) {
         b.householder_product(meta({2, 3, 4}), meta({2, 3}));
       },
       "ember::linalg_householder_product",
       {{2, 3, 4}, {2, 3}}},
      {"eigh",
       [](Backend& b) {
         b.eigh(meta({2, 3, 3}), meta({2, 3}), meta({2}, kInt));
       },
       "ember::linalg_eigh",
       {{2, 3, 3}}},
      {"svd",
       [](Backend& b) {
         b.svd(meta({2, 3, 4}), meta({2, 3, 4}), meta({2, 3}), meta({2, 3, 3}), meta({2}, kInt));
       },
       "ember::_linalg_svd",
       {{2, 3, 4}}},
      {"non_finite_check_and_unscale",
       [](Backend& b) {
         b.non_finite_check_and_unscale({meta({7})}, meta({1}), meta({1, 1}));
       },
       "ember::_amp_foreach_non_finite_check_and_unscale_",
       {{1}, {1, 1}}},
      {"update_scale",
       [](Backend& b) { b.update_scale(meta({1}), meta({2}, kInt), meta({3}), 2.0, 0.5, 2000); },
       "ember::_amp_update_scale_",
       {{1}, {2}, {3}}},
  };
}

#define EMBER_FAMILY_NAME(name, ...) #name,

// A forwarder of src/profiler/profiled_backend.cpp that is missing, mislabeled or records the
// wrong inputs fails here; so does a family added to EMBER_BACKEND_FAMILIES without a call above.
TEST(ProfiledBackend, EveryFamilyIsOneOpWithItsNameAndInputs) {
  const std::set<std::string> families = {EMBER_BACKEND_FAMILIES(EMBER_FAMILY_NAME)};
  std::set<std::string> called;
  for (const FamilyCall& c : every_family_call()) {
    SCOPED_TRACE(c.label);
    called.insert(c.family);
    profiler::profile prof(ProfileOptions().record_shapes(true));
    c.call(backend_for(Device(kMeta)));
    prof.stop();
    std::vector<const FunctionEvent*> ops;
    for (const auto& e : prof.events()) {
      if (e.kind == EventKind::Op) ops.push_back(&e);
    }
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_EQ(ops[0]->name, c.label);
    EXPECT_EQ(ops[0]->input_shapes, c.input_shapes);
  }
  EXPECT_EQ(called, families);
}

}  // namespace
}  // namespace ember
