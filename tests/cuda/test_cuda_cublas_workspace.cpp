// The cuBLAS workspace (src/cuda/cublas_workspace.h): one per (device, stream) from the caching
// allocator, bound with cublasSetWorkspace after cublasSetStream before every GEMM. Its size
// (CUBLAS_WORKSPACE_CONFIG, PyTorch's defaults), the memory statistics, a workspace per stream,
// empty_cache while GEMMs are queued, the out-of-memory path, and GEMM results against the CPU.
// On the simulator, also what cuBLAS was given on which stream (cuda_sim::last_cublas_gemm) and
// cublasSetWorkspace's own rules. The CUDA parts skip visibly without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "cuda/cublas_workspace.h"
#include "cuda_policy/cublas_workspace_config.h"
#include "ember/cuda.h"
#include "ember/nn.h"
#include "ember/ops.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"
#if defined(EMBER_TEST_WITH_SIM)
#include <cublas_v2.h>

#include "cuda_sim.h"
#endif

namespace ember {
namespace {

using cuda_policy::default_cublas_workspace_size;
using cuda_policy::parse_cublas_workspace_config;
using testing::contains;
using testing::error_of;
using testing::expect_close;
using testing::make_input;

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

// ---- the size: CUBLAS_WORKSPACE_CONFIG and PyTorch's defaults (plain C++, every build) ----

TEST(CublasWorkspaceConfig, DefaultsArePyTorchs) {
  // (Simulated devices report sm_90 but default to 64 KiB: src/cuda/cublas_workspace.cpp.)
  EXPECT_EQ(default_cublas_workspace_size(9, 0), 32 * MiB);  // Hopper: cuBLAS's recommendation
  EXPECT_EQ(default_cublas_workspace_size(8, 0), 8 * MiB + 128 * KiB);  // ":4096:2:16:8"
  EXPECT_EQ(default_cublas_workspace_size(8, 9), 8 * MiB + 128 * KiB);
  EXPECT_EQ(default_cublas_workspace_size(10, 0), 8 * MiB + 128 * KiB);  // PyTorch tests 9.0 only
}

TEST(CublasWorkspaceConfig, ParsesSizeCountGroups) {
  const size_t d = 12345;
  EXPECT_EQ(parse_cublas_workspace_config(nullptr, d), d);
  EXPECT_EQ(parse_cublas_workspace_config("", d), d);
  EXPECT_EQ(parse_cublas_workspace_config(":4096:8", d), 32 * MiB);
  EXPECT_EQ(parse_cublas_workspace_config(":16:8", d), 128 * KiB);
  EXPECT_EQ(parse_cublas_workspace_config(":4096:2:16:8", d), 8 * MiB + 128 * KiB);
  EXPECT_EQ(parse_cublas_workspace_config(":1:1:1:1:1:1", d), 3 * KiB);
  EXPECT_EQ(parse_cublas_workspace_config(":0:0", d), 0u);
  EXPECT_EQ(parse_cublas_workspace_config(":007:2", d), 14 * KiB);
}

TEST(CublasWorkspaceConfig, BadValuesNameTheVariableAndTheValue) {
  for (const char* bad :
       {"4096:8", ":4096", ":4096:", ":4096:x", ":4096:8:", ":4096:8,:16:8", " :4096:8", ":-1:2",
        "::", "32MiB", ":99999999999999999999:1", ":18014398509481984:1024"}) {
    const std::string m = error_of<ValueError>([&] { parse_cublas_workspace_config(bad, 1); });
    EXPECT_TRUE(contains(m, std::string("CUBLAS_WORKSPACE_CONFIG='") + bad + "' is not valid"))
        << bad << ": " << m;
    EXPECT_TRUE(contains(m, ":SIZE:COUNT")) << m;
  }
}

// ---- on CUDA devices ----

class CublasWorkspace : public ::testing::Test {
 protected:
  void SetUp() override {
    EMBER_SKIP_WITHOUT_CUDA();
    cuda::synchronize();
    cuda::empty_cache();  // also drops the workspaces earlier tests made
  }
  void TearDown() override {
    if (!cuda::is_available()) return;
    for (int d = 0; d < cuda::device_count(); ++d) cuda::set_per_process_memory_fraction(1.0, d);
  }
};

// The workspace Ember holds for `stream` of `device`, or {} when none.
cuda::CublasWorkspaceInfo held(int device, const void* stream) {
  for (const auto& w : cuda::cublas_workspaces()) {
    if (w.device == device && w.stream == stream) return w;
  }
  return {-1, nullptr, nullptr, 0};
}

// On the simulator: the last GEMM went to `stream` of `device` with Ember's workspace for it.
void expect_gemm_used_workspace_of(int device, const cuda::Stream& stream) {
#if defined(EMBER_TEST_WITH_SIM)
  const cuda_sim::CublasGemmRecord g = cuda_sim::last_cublas_gemm();
  const cuda::CublasWorkspaceInfo w = held(device, stream.stream());
  EXPECT_EQ(g.device, device);
  EXPECT_EQ(static_cast<const void*>(g.stream), stream.stream());
  EXPECT_TRUE(g.user_workspace) << "cublasSetWorkspace was not called after cublasSetStream";
  EXPECT_EQ(g.workspace, w.ptr);
  EXPECT_EQ(g.workspace_bytes, w.bytes);
  EXPECT_EQ(g.workspace_bytes, cuda::cublas_workspace_size(device));
#else
  (void)device;
  (void)stream;
#endif
}

Tensor on(const Tensor& t, Device d, ScalarType dt) {
  return t.to(d).to(dt);
}

// mm (cublasGemmEx), bmm and batched matmul (strided-batched), addmm and linear: every dtype
// cuBLAS serves, plain and transposed operands, against the CPU on the same values.
TEST_F(CublasWorkspace, MatmulsEqualTheCpu) {
  for (Device dev : testing::cuda_devices()) {
    const int di = dev.index();
    for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
      SCOPED_TRACE(dev.str() + " " + to_string(dt));
      const bool half = dt == kHalf || dt == kBFloat16;
      const double rtol = half ? 2e-2 : 1e-5, atol = half ? 2e-2 : 1e-5;
      // Inputs rounded to dt first, so the CPU sees exactly what the GPU sees.
      Tensor a = make_input({{37, 19}, kFloat}, 1).to(dt).to(kFloat);
      Tensor b = make_input({{19, 23}, kFloat}, 2).to(dt).to(kFloat);
      Tensor c = make_input({{37, 23}, kFloat}, 3).to(dt).to(kFloat);
      Tensor bias = make_input({{23}, kFloat}, 4).to(dt).to(kFloat);
      Tensor ba = make_input({{3, 37, 19}, kFloat}, 5).to(dt).to(kFloat);
      Tensor bb = make_input({{3, 19, 23}, kFloat}, 6).to(dt).to(kFloat);
      const cuda::Stream s = cuda::current_stream(di);

      expect_close(mm(on(a, dev, dt), on(b, dev, dt)).cpu().to(kFloat), mm(a, b), rtol, atol, "mm");
      expect_gemm_used_workspace_of(di, s);
      // Both operands stored transposed (unit row stride): handed to cuBLAS with CUBLAS_OP_T.
      expect_close(mm(on(a.t().contiguous(), dev, dt).t(), on(b.t().contiguous(), dev, dt).t())
                       .cpu()
                       .to(kFloat),
                   mm(a, b), rtol, atol, "mm of transposed operands");
      expect_close(bmm(on(ba, dev, dt), on(bb, dev, dt)).cpu().to(kFloat), bmm(ba, bb), rtol, atol,
                   "bmm");
      expect_gemm_used_workspace_of(di, s);
      expect_close(
          bmm(on(ba.narrow(0, 1, 1), dev, dt), on(bb.narrow(0, 2, 1), dev, dt)).cpu().to(kFloat),
          bmm(ba.narrow(0, 1, 1), bb.narrow(0, 2, 1)), rtol, atol, "bmm of one batch");
      expect_close(addmm(on(c, dev, dt), on(a, dev, dt), on(b, dev, dt), 0.5, 2.0).cpu().to(kFloat),
                   addmm(c, a, b, 0.5, 2.0), rtol, atol, "addmm");
      expect_gemm_used_workspace_of(di, s);
      expect_close(
          nn::functional::linear(on(a, dev, dt), on(b.t().contiguous(), dev, dt), on(bias, dev, dt))
              .cpu()
              .to(kFloat),
          nn::functional::linear(a, b.t().contiguous(), bias), rtol, atol, "linear");
      expect_close(matmul(on(ba, dev, dt), on(b, dev, dt)).cpu().to(kFloat), matmul(ba, b), rtol,
                   atol, "batched matmul with a shared matrix");
    }
  }
}

TEST_F(CublasWorkspace, ShowsInMemoryStatsAndIsKeptForTheNextGemm) {
  EMBER_SKIP_WITHOUT_CUDA_CACHING();
  const size_t ws = cuda::cublas_workspace_size(0);
  if (!std::getenv("CUBLAS_WORKSPACE_CONFIG")) {
    const cuda::DeviceProperties p = cuda::get_device_properties(0);
    EXPECT_EQ(ws,
              cuda::is_simulated() ? 64 * KiB : default_cublas_workspace_size(p.major, p.minor));
  }
  if (ws == 0) GTEST_SKIP() << "CUBLAS_WORKSPACE_CONFIG asks for no workspace";
  auto opts = TensorOptions().device("cuda:0");
  Tensor a = ones({64, 64}, opts), b = ones({64, 64}, opts);
  const size_t base = cuda::memory_allocated(0);
  auto allocations = [] { return cuda::memory_stats(0).at("allocation.all.allocated"); };
  const int64_t allocs = allocations();
  EXPECT_TRUE(cuda::cublas_workspaces().empty());
  {
    Tensor y = mm(a, b);
    EXPECT_EQ(y.cpu().sum().item<float>(), 64.0f * 64 * 64);
  }
  const int64_t first_gemm = allocations() - allocs;
  // Only the workspace is left (its block rounded to 512 bytes).
  EXPECT_EQ(cuda::memory_allocated(0), base + (ws + 511) / 512 * 512);
  const auto held_now = cuda::cublas_workspaces();
  ASSERT_EQ(held_now.size(), 1u);
  EXPECT_EQ(held_now[0].device, 0);
  EXPECT_EQ(held_now[0].stream, cuda::current_stream(0).stream());
  EXPECT_EQ(held_now[0].bytes, ws);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(held_now[0].ptr) % 256, 0u);
  auto stats = cuda::memory_stats(0);
  EXPECT_GE(stats.at("requested_bytes.all.current"), static_cast<int64_t>(ws));
  if (ws > MiB) EXPECT_GE(stats.at("allocated_bytes.large_pool.current"), static_cast<int64_t>(ws));
  const int64_t before_second = allocations();
  Tensor y = mm(a, b);  // the same workspace again: one allocation fewer than the first GEMM
  EXPECT_EQ(allocations() - before_second, first_gemm - 1);
  ASSERT_EQ(cuda::cublas_workspaces().size(), 1u);
  EXPECT_EQ(cuda::cublas_workspaces()[0].ptr, held_now[0].ptr);
  expect_gemm_used_workspace_of(0, cuda::current_stream(0));
}

