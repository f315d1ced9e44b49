"""ember.backends and use_deterministic_algorithms against torch.backends (PyTorch 1.13): the same
defaults, flags that reach C++, PyTorch's errors; on the SIM build, the CUDA kernels that
accumulate with atomics refuse under determinism and max-pool's backward is bitwise repeatable."""
import warnings

import pytest
import torch

import ember
from ember._C import _backends


@pytest.fixture(autouse=True)
def restore_flags():
    saved = (ember.backends.cudnn.enabled, ember.backends.cudnn.benchmark,
             ember.backends.cudnn.deterministic, ember.backends.cudnn.allow_tf32,
             ember.backends.cuda.matmul.allow_tf32, ember.are_deterministic_algorithms_enabled(),
             ember.is_deterministic_algorithms_warn_only_enabled())
    yield
    (ember.backends.cudnn.enabled, ember.backends.cudnn.benchmark,
     ember.backends.cudnn.deterministic, ember.backends.cudnn.allow_tf32,
     ember.backends.cuda.matmul.allow_tf32) = saved[:5]
    ember.use_deterministic_algorithms(saved[5], warn_only=saved[6])


def test_defaults_match_pytorch():
    for name in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        assert getattr(ember.backends.cudnn, name) == getattr(torch.backends.cudnn, name), name
    assert ember.backends.cuda.matmul.allow_tf32 == torch.backends.cuda.matmul.allow_tf32
    assert ember.backends.mps.is_available() == torch.backends.mps.is_available() is False
    assert ember.backends.mps.is_built() is False
    assert ember.backends.openmp.is_available() is True
    assert ember.are_deterministic_algorithms_enabled() == \
        torch.are_deterministic_algorithms_enabled()
    assert ember.backends.cudnn.is_acceptable(ember.ones(2)) is False  # a CPU tensor


def test_cudnn_is_available_as_the_build_has_it():
    # As PyTorch: whether the build has cuDNN (the simulator has its shim), GPU or not; the
    # version is None without it.
    available = ember.backends.cudnn.is_available()
    assert (ember.backends.cudnn.version() is not None) == available
    if available:
        assert ember.backends.cudnn.version() >= 90000
    if ember.cuda.is_available() and ember.cuda.is_simulated():
        assert available is True
        assert ember.backends.cudnn.is_acceptable(ember.ones(2, device="cuda")) is True


def test_cudnn_flags_reach_cpp():
    ember.backends.cudnn.benchmark = True
    ember.backends.cudnn.deterministic = 1  # stored as a bool, as PyTorch's
    ember.backends.cudnn.enabled = False
    ember.backends.cudnn.allow_tf32 = False
    assert _backends.cudnn_benchmark() and _backends.cudnn_deterministic()
    assert not _backends.cudnn_enabled() and not _backends.cudnn_allow_tf32()
    assert ember.backends.cudnn.deterministic is True


def test_cudnn_flags_context_restores():
    ember.backends.cudnn.benchmark = True
    with ember.backends.cudnn.flags(enabled=False, deterministic=True):
        assert ember.backends.cudnn.enabled is False
        assert ember.backends.cudnn.benchmark is False  # flags() sets every flag it takes
        assert ember.backends.cudnn.deterministic is True
        assert ember.backends.cudnn.allow_tf32 is True
    assert ember.backends.cudnn.enabled is True and ember.backends.cudnn.benchmark is True
    assert ember.backends.cudnn.deterministic is False


def test_matmul_allow_tf32_reaches_cpp_and_rejects_unknown_names():
    ember.backends.cuda.matmul.allow_tf32 = True
    assert _backends.matmul_allow_tf32() is True
    ember.backends.cuda.matmul.allow_tf32 = False
    assert _backends.matmul_allow_tf32() is False
    for lib in (ember, torch):
        with pytest.raises(AssertionError, match="Unknown attribute allow_tf33"):
            lib.backends.cuda.matmul.allow_tf33 = True
        with pytest.raises(AssertionError, match="Unknown attribute nope"):
            lib.backends.cuda.matmul.nope


def test_attention_switches_follow_sdpa_kernel():
    from ember.nn.attention import SDPBackend
    assert ember.backends.cuda.flash_sdp_enabled() and ember.backends.cuda.math_sdp_enabled()
    with ember.backends.cuda.sdp_kernel(enable_flash=False):
        assert not ember.backends.cuda.flash_sdp_enabled()
        q = ember.randn(1, 2, 4, 8)
        ember.nn.functional.scaled_dot_product_attention(q, q, q)
        assert ember.nn.attention.last_choice()[0] == SDPBackend.MATH
    assert ember.backends.cuda.flash_sdp_enabled()


