"""ember.cuda.RawKernel (CuPy's spelling) over ember::cuda::RawKernel. On the SIM build the
kernels are compiled by the host compiler and run on the two simulated devices; their results are
compared with the same math in ember's own ops (and PyTorch's, on the CPU). Without CUDA the
constructor raises RuntimeError."""
import numpy as np
import pytest
import torch

import ember

needs_cuda = pytest.mark.skipif(not ember.cuda.is_available(), reason="no CUDA device")

SAXPY = r"""
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
"""

# 2-D grid, int32 and double parameters, dynamic shared memory.
ROW_SUM = r"""
extern "C" __global__ void row_sum(const double* x, double* out, int cols, double scale) {
  extern __shared__ double part[];
  int row = blockIdx.y;
  double s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[row * cols + c];
  part[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (int k = 0; k < blockDim.x; ++k) t += part[k];
    out[row] = t * scale;
  }
}
"""


@needs_cuda
def test_saxpy_matches_ember_and_pytorch_math():
    n = 1000
    x = ember.randn(n, device="cuda")
    y = ember.randn(n, device="cuda")
    out = ember.empty(n, device="cuda")
    kernel = ember.cuda.RawKernel(SAXPY, "saxpy")
    kernel(((n + 127) // 128,), (128,), (np.float32(2.5), x, y, out, n))
    expected = 2.5 * x + y
    assert ember.allclose(out, expected, rtol=1e-6, atol=1e-6)
    reference = 2.5 * torch.from_numpy(x.cpu().numpy()) + torch.from_numpy(y.cpu().numpy())
    np.testing.assert_allclose(out.cpu().numpy(), reference.numpy(), rtol=1e-6, atol=1e-6)
    assert kernel.name == "saxpy" and kernel.backend == "nvrtc" and kernel.options == ()


@needs_cuda
def test_typed_scalars_2d_grid_and_shared_memory():
    rows, cols = 5, 37
    x = ember.randn(rows, cols, dtype=ember.float64, device="cuda")
    out = ember.zeros(rows, dtype=ember.float64, device="cuda")
    kernel = ember.cuda.RawKernel(ROW_SUM, "row_sum", options=("-std=c++17",))
    block = 32
    # cols as an ember-typed int32 pair; the scale a Python float (double).
    kernel((1, rows), (block,), (x, out, (cols, ember.int32), 0.5), shared_mem=block * 8)
    assert ember.allclose(out, x.sum(1) * 0.5)
    out.zero_()
    kernel((1, rows, 1), block, [x, out, np.int32(cols), np.float64(2.0)], shared_mem=block * 8)
    assert ember.allclose(out, x.sum(1) * 2.0)


@needs_cuda
def test_runs_on_the_current_device_and_given_stream():
    if ember.cuda.device_count() < 2:
        pytest.skip("one device")
    kernel = ember.cuda.RawKernel(SAXPY, "saxpy")
    with ember.cuda.device(1):
        x = ember.ones(64, device="cuda")
        out = ember.empty(64, device="cuda")
        s = ember.cuda.Stream()
        s.wait_stream(ember.cuda.current_stream())  # x is written on the current stream
        kernel((1,), (64,), (np.float32(3.0), x, x, out, 64), stream=s)
        s.synchronize()
    assert out.device == ember.device("cuda", 1)
    assert out.cpu().tolist() == [4.0] * 64


@needs_cuda
def test_bad_arguments_raise_clear_errors():
    kernel = ember.cuda.RawKernel(SAXPY, "saxpy")
    x = ember.ones(4, device="cuda")
    with pytest.raises(RuntimeError, match=r"argument 1 is a tensor on cpu"):
        kernel((1,), (4,), (np.float32(1), ember.ones(4), x, x, 4))
    if ember.cuda.device_count() > 1:
        other = ember.ones(4, device="cuda:1")
        with pytest.raises(RuntimeError, match=r"tensor on cuda:1 but the kernel runs on cuda:0"):
            kernel((1,), (4,), (np.float32(1), x, other, x, 4))
    for grid in [(0,), (1, 2, 3, 4), (), -1]:
        with pytest.raises(ValueError, match="grid"):
            kernel(grid, (4,), (np.float32(1), x, x, x, 4))
    with pytest.raises(TypeError, match="grid"):
        kernel((1.5,), (4,), (np.float32(1), x, x, x, 4))
    with pytest.raises(ValueError, match="block"):
        kernel((1,), (0,), (np.float32(1), x, x, x, 4))
    with pytest.raises(RuntimeError, match="launch with grid"):
        kernel((1,), (4096,), (np.float32(1), x, x, x, 4))  # more threads than a block holds
    with pytest.raises(TypeError, match="argument 0"):
        kernel((1,), (4,), ("2", x, x, x, 4))
    with pytest.raises(TypeError, match="float16"):
        kernel((1,), (4,), ((1.0, ember.float16), x, x, x, 4))
    with pytest.raises(TypeError, match="float16"):
        kernel((1,), (4,), (np.float16(1), x, x, x, 4))
    with pytest.raises(TypeError,
                       match=r"argument 4 \(1180591620717411303424\) cannot be passed as int64"):
        kernel((1,), (4,), (np.float32(1), x, x, x, 2 ** 70))
    with pytest.raises(TypeError,
                       match=r"argument 4 \(1099511627776\) cannot be passed as int32"):
        kernel((1,), (4,), (np.float32(1), x, x, x, (2 ** 40, ember.int32)))
    with pytest.raises(TypeError, match=r"argument 0 \(of type .*Tensor\) is typed as float32"):
        kernel((1,), (4,), ((x, ember.float32), x, x, x, 4))
    with pytest.raises(RuntimeError, match="non-contiguous"):
        kernel((1,), (4,), (np.float32(1), ember.ones(4, 2, device="cuda").t()[0], x, x, 4))
    with pytest.raises(ValueError, match="backend"):
        ember.cuda.RawKernel(SAXPY, "saxpy", backend="nvcc")


@needs_cuda
@pytest.mark.skipif(not ember.cuda.is_simulated(), reason="parameter sizes are checked on SIM")
def test_simulator_checks_scalar_sizes():
    kernel = ember.cuda.RawKernel(SAXPY, "saxpy")
    x = ember.ones(4, device="cuda")
    # a Python float is a double; the kernel's `a` is a float. The simulator's own check (a
    # real GPU cannot see parameter types) is a C++ library error, so RuntimeError.
    with pytest.raises(RuntimeError, match="argument 0 has 8 bytes"):
        kernel((1,), (4,), (2.0, x, x, x, 4))


@needs_cuda
def test_compile_error_carries_the_compiler_log():
    kernel = ember.cuda.RawKernel('extern "C" __global__ void broken(float* y) {\n'
                                  '  y[0] = undeclared_name;\n}\n', "broken")
    with pytest.raises(RuntimeError) as info:
        kernel((1,), (1,), (ember.zeros(1, device="cuda"),))
    assert "undeclared_name" in str(info.value)
    assert "broken.cu:2" in str(info.value) or "(2)" in str(info.value)


@pytest.mark.skipif(ember.cuda.is_available(), reason="this build has CUDA")
def test_without_cuda_raises_runtime_error():
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        ember.cuda.RawKernel(SAXPY, "saxpy")
