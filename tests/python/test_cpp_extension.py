"""ember.utils.cpp_extension.load_inline: C++ functions compiled against Ember's headers and
imported as a module of Python functions taking and returning ember tensors, cached by a hash of
the sources and flags. Results are compared with ember's and PyTorch's own ops."""
import os
import time

import numpy as np
import pytest
import torch

import ember
from ember.utils.cpp_extension import load_inline

SOURCE = r"""
#include <cmath>
// y = x^3 + c by a hand-written loop (float64 on the CPU), and its gradient 3 x^2 g.
ember::Tensor cube_forward(const ember::Tensor& x, double c) {
  ember::Tensor in = x.contiguous().to(ember::kDouble);
  ember::Tensor y = ember::empty_like(in);
  const double* p = in.data_ptr<double>();
  double* q = y.data_ptr<double>();
  for (int64_t i = 0; i < in.numel(); ++i) q[i] = p[i] * p[i] * p[i] + c;
  return y.to(x.dtype());
}
ember::Tensor cube_backward(const ember::Tensor& x, const ember::Tensor& g) {
  return 3 * x * x * g;  // ember ops: runs on x's device
}
std::tuple<ember::Tensor, int64_t> sum_and_count(const std::vector<ember::Tensor>& xs) {
  ember::Tensor total = ember::zeros_like(xs.at(0));
  for (const auto& x : xs) total = total + x;
  return {total, static_cast<int64_t>(xs.size())};
}
namespace util {
std::vector<int64_t> shape_of(const ember::Tensor& x) { return x.sizes().vec(); }
std::string describe(const std::string& s, bool loud, std::optional<ember::Tensor> t) {
  return (loud ? "LOUD " : "") + s + (t ? " with tensor" : " without");
}
void fill_inplace(ember::Tensor& x, ember::Scalar v) { x.fill_(v); }
}
"""


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("ember_ext"))


@pytest.fixture(scope="module")
def ops(build_dir):
    return load_inline("test_ops", cpp_sources=SOURCE, functions=FUNCTIONS, extra_cflags=["-O1"],
                       build_directory=build_dir)


def test_functions_take_and_return_ember_tensors(ops):
    x = ember.randn(4, 5)
    y = ops.cube_forward(x, 1.5)
    assert isinstance(y, ember.Tensor) and y.shape == (4, 5) and y.dtype == ember.float32
    assert ember.allclose(y, x ** 3 + 1.5, rtol=1e-5, atol=1e-5)
    tx = torch.from_numpy(x.numpy())
    np.testing.assert_allclose(y.numpy(), (tx ** 3 + 1.5).numpy(), rtol=1e-5, atol=1e-5)
    g = ember.randn(4, 5)
    assert ember.allclose(ops.cube_backward(x, g), 3 * x * x * g)
    total, n = ops.sum_and_count([x, g, x])
    assert n == 3 and ember.allclose(total, 2 * x + g)
    assert ops.shape_of(x) == [4, 5]
    assert ops.describe("hi", True, None) == "LOUD hi without"
    assert ops.describe("hi", False, x) == "hi with tensor"
    ops.fill_inplace(x, 7)
    assert x.tolist()[0][0] == 7.0  # the same tensor, written by C++
    assert "x^3 + c" in ops.cube_forward.__doc__
    assert ops.cube_forward.__doc__.endswith("cube_forward(Tensor, float) -> Tensor")
    assert ops.__name__ == "test_ops" and os.path.exists(ops.__file__)


def test_numpy_scalars_and_ints_convert(ops):
    x = ember.ones(3, dtype=ember.float64)
    assert ops.cube_forward(x, np.float32(2.0)).tolist() == [3.0] * 3
    assert ops.cube_forward(x, 2).tolist() == [3.0] * 3


def test_ops_on_cuda_tensors_run_on_the_device(ops):
    if not ember.cuda.is_available():
        pytest.skip("no CUDA device")
    x = ember.randn(6, device="cuda")
    g = ember.randn(6, device="cuda")
    r = ops.cube_backward(x, g)
    assert r.device == x.device and ember.allclose(r, 3 * x * x * g)


FUNCTIONS = {"cube_forward": "x^3 + c", "cube_backward": None, "sum_and_count": None,
             "util::shape_of": None, "util::describe": None, "util::fill_inplace": None}


def test_cached_by_source_and_flags(ops, build_dir):
    before = set(os.listdir(build_dir))
    start = time.perf_counter()
    same = load_inline("test_ops", cpp_sources=SOURCE, functions=FUNCTIONS, extra_cflags=["-O1"],
                       build_directory=build_dir)
    cached_s = time.perf_counter() - start
    assert set(os.listdir(build_dir)) == before and same.__file__ == ops.__file__
    assert cached_s < 2.0  # no compiler run
    other = load_inline("test_ops", cpp_sources=SOURCE, functions=FUNCTIONS,
                        extra_cflags=["-O0"], build_directory=build_dir)
    assert len(set(os.listdir(build_dir)) - before) == 1 and other.__file__ != ops.__file__
    assert other.cube_forward(ember.ones(1), 1.0).tolist() == [2.0]


def test_bad_calls_raise_type_errors(ops):
    x = ember.ones(2)
    with pytest.raises(TypeError, match=r"takes 2 arguments but 1 was given"):
        ops.cube_forward(x)
    with pytest.raises(TypeError, match=r"argument 1 must be Tensor, not float"):
        ops.cube_forward(1.0, 2.0)
    with pytest.raises(TypeError, match=r"argument 2 must be float, not str"):
        ops.cube_forward(x, "2")
    with pytest.raises(TypeError, match=r"argument 2 is an int outside the 64-bit range"):
        ops.cube_forward(x, 2 ** 70)
    with pytest.raises(TypeError, match=r"argument 1 mixes tensors"):
        ops.sum_and_count([x, 1])
    with pytest.raises(TypeError, match=r"cannot take"):
        ops.cube_forward(x, object())


def test_compile_error_raises_runtime_error_with_compiler_output(build_dir):
    with pytest.raises(RuntimeError) as info:
        load_inline("broken_ops", cpp_sources="ember::Tensor f(ember::Tensor x) { return y; }",
                    functions=["f"], build_directory=build_dir)
    message = str(info.value)
    assert "compiling failed" in message and "was not declared" in message
    assert "broken_ops.cpp:1:" in message  # lines of the user's source
    with pytest.raises(RuntimeError, match="no_such_function"):
        load_inline("missing_ops", cpp_sources="int f() { return 1; }",
                    functions=["no_such_function"], build_directory=build_dir)


def test_bad_arguments(build_dir):
    with pytest.raises(ValueError, match="functions"):
        load_inline("x", cpp_sources="int f() { return 1; }")
    with pytest.raises(ValueError, match="identifier"):
        load_inline("bad name", cpp_sources="", functions=["f"])
    with pytest.raises(ValueError, match="not a C\\+\\+ function name"):
        load_inline("x", cpp_sources="", functions=["f()"])
    with pytest.raises(NotImplementedError, match="cuda_sources"):
        load_inline("x", cpp_sources="", cuda_sources="__global__ void k() {}", functions=["f"])