TEST_F(CublasWorkspace, EachStreamAndDeviceGetsItsOwn) {
  const size_t ws = cuda::cublas_workspace_size(0);
  if (ws == 0) GTEST_SKIP() << "CUBLAS_WORKSPACE_CONFIG asks for no workspace";
  auto opts = TensorOptions().device("cuda:0");
  Tensor a = make_input({{48, 32}, kFloat}, 7), b = make_input({{32, 40}, kFloat}, 8);
  Tensor da = a.to(opts.device()), db = b.to(opts.device());
  const Tensor expected = mm(a, b);
  const cuda::Stream main_stream = cuda::current_stream(0);
  const cuda::Stream side = cuda::getStreamFromPool(false, 0);
  ASSERT_NE(main_stream, side);

  Tensor y_main = mm(da, db);
  expect_gemm_used_workspace_of(0, main_stream);
  const size_t after_main = cuda::memory_allocated(0);
  Tensor y_side;
  {
    cuda::StreamGuard g(side);
    Tensor sa = da.clone(), sb = db.clone();  // made and used on the side stream
    y_side = mm(sa, sb);
    expect_gemm_used_workspace_of(0, side);
  }
  const cuda::CublasWorkspaceInfo wm = held(0, main_stream.stream()), wsd = held(0, side.stream());
  ASSERT_NE(wm.ptr, nullptr);
  ASSERT_NE(wsd.ptr, nullptr);
  // Two workspaces that do not overlap: the side stream's GEMM may run while the main stream's
  // does, so neither may use the other's.
  const auto m0 = reinterpret_cast<uintptr_t>(wm.ptr), s0 = reinterpret_cast<uintptr_t>(wsd.ptr);
  EXPECT_TRUE(m0 + wm.bytes <= s0 || s0 + wsd.bytes <= m0) << wm.ptr << " " << wsd.ptr;
  EXPECT_GE(cuda::memory_allocated(0), after_main + ws);

  Tensor again = mm(da, db);  // back on the main stream: its own workspace again
  expect_gemm_used_workspace_of(0, main_stream);
  expect_close(y_main.cpu(), expected, 1e-5, 1e-5, "main stream");
  side.synchronize();
  expect_close(y_side.cpu(), expected, 1e-5, 1e-5, "side stream");
  expect_close(again.cpu(), expected, 1e-5, 1e-5, "main stream again");

  if (cuda::device_count() > 1) {
    Tensor y1 = mm(a.to("cuda:1"), b.to("cuda:1"));
    expect_gemm_used_workspace_of(1, cuda::current_stream(1));
    EXPECT_NE(held(1, cuda::current_stream(1).stream()).ptr, nullptr);
    expect_close(y1.cpu(), expected, 1e-5, 1e-5, "cuda:1");
  }
  EXPECT_EQ(cuda::cublas_workspaces().size(), cuda::device_count() > 1 ? 3u : 2u);
}

