// Ember's GPU benchmark program, with raw CUDA (cudaMalloc, cudaMemcpy, cuBLAS) as the physical
// reference column. GPU timings use CUDA events recorded after a synchronize; launch and
// allocation rows are host time. Row names and units match bench/gpu_bench.py, which runs the
// same work in PyTorch, pairs the rows and checks issue 11's targets (its TARGETS list).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include <ember/amp.h>
#include <ember/ember.h>
#include <ember/nn.h>
#include <ember/optim.h>

#include "ember_attention.h"
#include "harness.h"

namespace bench {
namespace tt = ::ember;
}

#include "train_cases.h"

namespace bench {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: %s\n", what, cublasGetStatusString(s));
    std::exit(1);
  }
}

// Times fn on the GPU: warm-up, then samples of `iters` calls between two events.
void time_gpu(Runner& r, const std::string& group, const std::string& name, Unit unit, double work,
              const std::function<void()>& fn, const std::string& column = "",
              const std::string& ref_label = "") {
  if (!r.wants_row(name)) return;
  for (int i = 0; i < 3; ++i) fn();
  check(cudaDeviceSynchronize(), "synchronize");
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "event");
  check(cudaEventCreate(&e1), "event");
  auto once = [&](long iters) {
    check(cudaEventRecord(e0, 0), "record");
    for (long i = 0; i < iters; ++i) fn();
    check(cudaEventRecord(e1, 0), "record");
    check(cudaEventSynchronize(e1), "event sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
    return ms * 1e-3 / iters;
  };
  double per_call = once(1);
  long iters = std::max(1L, static_cast<long>(r.options().sample_seconds / per_call));
  std::vector<double> samples;
  for (int s = 0; s < r.options().samples; ++s) samples.push_back(once(iters));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  r.record(group, name, unit, work, samples, iters, column, ref_label);
}

const tt::Device kGpu(tt::kCUDA, 0);

void alloc_rows(Runner& r) {
  if (!r.wants("alloc")) return;
  struct Size {
    int64_t mb;
    const char* name;
  } sizes[] = {{1, "alloc_free_1MB"}, {64, "alloc_free_64MB"}};
  for (const Size& size : sizes) {
    int64_t n = size.mb * (1 << 20) / 4;
    std::string name = size.name;
    // Host-side cost of a cached allocation and its release.
    r.time("alloc", name, Unit::kMicroseconds, 0,
           [&] { tt::Tensor t = tt::empty({n}, tt::TensorOptions().device(kGpu)); });
    r.time(
        "alloc", name, Unit::kMicroseconds, 0,
        [&] {
          void* p = nullptr;
          check(cudaMalloc(&p, n * 4), "cudaMalloc");
          check(cudaFree(p), "cudaFree");
        },
        "ref", "cudaMalloc + cudaFree");
  }
}

void copy_rows(Runner& r) {
  if (!r.wants("copy")) return;
  const int64_t n = 64 << 18;  // 64 MiB of float32
  const double bytes = 4.0 * n;
  tt::Tensor dev = tt::empty({n}, tt::TensorOptions().device(kGpu));
  tt::Tensor pageable = tt::ones({n});
  tt::Tensor pinned = tt::ones({n}).pin_memory();
  struct Case {
    const char* name;
    tt::Tensor* host;
  } cases[] = {{"pageable", &pageable}, {"pinned", &pinned}};
  for (const Case& c : cases) {
    tt::Tensor& host = *c.host;
    r.time("copy", std::string("h2d_") + c.name + "_64MB", Unit::kGBps, bytes,
           [&] { dev.copy_(host); });
    r.time("copy", std::string("d2h_") + c.name + "_64MB", Unit::kGBps, bytes,
           [&] { host.copy_(dev); });
    void* h = host.data_ptr();
    void* d = dev.data_ptr();
    r.time(
        "copy", std::string("h2d_") + c.name + "_64MB", Unit::kGBps, bytes,
        [&] { check(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), "memcpy"); }, "ref",
        "cudaMemcpy");
    r.time(
        "copy", std::string("d2h_") + c.name + "_64MB", Unit::kGBps, bytes,
        [&] { check(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost), "memcpy"); }, "ref",
        "cudaMemcpy");
  }
  // Issue 11: pinned 256 MiB copies, asynchronous on the current (default) stream, >= 0.95x raw
  // cudaMemcpyAsync on the same buffers.
  const int64_t big = int64_t(256) << 18;
  const double big_bytes = 4.0 * big;
  tt::Tensor dev_big = tt::empty({big}, tt::TensorOptions().device(kGpu));
  tt::Tensor pinned_big = tt::ones({big}).pin_memory();
  time_gpu(r, "copy", "h2d_pinned_256MB", Unit::kGBps, big_bytes,
           [&] { dev_big.copy_(pinned_big, /*non_blocking=*/true); });
  time_gpu(r, "copy", "d2h_pinned_256MB", Unit::kGBps, big_bytes,
           [&] { pinned_big.copy_(dev_big, /*non_blocking=*/true); });
  void* hb = pinned_big.data_ptr();
  void* db = dev_big.data_ptr();
  time_gpu(
      r, "copy", "h2d_pinned_256MB", Unit::kGBps, big_bytes,
      [&] { check(cudaMemcpyAsync(db, hb, big_bytes, cudaMemcpyHostToDevice, 0), "memcpy"); },
      "ref", "cudaMemcpyAsync");
  time_gpu(
      r, "copy", "d2h_pinned_256MB", Unit::kGBps, big_bytes,
      [&] { check(cudaMemcpyAsync(hb, db, big_bytes, cudaMemcpyDeviceToHost, 0), "memcpy"); },
      "ref", "cudaMemcpyAsync");
}

