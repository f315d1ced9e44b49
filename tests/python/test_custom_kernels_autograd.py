"""A Python ember.autograd.Function whose forward and backward call a RawKernel and a load_inline
op, used inside an nn.Module's forward; the model's gradients are checked against central finite
differences. On the SIM build the RawKernel runs on a simulated device (forward on CUDA tensors);
on the CPU the forward is the load_inline op's loop."""
import pytest

import ember
import ember.nn as nn
from ember.utils.cpp_extension import load_inline

CUBE_KERNEL = r"""
extern "C" __global__ void cube(const double* x, double* y, double c, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i] * x[i] + c;
}
"""

CUBE_CPP = r"""
ember::Tensor cube_forward(const ember::Tensor& x, double c) {
  ember::Tensor in = x.contiguous().to(ember::kDouble);
  ember::Tensor y = ember::empty_like(in);
  for (int64_t i = 0; i < in.numel(); ++i) {
    const double v = in.data_ptr<double>()[i];
    y.data_ptr<double>()[i] = v * v * v + c;
  }
  return y.to(x.dtype());
}
ember::Tensor cube_backward(const ember::Tensor& x, const ember::Tensor& g) {
  return 3 * x * x * g;  // ember ops, on x's device
}
"""


@pytest.fixture(scope="module")
def ext(tmp_path_factory):
    return load_inline("cube_ext", cpp_sources=CUBE_CPP,
                       functions=["cube_forward", "cube_backward"],
                       build_directory=str(tmp_path_factory.mktemp("cube_ext")))


def make_cube(ext):
    kernel = ember.cuda.RawKernel(CUBE_KERNEL, "cube") if ember.cuda.is_available() else None

    class Cube(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x, c):
            ctx.save_for_backward(x)
            if x.is_cuda:
                x = x.contiguous()
                y = ember.empty_like(x)
                n = x.numel()
                kernel(((n + 63) // 64,), (64,), (x, y, float(c), n))
                return y
            return ext.cube_forward(x, c)

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return ext.cube_backward(x, grad), None

    return Cube


class CubeModel(nn.Module):
    def __init__(self, cube):
        super().__init__()
        self.lin = nn.Linear(4, 3).double()
        self.cube = cube

    def forward(self, x):
        return self.cube.apply(self.lin(x), 0.5).sum()


def finite_difference_check(model, x, eps=1e-6, tol=1e-5):
    """Every parameter's and the input's gradient against central differences."""
    loss = model(x)
    loss.backward()
    leaves = [x] + list(model.parameters())
    analytic = [t.grad.cpu().reshape(-1).tolist() for t in leaves]
    with ember.no_grad():
        for t, grads in zip(leaves, analytic):
            flat = t.view(-1)
            for i in range(flat.numel()):
                saved = flat[i].item()
                flat[i] = saved + eps
                up = model(x).item()
                flat[i] = saved - eps
                down = model(x).item()
                flat[i] = saved
                numeric = (up - down) / (2 * eps)
                assert abs(numeric - grads[i]) <= tol * max(1.0, abs(numeric)), \
                    (t.shape, i, numeric, grads[i])
    return loss


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_function_on_kernel_and_extension_passes_finite_differences(ext, device):
    if device == "cuda" and not ember.cuda.is_available():
        pytest.skip("no CUDA device")
    ember.manual_seed(0)
    model = CubeModel(make_cube(ext)).to(device)
    x = ember.randn(2, 4, dtype=ember.float64, device=device, requires_grad=True)
    loss = finite_difference_check(model, x)
    assert loss.grad_fn is not None
    h = model.lin(x)
    assert ember.allclose(model(x), (h ** 3 + 0.5).sum())  # the same math in ember's ops
    y = make_cube(ext).apply(h, 0.5)
    assert y.grad_fn.name() == "CubeBackward" and y.device == x.device