TEST_F(CublasWorkspace, EmptyCacheGivesTheWorkspacesBack) {
  EMBER_SKIP_WITHOUT_CUDA_CACHING();
  auto opts = TensorOptions().device("cuda:0");
  const size_t base = cuda::memory_allocated(0);
  {
    Tensor a = ones({32, 32}, opts);
    Tensor y = mm(a, a);
  }
  EXPECT_GT(cuda::memory_allocated(0), base);
  EXPECT_EQ(cuda::cublas_workspaces().size(), 1u);
  cuda::empty_cache();
  EXPECT_TRUE(cuda::cublas_workspaces().empty());
  EXPECT_EQ(cuda::memory_allocated(0), base);
  EXPECT_EQ(cuda::memory_reserved(0), cuda::memory_allocated(0));
  Tensor a = ones({32, 32}, opts);
  EXPECT_EQ(mm(a, a).cpu().sum().item<float>(), 32.0f * 32 * 32);  // the next GEMM takes a new one
  EXPECT_EQ(cuda::cublas_workspaces().size(), 1u);
  expect_gemm_used_workspace_of(0, cuda::current_stream(0));
}

// empty_cache() while GEMMs are still queued with a workspace, on other streams and from other
// threads: the workspace is freed only once no call holds it and its stream is done with it (on
// the simulator a GEMM writes to its workspace, so one freed too early faults).
TEST_F(CublasWorkspace, EmptyCacheWhileGemmsAreQueued) {
  Tensor a = make_input({{96, 80}, kFloat}, 9), b = make_input({{80, 72}, kFloat}, 10);
  const Tensor expected = mm(a, b);
  Tensor da = a.cuda(), db = b.cuda();
  const cuda::Stream side = cuda::getStreamFromPool(false, 0);
  std::vector<Tensor> results;
  {
    cuda::StreamGuard g(side);
    for (int i = 0; i < 8; ++i) {
      results.push_back(mm(da, db));
      cuda::empty_cache();  // the side stream's GEMMs may not have run yet
    }
  }
  std::thread worker([&] {
    const cuda::Stream mine = cuda::getStreamFromPool(false, 0);
    cuda::StreamGuard g(mine);
    for (int i = 0; i < 20; ++i) {
      Tensor y = mm(da, db);
      if (i % 5 == 4) {
        mine.synchronize();
        expect_close(y.cpu(), expected, 1e-5, 1e-5, "worker thread");
      }
    }
    mine.synchronize();
  });
  for (int i = 0; i < 20; ++i) {
    cuda::empty_cache();
    results.push_back(mm(da, db));
  }
  worker.join();
  side.synchronize();
  for (const Tensor& y : results) expect_close(y.cpu(), expected, 1e-5, 1e-5, "queued GEMM");
}