// Host time per small op as the program queues it (issue 11: <= 0.5x PyTorch eager's). The
// reference is the cheapest thing the driver queues: a 64-byte cudaMemsetAsync per op.
void launch_rows(Runner& r) {
  if (!r.wants("launch")) return;
  tt::Tensor a = tt::randn({16}, kGpu), b = tt::randn({16}, kGpu);
  void* d = a.data_ptr();
  r.time("launch", "launch_add_16", Unit::kMicroseconds, 0, [&] { tt::Tensor c = a + b; });
  r.time(
      "launch", "launch_add_16", Unit::kMicroseconds, 0,
      [&] { check(cudaMemsetAsync(d, 0, 64, 0), "memset"); }, "ref", "cudaMemsetAsync");
  r.time("launch", "chain10_16", Unit::kMicroseconds, 0, [&] {
    tt::Tensor c = a;
    for (int i = 0; i < 10; ++i) c = c + b;  // ten dependent adds
  });
  r.time(
      "launch", "chain10_16", Unit::kMicroseconds, 0,
      [&] {
        for (int i = 0; i < 10; ++i) check(cudaMemsetAsync(d, 0, 64, 0), "memset");
      },
      "ref", "10 x cudaMemsetAsync");
  check(cudaDeviceSynchronize(), "synchronize");
  int64_t n = int64_t(1) << 24;
  tt::Tensor x = tt::randn({n}, kGpu), y = tt::randn({n}, kGpu);
  time_gpu(r, "launch", "add_16M", Unit::kGBps, 12.0 * n, [&] { tt::Tensor z = x + y; });
  void* xd = x.data_ptr();
  void* yd = y.data_ptr();
  // A device-to-device copy moves 2 bytes per byte copied; 8n bytes matches the add's 12n / 1.5.
  time_gpu(
      r, "launch", "add_16M", Unit::kGBps, 8.0 * n,
      [&] { check(cudaMemcpyAsync(yd, xd, 4 * n, cudaMemcpyDeviceToDevice, 0), "d2d"); }, "ref",
      "cudaMemcpyAsync D2D");
}

// Bandwidth-bound kernels of issue 11 (>= 0.9x PyTorch): the bytes each must move at least,
// divided by its GPU time. The reference is a device-to-device copy (read + write) of 4n bytes.
void kernel_rows(Runner& r) {
  if (!r.wants("kernels")) return;
  const int64_t n = int64_t(1) << 26;  // 64M floats = 8192 x 8192
  tt::Tensor x = tt::randn({n}, kGpu), y = tt::randn({n}, kGpu);
  time_gpu(r, "kernels", "add_64M", Unit::kGBps, 12.0 * n, [&] { tt::Tensor z = x + y; });
  time_gpu(r, "kernels", "mul_64M", Unit::kGBps, 12.0 * n, [&] { tt::Tensor z = x * y; });
  void* xd = x.data_ptr();
  void* yd = y.data_ptr();
  for (const char* name : {"add_64M", "mul_64M"}) {
    time_gpu(
        r, "kernels", name, Unit::kGBps, 8.0 * n,
        [&] { check(cudaMemcpyAsync(yd, xd, 4 * n, cudaMemcpyDeviceToDevice, 0), "d2d"); }, "ref",
        "cudaMemcpyAsync D2D");
  }
  time_gpu(r, "kernels", "sum_64M", Unit::kGBps, 4.0 * n, [&] { tt::Tensor s = x.sum(); });
  tt::Tensor m = x.view({8192, 8192});
  time_gpu(r, "kernels", "sum0_8192x8192", Unit::kGBps, 4.0 * n + 4.0 * 8192,
           [&] { tt::Tensor s = m.sum({0}); });
  // Arg max of one long row (split across blocks) and along 32768-wide rows (a block per row).
  time_gpu(r, "kernels", "argmax_64M", Unit::kGBps, 4.0 * n, [&] { tt::Tensor i = x.argmax(); });
  tt::Tensor logits = x.view({2048, 32768});
  time_gpu(r, "kernels", "argmax_rows_2048x32768", Unit::kGBps, 4.0 * n,
           [&] { tt::Tensor i = logits.argmax(-1); });
  tt::Tensor sm = x.narrow(0, 0, int64_t(8192) * 4096).view({8192, 4096});
  time_gpu(r, "kernels", "softmax_8192x4096", Unit::kGBps, 2.0 * 4 * 8192 * 4096,
           [&] { tt::Tensor p = tt::softmax(sm, 1); });
}