def test_deterministic_switch_matches_pytorch():
    for lib in (ember, torch):
        lib.use_deterministic_algorithms(True, warn_only=True)
        assert lib.are_deterministic_algorithms_enabled()
        assert lib.is_deterministic_algorithms_warn_only_enabled()
        lib.use_deterministic_algorithms(False)
        assert not lib.are_deterministic_algorithms_enabled()
        assert not lib.is_deterministic_algorithms_warn_only_enabled()


def test_deterministic_mode_leaves_cpu_ops_alone():
    ember.use_deterministic_algorithms(True)
    out = ember.zeros(3).index_add(0, ember.tensor([0, 0, 2]), ember.ones(3))
    assert out.tolist() == [2.0, 0.0, 1.0]
    src = ember.arange(4.0)
    assert ember.zeros(2).scatter_add(0, ember.tensor([1, 1, 0, 1]), src).tolist() == [2.0, 4.0]


def cuda_only(test):
    """On a build with (simulated) CUDA runs `test`; elsewhere checks CUDA is refused."""
    def run():
        if ember.cuda.is_available():
            test()
        else:
            with pytest.raises(RuntimeError, match="CUDA is not available"):
                ember.zeros(1, device="cuda")
    run.__name__ = test.__name__
    return run


@cuda_only
def test_atomic_cuda_kernels_refuse_under_determinism():
    target = ember.zeros(3, device="cuda")
    index = ember.tensor([0, 0, 2], device="cuda")
    ember.use_deterministic_algorithms(True)
    with pytest.raises(RuntimeError, match="index_add_cuda_ does not have a deterministic"):
        target.index_add(0, index, ember.ones(3, device="cuda"))
    with pytest.raises(RuntimeError, match="scatter_add_cuda_kernel does not have"):
        target.scatter_add(0, index, ember.ones(3, device="cuda"))
    with pytest.raises(RuntimeError, match="index_copy_cuda_ does not have"):
        target.index_copy(0, index, ember.ones(3, device="cuda"))
    # Integer sums do not depend on the order of the atomics.
    ints = ember.zeros(3, dtype=ember.int64, device="cuda")
    assert ints.index_add(0, index, ember.ones(3, dtype=ember.int64, device="cuda")).tolist() == \
        [2, 0, 1]
    ember.use_deterministic_algorithms(True, warn_only=True)
    with warnings.catch_warnings():
        out = target.index_add(0, index, ember.ones(3, device="cuda"))
    assert out.tolist() == [2.0, 0.0, 1.0]


@cuda_only
def test_max_pool_backward_on_cuda_is_repeatable_and_matches_cpu():
    ember.use_deterministic_algorithms(True)
    ember.manual_seed(0)
    x = ember.randn(2, 3, 9, 11)
    grads = []
    for device in ("cpu", "cuda", "cuda"):
        xd = x.to(device).detach().requires_grad_()
        # Overlapping windows (kernel 3, stride 2): several outputs may choose one input.
        out = ember.nn.functional.max_pool2d(xd, 3, 2, 1)
        (out * ember.arange(float(out.numel())).reshape(out.shape).to(device)).sum().backward()
        grads.append(xd.grad.cpu())
    assert ember.equal(grads[1], grads[2])
    assert ember.allclose(grads[0], grads[1])


def test_mkldnn_switch_chooses_the_cpu_convolution_and_both_match_pytorch():
    # Ember's CPU backend uses oneDNN where its build has it (CI's does: libdnnl-dev), as PyTorch.
    assert ember.backends.mkldnn.is_available() == _backends.mkldnn_is_available()
    assert ember.backends.mkldnn.enabled is True
    torch.manual_seed(0)
    x, w, b = torch.randn(2, 3, 9, 9), torch.randn(4, 3, 3, 3), torch.randn(4)
    expected = torch.nn.functional.conv2d(x, w, b, padding=1)
    results = {}
    for enabled in (True, False):
        with ember.backends.mkldnn.flags(enabled=enabled):
            assert _backends.mkldnn_enabled() is enabled
            ex = ember.tensor(x.numpy()).requires_grad_()
            with ember.profiler.profile() as prof:
                y = ember.nn.functional.conv2d(ex, ember.tensor(w.numpy()),
                                               ember.tensor(b.numpy()), padding=1)
            names = {e.key for e in prof.key_averages()}
            direct = enabled and ember.backends.mkldnn.is_available()
            assert ("ember::convolution" in names) == direct, names
            assert ("ember::im2col" in names) == (not direct), names
            results[enabled] = y.detach().numpy()
    assert ember.backends.mkldnn.enabled is True
    for enabled, y in results.items():
        assert abs(y - expected.numpy()).max() < 1e-4, enabled
    ember.backends.mkldnn.enabled = 0
    assert ember.backends.mkldnn.enabled is False and not _backends.mkldnn_enabled()
    ember.backends.mkldnn.enabled = True