// CUBLAS_WORKSPACE_CONFIG is read on the first GEMM of each device, so these run in a fresh
// process (a death test's child) with the variable set there.
class CublasWorkspaceDeathTest : public CublasWorkspace {
 protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    CublasWorkspace::SetUp();
  }
};

[[noreturn]] void gemm_with_config(const char* config, size_t expected_bytes) {
  setenv("CUBLAS_WORKSPACE_CONFIG", config, 1);
  try {
    Tensor a = ones({8, 8}, TensorOptions().device("cuda:0"));
    const float s = mm(a, a).cpu().sum().item<float>();
    const auto held_now = cuda::cublas_workspaces();
    const bool ok = s == 512.0f && held_now.size() == 1 && held_now[0].bytes == expected_bytes &&
                    cuda::cublas_workspace_size(0) == expected_bytes;
#if defined(EMBER_TEST_WITH_SIM)
    const bool bound = cuda_sim::last_cublas_gemm().workspace_bytes == expected_bytes;
#else
    const bool bound = true;
#endif
    std::fprintf(stderr, "workspace of %zu bytes\n", held_now.empty() ? 0 : held_now[0].bytes);
    std::exit(ok && bound ? 0 : 1);
  } catch (const Error& e) {
    std::fprintf(stderr, "caught: %s\n", e.what());
    std::exit(2);
  }
}