void gemm_rows(Runner& r) {
  if (!r.wants("gemm")) return;
  // The reference is cuBLAS as PyTorch calls it for torch.mm: cublasGemmEx, with a workspace
  // of cuBLAS's recommended 32 MiB set after cublasSetStream (PyTorch's default on sm_90).
  cublasHandle_t h;
  check(cublasCreate(&h), "cublasCreate");
  check(cublasSetStream(h, 0), "cublasSetStream");
  void* workspace = nullptr;
  const size_t workspace_bytes = size_t(32) << 20;
  check(cudaMalloc(&workspace, workspace_bytes), "cudaMalloc");
  check(cublasSetWorkspace(h, workspace, workspace_bytes), "cublasSetWorkspace");
  struct Case {
    const char* name;
    int64_t n;
    tt::ScalarType dtype;
    bool tf32;
    cudaDataType_t ctype;
    cublasComputeType_t compute;
  } cases[] = {
      {"gemm_fp32_4096", 4096, tt::kFloat32, false, CUDA_R_32F, CUBLAS_COMPUTE_32F},
      {"gemm_tf32_4096", 4096, tt::kFloat32, true, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32},
      {"gemm_fp16_4096", 4096, tt::kFloat16, false, CUDA_R_16F, CUBLAS_COMPUTE_32F},
      {"gemm_bf16_4096", 4096, tt::kBFloat16, false, CUDA_R_16BF, CUBLAS_COMPUTE_32F},
      // Issue 11: >= 0.95x PyTorch's TFLOP/s.
      {"gemm_fp16_8192", 8192, tt::kFloat16, false, CUDA_R_16F, CUBLAS_COMPUTE_32F},
      {"gemm_bf16_8192", 8192, tt::kBFloat16, false, CUDA_R_16BF, CUBLAS_COMPUTE_32F},
  };
  for (const Case& c : cases) {
    const int64_t n = c.n;
    const double flops = 2.0 * n * n * n;
    tt::cuda::set_matmul_allow_tf32(c.tf32);
    tt::Tensor a = tt::randn({n, n}, kGpu).to(c.dtype), b = tt::randn({n, n}, kGpu).to(c.dtype);
    tt::Tensor out = tt::empty({n, n}, tt::TensorOptions().device(kGpu).dtype(c.dtype));
    time_gpu(r, "gemm", c.name, Unit::kTFLOPs, flops, [&] { tt::Tensor y = tt::mm(a, b); });
    const float one = 1, zero = 0;
    int ni = static_cast<int>(n);
    time_gpu(
        r, "gemm", c.name, Unit::kTFLOPs, flops,
        [&] {
          check(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, b.data_ptr(), c.ctype,
                             ni, a.data_ptr(), c.ctype, ni, &zero, out.data_ptr(), c.ctype, ni,
                             c.compute, CUBLAS_GEMM_DEFAULT),
                "cublasGemmEx");
        },
        "ref", "cublasGemmEx + 32 MiB workspace");
  }
  tt::cuda::set_matmul_allow_tf32(false);
  cublasDestroy(h);
  check(cudaFree(workspace), "cudaFree");
}

