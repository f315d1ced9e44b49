"""Unit tests of the bindings: the op table against PyTorch, exception mapping, numpy without a
copy, argument checking, and the Python-side types (Size, dtype, device, grad mode)."""
import zlib

import numpy as np
import pytest
import torch

import ember

UNARY_INPUT = [-1.5, -0.5, 0.25, 0.5, 2.0]
INT_OPS = {"bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm"}


def as_numpy(t):
    return t.detach().cpu().numpy()


def same(e, t):
    assert str(e.dtype).replace("ember", "torch") == str(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(as_numpy(e), t.numpy(), rtol=2e-6, atol=1e-6, equal_nan=True)


def reference(name):
    """PyTorch's function of that name (silu lives in torch.nn.functional only)."""
    return getattr(torch, name, None) or getattr(torch.nn.functional, name)


def unary_inputs(name):
    if name in INT_OPS:
        return ember.tensor([-3, 0, 5]), torch.tensor([-3, 0, 5])
    return ember.tensor(UNARY_INPUT), torch.tensor(UNARY_INPUT)


@pytest.mark.parametrize("name", ember._C.op_table_unary)
def test_unary_table_op_matches_pytorch(name):
    e, t = unary_inputs(name)
    same(getattr(ember, name)(e), reference(name)(t))
    if hasattr(torch.Tensor, name):
        same(getattr(e, name)(), getattr(t, name)())
    if hasattr(ember.Tensor, name + "_"):
        e2, t2 = e.clone(), t.clone()
        assert getattr(e2, name + "_")() is e2
        getattr(t2, name + "_")()
        same(e2, t2)


@pytest.mark.parametrize("name", ember._C.op_table_binary)
def test_binary_table_op_matches_pytorch(name):
    if name in INT_OPS:
        a, b = [12, -7, 5, 0], [10, 3, -2, 7]
    else:
        a, b = [-3.0, -1.5, 2.0, 5.0], [2.0, -2.0, 3.0, 0.5]
    ea, eb, ta, tb = ember.tensor(a), ember.tensor(b), torch.tensor(a), torch.tensor(b)
    same(getattr(ember, name)(ea, eb), reference(name)(ta, tb))
    same(getattr(ea, name)(eb), getattr(ta, name)(tb))
    try:
        expected = getattr(ta, name)(2)
    except (TypeError, RuntimeError):
        expected = None
    if expected is not None and name not in ("maximum", "minimum", "atan2", "hypot",
                                             "logical_and", "logical_or", "logical_xor"):
        same(getattr(ea, name)(2), expected)
    if hasattr(ember.Tensor, name + "_"):
        e2 = ea.clone()
        assert getattr(e2, name + "_")(eb) is e2
        same(e2, getattr(ta.clone(), name + "_")(tb))


def test_every_table_row_is_a_function_and_a_method():
    assert len(ember._C.op_table_unary) >= 30 and len(ember._C.op_table_binary) >= 20
    for name in ember._C.op_table_unary + ember._C.op_table_binary:
        assert callable(getattr(ember, name)), name
    for name in ember._C.op_table_binary:
        assert callable(getattr(ember.Tensor, name)), name


@pytest.mark.parametrize("call, kind", [
    (lambda: ember.arange(6)[6], IndexError),
    (lambda: ember.zeros(2, dtype="float32"), TypeError),
    (lambda: ember.zeros(2, device=1.5), TypeError),
    (lambda: ember.zeros(2, "x"), TypeError),
    (lambda: ember.zeros(2) + ember.zeros(3), RuntimeError),  # ember::ValueError, as ATen's
    (lambda: ember.zeros(2, device="meta").cpu(), NotImplementedError),
    (lambda: ember.device("gpu"), RuntimeError),
    (lambda: ember.device("cuda", -1), RuntimeError),
    (lambda: ember.ones(2, requires_grad=True).numpy(), RuntimeError),
    (lambda: ember.ones(2).view(3), RuntimeError),
    (lambda: ember.ones(2)["a"], IndexError),
    (lambda: ember.ones(2).to("cpu", "float"), TypeError),
    (lambda: ember.empty(1 << 50), ember.cuda.OutOfMemoryError),
])
def test_errors_map_to_python_types(call, kind):
    with pytest.raises(kind):
        call()


# The same bad calls under PyTorch and Ember raise the same Python exception type. `T` is the
# module under test.
SAME_ERROR_AS_PYTORCH = [
    "T.zeros(2) + T.zeros(3)",
    "T.ones(2).view(3)",
    "T.ones(2, 3) @ T.ones(2, 3)",
    "T.ones(2, 3).reshape(4)",
    "T.cat([T.ones(2, 3), T.ones(2, 4)])",
    "T.ones(2, 3).sum(dim=5)",
    "T.ones(2, 3).permute(0)",
    "T.ones(2, 3).expand(3, 3)",
    "T.ones(4)[T.tensor([5])]",
    "T.ones(2, 3).transpose(0, 3)",
    "T.nn.functional.linear(T.ones(2, 3), T.ones(4, 5))",
    "T.nn.functional.cross_entropy(T.ones(2, 3), T.tensor([0, 1, 2]))",
    "T.nn.CrossEntropyLoss()(T.ones(2, 3), T.tensor([0, 1, 2]))",
    "T.nn.NLLLoss()(T.ones(2, 3), T.tensor([0, 1, 2]))",
    "T.nn.functional.mse_loss(T.ones(2), T.ones(2), reduction='avg')",
    "T.nn.Linear(3, 2)(T.ones(2, 4))",
    "T.nn.MSELoss(reduction='avg')(T.ones(2), T.ones(2))",
    "T.nn.Dropout(1.5)",
    "T.ones(3).item()",
    "float(T.ones(2))",
    "int(T.ones(2))",
    "bool(T.ones(2))",
    "T.optim.SGD([T.ones(2, requires_grad=True)], lr=-1)",
    # A dtype an op refuses is a RuntimeError; a wrong argument type a TypeError.
    "T.ones(2, dtype=T.int64).requires_grad_()",
    "T.ones(2, dtype=T.int64).mean()",
    "T.ones(2, dtype=T.int64).std()",
    "T.ones(2, dtype=T.bool) - T.ones(2, dtype=T.bool)",
    "-T.ones(2, dtype=T.bool)",
    "T.ones(2, 2) @ T.ones(2, 2, dtype=T.float64)",
    "T.softmax(T.ones(2, dtype=T.int64), 0)",
    "T.ones(2).bitwise_and(T.ones(2))",
    "T.zeros(2, dtype='float')",
    "T.ones(2).to('cpu', 'float')",
    "T.ones(2, 3).split([1, 1], 1)",
    "T.ones(2, 3).split([1, 2], 5)",
    "T.ones(2, 3).gather(1, T.tensor([[5]]))",
    "T.ones(3).topk(5)",
    "T.einsum('ij,jk->ik', T.ones(2, 3), T.ones(2, 3))",
    "T.ones(2, 3).flip(5)",
    "T.ones(2, 3).logsumexp(4)",
    "T.ones(2, 3).cumsum(2)",
    "T.zeros(2).index_add_(0, T.tensor([3]), T.ones(1))",
    "T.ones(2, 3).repeat(2)",
    "T.tril(T.ones(3))",
    "T.diag(T.ones(2, 2, 2))",
    "T.ones(2, 3).movedim(5, 0)",
    "T.ones(2, 3).movedim((0, 1), 0)",
    "T.ones(2).new_zeros('a')",
    "T.trace(T.ones(3))",
    "T.tensor([1, 2]).sin_()",
    "T.ones(2, requires_grad=True).tanh_()",
    "T.multinomial(T.ones(3), 5)",
    "T.tensor([0.5, -1.0]).multinomial(1)",
    "T.multinomial(T.zeros(2, 3), 1, replacement=True)",
]


@pytest.mark.parametrize("expr", SAME_ERROR_AS_PYTORCH)
def test_error_kinds_match_pytorch(expr):
    import torch

    def kind(module):
        try:
            eval(expr, {"T": module})
        except Exception as e:  # noqa: BLE001  the type is what is compared
            return type(e).__name__
        return "no error"

    expected = kind(torch)
    assert expected != "no error", f"{expr} raises nothing under PyTorch"
    assert kind(ember) == expected, expr


def test_out_of_memory_error_is_a_runtime_error():
    assert issubclass(ember.cuda.OutOfMemoryError, RuntimeError)
    with pytest.raises(RuntimeError, match="out of memory"):
        ember.empty(1 << 50)


def test_error_messages_name_the_values():
    with pytest.raises(IndexError, match="6"):
        ember.arange(6)[6]
    with pytest.raises(TypeError, match="str"):
        ember.zeros(2, dtype="float32")


def test_tensor_of_python_floats_rounds_once_to_the_asked_dtype():
    values = [-0.999, 0.1, 1e-8, 3.141592653589793]
    for dtype, torch_dtype in [(ember.float64, torch.float64), (ember.float32, torch.float32),
                               (ember.float16, torch.float16), (None, None)]:
        e = ember.tensor(values, dtype=dtype)
        t = torch.tensor(values, dtype=torch_dtype)
        assert str(e.dtype) == str(t.dtype).replace("torch", "ember")
        assert e.tolist() == t.tolist()
    assert ember.tensor([[1.5, 2.0]], dtype=ember.int64).tolist() == [[1, 2]]


def test_numpy_shares_memory_both_ways():
    x = ember.arange(6, dtype=ember.float32).reshape(2, 3)
    a = x.numpy()
    assert a.ctypes.data == x.data_ptr()
    assert a.dtype == np.float32 and a.shape == (2, 3)
    a[0, 0] = 42
    assert x[0, 0].item() == 42
    t = x.t()
    assert t.numpy().ctypes.data == x.data_ptr() and t.numpy().strides == (4, 12)
    n = np.arange(8, dtype=np.int64)
    e = ember.from_numpy(n)
    assert e.data_ptr() == n.ctypes.data and e.dtype is ember.int64
    e.add_(1)
    assert n.tolist() == list(range(1, 9))


def test_from_numpy_keeps_the_array_alive():
    e = ember.from_numpy(np.full(1000, 3.0))
    import gc
    gc.collect()
    assert e.sum().item() == 3000.0


def test_numpy_rejects_what_pytorch_rejects():
    with pytest.raises(TypeError):
        ember.from_numpy([1, 2])
    with pytest.raises(TypeError):
        ember.from_numpy(np.array(["a"]))
    with pytest.raises(TypeError):
        ember.ones(2, dtype=ember.bfloat16).numpy()


def test_size_dtype_device_objects():
    s = ember.zeros(2, 5).shape
    assert isinstance(s, tuple) and isinstance(s, ember.Size) and s == (2, 5)
    assert repr(s) == "ember.Size([2, 5])" and repr(s[1:]) == "ember.Size([5])"
    assert repr(ember.float32) == "ember.float32" and ember.float is ember.float32
    assert ember.long is ember.int64 and ember.ones(1).dtype is ember.float32
    d = ember.device("cuda:1")
    assert (d.type, d.index) == ("cuda", 1) and repr(d) == "device(type='cuda', index=1)"
    assert d == ember.device("cuda", 1) and hash(d) == hash(ember.device("cuda", 1))
    assert {d: 1}[ember.device("cuda:1")] == 1 and ember.device("cpu").index is None
    assert str(d) == "cuda:1" and repr(ember.device("cpu")) == "device(type='cpu')"


def test_in_place_methods_return_self():
    x = ember.ones(3)
    assert x.add_(1) is x and x.mul_(2) is x and x.zero_() is x and x.fill_(1.5) is x
    y = x
    y += 1
    assert y is x and x.tolist() == [2.5, 2.5, 2.5]


def test_python_numbers_and_lists():
    x = ember.tensor([[1, 2], [3, 4]])
    assert x.tolist() == [[1, 2], [3, 4]] and type(x.tolist()[0][0]) is int
    assert ember.tensor([True]).tolist() == [True] and ember.tensor(2.5).item() == 2.5
    assert float(ember.tensor(1.5)) == 1.5 and int(ember.tensor(7)) == 7
    assert [1, 2, 3][ember.tensor(1)] == 2


def test_grad_mode_context_and_decorator():
    w = ember.ones(2, requires_grad=True)
    with ember.no_grad():
        assert not ember.is_grad_enabled() and not (w * 2).requires_grad
        with ember.enable_grad():
            assert (w * 2).requires_grad
    assert ember.is_grad_enabled()

    @ember.no_grad()
    def f():
        return ember.is_grad_enabled()

    assert f() is False and ember.is_grad_enabled()
    with ember.set_grad_enabled(False):
        assert not ember.is_grad_enabled()
    assert ember.is_grad_enabled()


def test_backward_with_gradient_and_autograd_grad():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.backward(ember.tensor([1.0, 0.5]), retain_graph=True)
    assert x.grad.tolist() == [2.0, 2.0]
    (g,) = ember.autograd.grad(y.sum(), x)
    assert g.tolist() == [2.0, 4.0]
    x.grad = None
    assert x.grad is None


def test_cuda_module_without_devices_or_with_simulated_ones():
    n = ember.cuda.device_count()
    assert ember.cuda.is_available() == (n > 0)
    if n == 0:
        with pytest.raises(RuntimeError):
            ember.cuda.current_device()
        return
    x = ember.ones(1000, device="cuda")
    ember.cuda.synchronize()
    assert ember.cuda.memory_allocated() >= 4000
    assert ember.cuda.max_memory_allocated() >= ember.cuda.memory_allocated()
    assert ember.cuda.memory_reserved() >= ember.cuda.memory_allocated()
    assert isinstance(ember.cuda.get_device_name(0), str)
    assert ember.cuda.get_device_properties(0).total_memory > 0
    assert "Memory" in ember.cuda.memory_summary() or "memory" in ember.cuda.memory_summary()
    del x
    ember.cuda.empty_cache()
    ember.cuda.reset_peak_memory_stats()
    ember.cuda.set_device(n - 1)
    assert ember.cuda.current_device() == n - 1
    ember.cuda.set_device(0)


# grad_fn names as PyTorch's Python shows them: scalar operands are wrapped in tensors there, so
# libtorch's scalar-overload names (AddBackward1) become the tensor ones. `2 - x` and `2 / x`
# differ (docs/python.md).
GRAD_FN_EXPRESSIONS = ["x + 2", "x - 2", "x * 2", "x / 2", "2 * x", "2 + x", "x ** 2", "2 ** x",
                       "x.add(2, alpha=3)", "x.clamp(0, 1)", "-x", "x.mean()", "x.sum(0)"]


@pytest.mark.parametrize("expr", GRAD_FN_EXPRESSIONS)
def test_grad_fn_names_match_pytorch(expr):
    import torch

    def name(lib):
        x = lib.ones(2, requires_grad=True)
        y = eval(expr, {"x": x})
        return y.grad_fn.name(), repr(y).split("grad_fn=<")[1].split(">")[0]

    assert name(ember) == name(torch)


SHAPE_OPS = [
    "x.tril()", "x.tril(1)", "T.triu(x, -1)", "T.tril(y, diagonal=2)", "x.diagonal()",
    "T.diagonal(y, 1, 2, 0)", "y.diagonal(offset=-1, dim1=0, dim2=2)", "x.diag()",
    "T.diag(v, -1)", "x.trace()", "x.repeat(2, 1, 3)", "x.repeat((2, 2))", "T.movedim(y, 0, 2)",
    "y.movedim((0, 1), (2, 0))", "y.unflatten(2, (2, -1))", "T.unflatten(x, 0, (1, 3))",
    "x.split_with_sizes([1, 2], 0)[1]", "T.split(x, [3, 1], 1)[0]", "T.argwhere(x > 0)",
    "T.isinf(s)", "s.isfinite()",
]


@pytest.mark.parametrize("expr", SHAPE_OPS)
def test_shape_and_matrix_ops_match_pytorch_with_gradients(expr):
    """The C++ ops of docs/tensors.md's shapes and parts of matrices, as PyTorch programs call them:
    values, dtypes and the gradient of sum(out * w)."""
    rng = np.random.default_rng(zlib.crc32(expr.encode()))
    data = {"x": rng.standard_normal((3, 4)), "y": rng.standard_normal((2, 3, 4)),
            "v": rng.standard_normal(3),
            "s": np.array([1.0, np.inf, -np.inf, np.nan, -2.0])}
    results = []
    for T in (ember, torch):
        env = {k: T.tensor(a, requires_grad=k != "s") for k, a in data.items()}
        env["T"] = T
        out = eval(expr, {}, env)
        grads = []
        if out.is_floating_point():
            w = T.tensor(np.linspace(-1.0, 1.0, out.numel()).reshape(tuple(out.shape)))
            (out * w).sum().backward()
            grads = [env[k].grad for k in ("x", "y", "v")]
        results.append((out, grads))
    (e, e_grads), (t, t_grads) = results
    same(e, t.detach())
    for eg, tg in zip(e_grads, t_grads):
        assert (eg is None) == (tg is None), expr
        if tg is not None:
            same(eg, tg)


def test_in_place_triangles_return_the_tensor():
    e, t = ember.arange(12.0).reshape(3, 4), torch.arange(12.0).reshape(3, 4)
    assert e.tril_(1) is e and e.triu_(-1) is e
    same(e, t.tril_(1).triu_(-1))


def test_multinomial_draws_follow_the_weights_as_pytorchs_do():
    # Random streams differ between the libraries: the frequencies are what is compared.
    w = [0.2, 0.0, 1.2, 0.6]
    ember.manual_seed(0)
    torch.manual_seed(0)
    for replacement in (True, False):
        n = 20000
        if replacement:
            e = ember.multinomial(ember.tensor(w), n, replacement=True)
            t = torch.multinomial(torch.tensor(w), n, replacement=True)
        else:  # one draw from each of n rows: the first draw without replacement
            e = ember.tensor(w).expand(n, 4).contiguous().multinomial(2)[:, 0]
            t = torch.tensor(w).expand(n, 4).contiguous().multinomial(2)[:, 0]
        assert e.dtype == ember.int64 and tuple(e.shape) == tuple(t.shape)
        fe = np.bincount(e.numpy(), minlength=4) / n
        ft = np.bincount(t.numpy(), minlength=4) / n
        assert fe[1] == 0 and ft[1] == 0
        assert np.allclose(fe, ft, atol=0.02), (fe, ft)