TEST_F(CublasWorkspaceDeathTest, ConfigSetsTheSize) {
  EXPECT_EXIT(gemm_with_config(":1024:2:16:4", 2 * MiB + 64 * KiB), ::testing::ExitedWithCode(0),
              "workspace of 2162688 bytes");
}

TEST_F(CublasWorkspaceDeathTest, ABadConfigIsAValueErrorNamingIt) {
  EXPECT_EXIT(gemm_with_config(":4096:x", 0), ::testing::ExitedWithCode(2),
              "caught: CUBLAS_WORKSPACE_CONFIG=':4096:x' is not valid");
}

// Taking the workspace when the device is full takes the tensors' path: free the cached blocks
// and retry; if that is not enough, OutOfMemoryError, and the process goes on. Run with a 32 MiB
// workspace (CUBLAS_WORKSPACE_CONFIG=:4096:8, PyTorch's size on sm_90; simulated devices default
// to 64 KiB, which the small pool would serve) in a fresh process.
struct ChildChecks {
  bool ok = true;
  void expect(bool c, const char* what) {
    if (!c) std::fprintf(stderr, "check failed: %s\n", what);
    ok = ok && c;
  }
};

[[noreturn]] void oom_retry_with_a_32mib_workspace() {
  setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", 1);
  ChildChecks c;
  try {
    const size_t ws = cuda::cublas_workspace_size(0);
    c.expect(ws == 32 * MiB, "the workspace is 32 MiB");
    auto opts = TensorOptions().device("cuda:0");
    Tensor a = ones({16, 16}, opts), b = ones({16, 16}, opts);
    Tensor warm = mm(a, b);  // the small pool's segment has room for the outputs now
    cuda::empty_cache();     // and there is no workspace
    {
      // A cached block on another stream: the workspace (current stream) cannot reuse it.
      cuda::StreamGuard g(cuda::getStreamFromPool(false, 0));
      Tensor big = empty({static_cast<int64_t>((ws + 4 * MiB) / 4)}, opts);
    }
    const size_t total = cuda::mem_get_info(0).second;
    // Room for what is reserved now and a little more, not for the cached block and a workspace.
    cuda::set_per_process_memory_fraction(
        static_cast<double>(cuda::memory_reserved(0) + 2 * MiB + ws / 2) /
            static_cast<double>(total),
        0);
    const auto before = cuda::memory_stats(0);
    Tensor y = mm(a, b);
    const auto after = cuda::memory_stats(0);
    c.expect(after.at("num_alloc_retries") == before.at("num_alloc_retries") + 1,
             "one retry after freeing the cache");
    c.expect(after.at("num_ooms") == before.at("num_ooms"), "no out-of-memory error");
    c.expect(y.cpu().sum().item<float>() == 16.0f * 16 * 16, "the GEMM's result");
    c.expect(held(0, cuda::current_stream(0).stream()).bytes == ws, "the workspace is held");
  } catch (const Error& e) {
    std::fprintf(stderr, "caught: %s\n", e.what());
    c.ok = false;
  }
  std::exit(c.ok ? 0 : 1);
}