// Training steps (issue 11: <= 0.8x PyTorch eager's time): the MLP 784-256-10 at batch 128 (and
// 512), the Fashion-MNIST CNN of bench/train_cases.h at batch 64, Adam and cross-entropy.
void train_rows(Runner& r) {
  if (!r.wants("train")) return;
  for (int64_t batch : {128, 512}) {
    tt::manual_seed(0);
    tt::nn::Sequential mlp = make_mlp();
    mlp->to(kGpu);
    tt::optim::Adam opt(mlp->parameters(), tt::optim::AdamOptions(1e-3));
    tt::Tensor x = tt::randn({batch, 784}, kGpu), y = tt::randint(0, 10, {batch}).to(kGpu);
    time_gpu(r, "train", batch == 128 ? "mlp_step_b128" : "mlp_step_b512", Unit::kMilliseconds, 0,
             [&] { train_step(mlp, opt, x, y); });
  }
  tt::manual_seed(0);
  tt::nn::Sequential cnn = make_cnn();
  cnn->to(kGpu);
  tt::optim::Adam copt(cnn->parameters(), tt::optim::AdamOptions(1e-3));
  tt::Tensor cx = tt::randn({64, 1, 28, 28}, kGpu), cy = tt::randint(0, 10, {64}).to(kGpu);
  time_gpu(r, "train", "cnn_step_b64", Unit::kMilliseconds, 0,
           [&] { train_step(cnn, copt, cx, cy); });
}

// Mixed precision (issue 12: autocast steps <= 0.8x PyTorch eager's time with GradScaler): the
// train rows' MLP (batch 128) and CNN (batch 64) with forward and loss under float16 autocast and
// a GradScaler, and under bfloat16 autocast without one (its range is float32's).
void amp_step(tt::nn::Sequential& model, tt::optim::Adam& opt, const tt::Tensor& x,
              const tt::Tensor& y, ember::ScalarType dtype, ember::amp::GradScaler* scaler) {
  opt.zero_grad();
  tt::Tensor loss;
  {
    ember::amp::autocast region(ember::kCUDA, dtype);
    loss = tt::nn::functional::cross_entropy(model->forward(x), y);
  }
  if (scaler) {
    scaler->scale(loss).backward();
    scaler->step(opt);
    scaler->update();
  } else {
    loss.backward();
    opt.step();
  }
}

void amp_rows(Runner& r) {
  if (!r.wants("amp")) return;
  for (bool fp16 : {true, false}) {
    const ember::ScalarType dtype = fp16 ? ember::kHalf : ember::kBFloat16;
    tt::manual_seed(0);
    tt::nn::Sequential mlp = make_mlp();
    mlp->to(kGpu);
    tt::optim::Adam opt(mlp->parameters(), tt::optim::AdamOptions(1e-3));
    ember::amp::GradScaler scaler;
    tt::Tensor x = tt::randn({128, 784}, kGpu), y = tt::randint(0, 10, {128}).to(kGpu);
    time_gpu(r, "amp", fp16 ? "amp_fp16_mlp_step_b128" : "amp_bf16_mlp_step_b128",
             Unit::kMilliseconds, 0,
             [&] { amp_step(mlp, opt, x, y, dtype, fp16 ? &scaler : nullptr); });
    tt::manual_seed(0);
    tt::nn::Sequential cnn = make_cnn();
    cnn->to(kGpu);
    tt::optim::Adam copt(cnn->parameters(), tt::optim::AdamOptions(1e-3));
    ember::amp::GradScaler cscaler;
    tt::Tensor cx = tt::randn({64, 1, 28, 28}, kGpu), cy = tt::randint(0, 10, {64}).to(kGpu);
    time_gpu(r, "amp", fp16 ? "amp_fp16_cnn_step_b64" : "amp_bf16_cnn_step_b64",
             Unit::kMilliseconds, 0,
             [&] { amp_step(cnn, copt, cx, cy, dtype, fp16 ? &cscaler : nullptr); });
  }
}

}  // namespace
}  // namespace bench

static const char* kUsage =
    "bench_ember_cuda [--groups alloc,copy,launch,kernels,gemm,train,amp] [--filter NAME] "
    "[--quick] "
    "[--out FILE]\n";

int main(int argc, char** argv) {
  bench::Options opts = bench::parse_args(argc, argv, kUsage);
  if (opts.list_only) {
    std::puts("alloc copy launch kernels gemm train amp");
    return 0;
  }
  if (!ember::cuda::is_available()) {
    std::fprintf(stderr, "bench_ember_cuda: no usable GPU: %s\n",
                 ember::cuda::unavailable_reason().c_str());
    return 0;
  }
  bench::Runner r("ember", opts);
  bench::alloc_rows(r);
  bench::copy_rows(r);
  bench::launch_rows(r);
  bench::kernel_rows(r);
  bench::gemm_rows(r);
  bench::train_rows(r);
  bench::amp_rows(r);
  r.write_json("ember " + std::string(EMBER_BENCH_VERSION) + " on " +
               ember::cuda::get_device_name(0));
  return 0;
}