[[noreturn]] void oom_throw_with_a_32mib_workspace() {
  setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", 1);
  ChildChecks c;
  try {
    const size_t ws = cuda::cublas_workspace_size(0);
    auto opts = TensorOptions().device("cuda:0");
    Tensor a = ones({16, 16}, opts), b = ones({16, 16}, opts);
    Tensor out = mm(a, b);
    cuda::empty_cache();  // no workspace; the tensors stay
    const size_t total = cuda::mem_get_info(0).second;
    cuda::set_per_process_memory_fraction(
        static_cast<double>(cuda::memory_reserved(0) + ws / 2) / static_cast<double>(total), 0);
    const int64_t ooms = cuda::memory_stats(0).at("num_ooms");
    const std::string m = error_of<OutOfMemoryError>([&] { mm(a, b); });
    c.expect(contains(m, "CUDA out of memory. Tried to allocate"), m.c_str());
    c.expect(cuda::memory_stats(0).at("num_ooms") == ooms + 1, "num_ooms counts it");
    c.expect(cuda::cublas_workspaces().empty(), "no workspace is held after the error");
    cuda::set_per_process_memory_fraction(1.0, 0);
    c.expect(mm(a, b).cpu().sum().item<float>() == 16.0f * 16 * 16, "the next GEMM works");
    c.expect(cuda::cublas_workspaces().size() == 1, "and takes a workspace");
  } catch (const Error& e) {
    std::fprintf(stderr, "caught: %s\n", e.what());
    c.ok = false;
  }
  std::exit(c.ok ? 0 : 1);
}

TEST_F(CublasWorkspaceDeathTest, OutOfMemoryWhileTakingItFreesTheCacheAndRetries) {
  EMBER_SKIP_WITHOUT_CUDA_CACHING();
  EXPECT_EXIT(oom_retry_with_a_32mib_workspace(), ::testing::ExitedWithCode(0), "");
}

TEST_F(CublasWorkspaceDeathTest, OutOfMemoryWhileTakingItThrowsAndTheProcessGoesOn) {
  EXPECT_EXIT(oom_throw_with_a_32mib_workspace(), ::testing::ExitedWithCode(0), "");
}

#if defined(EMBER_TEST_WITH_SIM)
// cublasSetWorkspace as cuBLAS specifies it, on the simulator.
TEST_F(CublasWorkspace, SimulatedSetWorkspaceFollowsCublas) {
  if (!cuda::is_simulated()) GTEST_SKIP() << "simulator only";
  Tensor a = ones({4, 4}, TensorOptions().device("cuda:0")), c = zeros_like(a);
  Tensor space = empty({4096}, TensorOptions().device("cuda:0"));
  char* p = static_cast<char*>(space.data_ptr());
  cublasHandle_t h = nullptr;
  ASSERT_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasSetWorkspace(nullptr, p, 4096), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(cublasSetWorkspace(h, p + 128, 4096), CUBLAS_STATUS_INVALID_VALUE);  // unaligned
  const float one = 1, zero = 0;
  auto gemm = [&] {
    return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, a.data_ptr(), CUDA_R_32F, 4,
                        a.data_ptr(), CUDA_R_32F, 4, &zero, c.data_ptr(), CUDA_R_32F, 4,
                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  ASSERT_EQ(cublasSetStream(h, nullptr), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(gemm(), CUBLAS_STATUS_SUCCESS);
  EXPECT_FALSE(cuda_sim::last_cublas_gemm().user_workspace);  // cuBLAS's own pool
  ASSERT_EQ(cublasSetWorkspace(h, p + 256, 8192), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(gemm(), CUBLAS_STATUS_SUCCESS);
  EXPECT_TRUE(cuda_sim::last_cublas_gemm().user_workspace);
  EXPECT_EQ(cuda_sim::last_cublas_gemm().workspace, p + 256);
  EXPECT_EQ(cuda_sim::last_cublas_gemm().workspace_bytes, 8192u);
  ASSERT_EQ(cublasSetWorkspace(h, nullptr, 0), CUBLAS_STATUS_SUCCESS);  // none at all: allowed
  ASSERT_EQ(gemm(), CUBLAS_STATUS_SUCCESS);
  EXPECT_TRUE(cuda_sim::last_cublas_gemm().user_workspace);
  EXPECT_EQ(cuda_sim::last_cublas_gemm().workspace_bytes, 0u);
  ASSERT_EQ(cublasSetStream(h, nullptr), CUBLAS_STATUS_SUCCESS);  // back to the default pool
  ASSERT_EQ(gemm(), CUBLAS_STATUS_SUCCESS);
  EXPECT_FALSE(cuda_sim::last_cublas_gemm().user_workspace);
  EXPECT_EQ(c.cpu().sum().item<float>(), 64.0f);
  // The GEMM wrote to the workspace it was given, as cuBLAS's kernels may.
  ASSERT_EQ(cublasSetWorkspace(h, p, 4096 * 4), CUBLAS_STATUS_SUCCESS);
  space.fill_(0);
  ASSERT_EQ(gemm(), CUBLAS_STATUS_SUCCESS);
  EXPECT_NE(space.cpu().ne(0).sum().item<int64_t>(), 0);
  cublasDestroy(h);
}

[[noreturn]] void gemm_with_freed_workspace() {
  Tensor a = ones({4, 4}, TensorOptions().device("cuda:0")), c = zeros_like(a);
  void* freed = nullptr;
  {
    Tensor space = empty({1 << 20}, TensorOptions().device("cuda:0"));  // 4 MiB
    freed = space.data_ptr();
  }  // back to the caching allocator
  cublasHandle_t h = nullptr;
  cublasCreate(&h);
  cublasSetStream(h, nullptr);
  cublasSetWorkspace(h, freed, 4 << 20);
  const float one = 1, zero = 0;
  const cublasStatus_t s = cublasGemmEx(
      h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, a.data_ptr(), CUDA_R_32F, 4, a.data_ptr(),
      CUDA_R_32F, 4, &zero, c.data_ptr(), CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  std::exit(s == CUBLAS_STATUS_EXECUTION_FAILED ? 0 : 1);
}

TEST_F(CublasWorkspaceDeathTest, SimulatedGemmWithAFreedWorkspaceFaults) {
  if (!cuda::is_simulated()) GTEST_SKIP() << "simulator only";
  EMBER_SKIP_WITHOUT_CUDA_CACHING();  // without the cache the block is cudaFree'd: another report
  EXPECT_EXIT(gemm_with_freed_workspace(), ::testing::ExitedWithCode(0),
              "was given a workspace of 4194304 bytes whose start is memory of cuda:0 that the "
              "caching allocator has freed");
}
#endif

}  // namespace
}  // namespace ember
