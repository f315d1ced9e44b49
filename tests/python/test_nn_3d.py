"""The 3-D layers and unpooling of issue 34 (Conv3d, ConvTranspose3d, MaxPool3d, AvgPool3d, the
adaptive 3-D pools, InstanceNorm3d, MaxUnpool1d/2d/3d and the *_with_indices functional names)
against torch.nn: forward, the gradients of input and parameters, float32 and float64, on the CPU
and on a CUDA device when there is one; then bad input raising PyTorch's exception types."""
import numpy as np
import pytest
import torch

import ember
from nn_compare import copy_params, to_numpy, wave

DEVICES = ["cpu"] + (["cuda"] if ember.cuda.is_available() else [])
DTYPES = [("float32", 1e-4, 1e-5), ("float64", 1e-10, 1e-12)]

# (constructor text, input shape): built in both libraries.
LAYERS = [
    ("Conv3d(2, 3, 3)", (2, 2, 5, 6, 5)),
    ("Conv3d(4, 6, (3, 2, 3), stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1), groups=2)",
     (1, 4, 7, 6, 7)),
    ("Conv3d(2, 3, (2, 3, 4), padding='same', bias=False)", (1, 2, 5, 5, 6)),
    ("Conv3d(2, 2, 3, padding='valid')", (2, 4, 5, 4)),
    ("Conv3d(2, 3, 3, padding=1, padding_mode='reflect')", (1, 2, 4, 5, 4)),
    ("Conv3d(2, 3, (3, 2, 3), padding=(1, 1, 2), padding_mode='replicate')", (1, 2, 4, 4, 5)),
    ("Conv3d(4, 2, 2, padding='same', groups=2, padding_mode='circular')", (1, 4, 4, 5, 3)),
    ("ConvTranspose3d(2, 3, 3, stride=2, padding=1, output_padding=1)", (2, 2, 3, 4, 3)),
    ("ConvTranspose3d(4, 6, (2, 3, 2), stride=(1, 2, 2), groups=2, bias=False, dilation=2, "
     "output_padding=(1, 1, 0))", (1, 4, 3, 3, 4)),
    ("MaxPool3d(2)", (2, 3, 4, 6, 6)),
    ("MaxPool3d((3, 2, 3), stride=(2, 1, 2), padding=1, dilation=(1, 2, 1), ceil_mode=True)",
     (1, 2, 7, 6, 8)),
    ("AvgPool3d(2)", (2, 3, 4, 6, 6)),
    ("AvgPool3d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)",
     (1, 2, 6, 7, 5)),
    ("AvgPool3d((2, 3, 2), padding=1, divisor_override=4)", (3, 5, 6, 4)),
    ("AdaptiveAvgPool3d((2, 3, 4))", (2, 2, 5, 7, 6)),
    ("AdaptiveAvgPool3d(3)", (2, 4, 4, 5)),
    ("AdaptiveMaxPool3d((3, 2, 4))", (2, 2, 5, 7, 6)),
    ("InstanceNorm3d(3)", (2, 3, 4, 3, 5)),
    ("InstanceNorm3d(3, affine=True, track_running_stats=True)", (2, 3, 4, 3, 5)),
]


def build(text):
    return eval("ember.nn." + text), eval("torch.nn." + text)


def pair(shape, dtype, device, offset=0.0):
    data = wave(*shape, scale=2.0, offset=offset).astype(dtype)
    e = ember.tensor(data).to(device).detach().requires_grad_(True)
    t = torch.tensor(data).requires_grad_(True)
    return e, t


def close(e, t, rtol, atol):
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=rtol, atol=atol)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype,rtol,atol", DTYPES, ids=[d[0] for d in DTYPES])
@pytest.mark.parametrize("text,shape", LAYERS, ids=[x[0] for x in LAYERS])
def test_layer_matches_torch(text, shape, dtype, rtol, atol, device):
    e_mod, t_mod = build(text)
    assert repr(e_mod) == repr(t_mod)
    t_mod = t_mod.to(getattr(torch, dtype))
    e_mod.to(getattr(ember, dtype))
    copy_params(e_mod, t_mod)
    e_mod.to(device)
    e_in, t_in = pair(shape, dtype, device)
    e_out, t_out = e_mod(e_in), t_mod(t_in)
    close(e_out, t_out, rtol, atol)
    weights = wave(*t_out.shape, offset=1.0).astype(dtype)
    (e_out * ember.tensor(weights).to(device)).sum().backward()
    (t_out * torch.tensor(weights)).sum().backward()
    close(e_in.grad, t_in.grad, rtol, atol)
    e_named, t_named = dict(e_mod.named_parameters()), dict(t_mod.named_parameters())
    assert list(e_named) == list(t_named)
    for name, t_param in t_named.items():
        close(e_named[name].grad, t_param.grad, rtol, atol)
    for (name, e_buf), (_, t_buf) in zip(e_mod.named_buffers(), t_mod.named_buffers()):
        close(e_buf, t_buf, rtol, atol)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype,rtol,atol", DTYPES, ids=[d[0] for d in DTYPES])
def test_pools_with_indices_and_unpooling_match_torch(dtype, rtol, atol, device):
    cases = [  # (pool, unpool, input shape, pool arguments, unpool output_size)
        ("MaxPool1d", "MaxUnpool1d", (2, 3, 9), dict(kernel_size=3, stride=2), [9]),
        ("MaxPool2d", "MaxUnpool2d", (2, 2, 7, 6), dict(kernel_size=2), [1, 2, 7, 6]),
        ("MaxPool3d", "MaxUnpool3d", (2, 2, 5, 6, 4), dict(kernel_size=3, stride=2, padding=1),
         (5, 6, 4)),
        ("MaxPool3d", "MaxUnpool3d", (2, 2, 4, 6, 4), dict(kernel_size=2), None),
        ("MaxPool3d", "MaxUnpool3d", (3, 4, 4, 6), dict(kernel_size=2), (5, 4, 7)),
    ]
    for pool, unpool, shape, kwargs, size in cases:
        e_in, t_in = pair(shape, dtype, device)
        e_pool = getattr(ember.nn, pool)(return_indices=True, **kwargs)
        t_pool = getattr(torch.nn, pool)(return_indices=True, **kwargs)
        (e_v, e_i), (t_v, t_i) = e_pool(e_in), t_pool(t_in)
        close(e_v, t_v, rtol, atol)
        assert np.array_equal(to_numpy(e_i), to_numpy(t_i))
        e_un, t_un = getattr(ember.nn, unpool)(**kwargs), getattr(torch.nn, unpool)(**kwargs)
        assert repr(e_un) == repr(t_un)
        e_out, t_out = e_un(e_v, e_i, output_size=size), t_un(t_v, t_i, output_size=size)
        close(e_out, t_out, rtol, atol)
        weights = wave(*t_out.shape, offset=0.5).astype(dtype)
        (e_out * ember.tensor(weights).to(device)).sum().backward()
        (t_out * torch.tensor(weights)).sum().backward()
        close(e_in.grad, t_in.grad, rtol, atol)


@pytest.mark.parametrize("device", DEVICES)
def test_functional_names_match_torch(device):
    ef, tf = ember.nn.functional, torch.nn.functional
    e_x, t_x = pair((2, 3, 5, 6, 7), "float64", device)
    e_w, t_w = pair((4, 3, 2, 3, 2), "float64", device, offset=1.0)
    e_b, t_b = pair((4,), "float64", device, offset=2.0)
    checks = [
        ("conv3d", (e_x, e_w, e_b), (t_x, t_w, t_b), dict(stride=(1, 2, 1), padding=1)),
        ("conv3d", (e_x, e_w), (t_x, t_w), dict(padding="same", dilation=(2, 1, 1))),
        ("max_pool3d", (e_x, 2), (t_x, 2), dict(stride=1, padding=1)),
        ("avg_pool3d", (e_x, (2, 3, 2)), (t_x, (2, 3, 2)), dict(ceil_mode=True)),
        ("adaptive_avg_pool3d", (e_x, (2, 4, 3)), (t_x, (2, 4, 3)), {}),
        ("adaptive_max_pool3d", (e_x, 3), (t_x, 3), {}),
    ]
    for name, e_args, t_args, kwargs in checks:
        close(getattr(ef, name)(*e_args, **kwargs), getattr(tf, name)(*t_args, **kwargs), 1e-10,
              1e-12)
    e_y, t_y = pair((2, 3, 3, 3, 2), "float64", device)
    close(ef.conv_transpose3d(e_y, e_w.transpose(0, 1), e_b, stride=2, output_padding=(1, 0, 1)),
          tf.conv_transpose3d(t_y, t_w.transpose(0, 1), t_b, stride=2, output_padding=(1, 0, 1)),
          1e-10, 1e-12)
    # The *_with_indices names return (values, indices) whatever return_indices says.
    x1, t1 = pair((2, 3, 9), "float64", device)
    x2, t2 = pair((2, 3, 6, 7), "float64", device)
    for name, e_in, t_in, arg in [("max_pool1d_with_indices", x1, t1, 3),
                                  ("max_pool2d_with_indices", x2, t2, 2),
                                  ("max_pool3d_with_indices", e_x, t_x, 2),
                                  ("adaptive_max_pool1d_with_indices", x1, t1, 4),
                                  ("adaptive_max_pool2d_with_indices", x2, t2, (3, 2)),
                                  ("adaptive_max_pool3d_with_indices", e_x, t_x, (3, 2, 4))]:
        (e_v, e_i), (t_v, t_i) = getattr(ef, name)(e_in, arg), getattr(tf, name)(t_in, arg)
        close(e_v, t_v, 1e-12, 1e-12)
        assert np.array_equal(to_numpy(e_i), to_numpy(t_i)), name
    e_v, e_i = ef.max_pool2d_with_indices(x2, 2)
    t_v, t_i = tf.max_pool2d_with_indices(t2, 2)
    close(ef.max_unpool2d(e_v, e_i, 2, output_size=(6, 7)),
          tf.max_unpool2d(t_v, t_i, 2, output_size=(6, 7)), 1e-12, 1e-12)
    e_v, e_i = ef.max_pool1d_with_indices(x1, 2, 2)
    t_v, t_i = tf.max_pool1d_with_indices(t1, 2, 2)
    close(ef.max_unpool1d(e_v, e_i, 2), tf.max_unpool1d(t_v, t_i, 2), 1e-12, 1e-12)


def raised(f, lib):
    try:
        f(lib)
    except Exception as e:  # noqa: BLE001 - the type is what the test compares
        return e
    return None


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.functional.conv3d(lib.ones(2, 4, 5, 5), lib.ones(2, 3, 3, 3, 3)),
    lambda lib: lib.nn.functional.conv3d(lib.ones(1, 4, 5, 5, 5), lib.ones(3, 2, 3, 3, 3),
                                         groups=2),
    lambda lib: lib.nn.functional.conv_transpose3d(lib.ones(1, 4, 3, 3, 3),
                                                   lib.ones(4, 2, 3, 3, 3), stride=2,
                                                   output_padding=2),
    lambda lib: lib.nn.Conv3d(4, 6, 3, groups=3),
    lambda lib: lib.nn.Conv3d(2, 2, 3, stride=2, padding="same"),
    lambda lib: lib.nn.functional.max_pool3d(lib.ones(2, 3, 4), 2),
    lambda lib: lib.nn.functional.avg_pool3d(lib.ones(1, 2, 6, 6, 6), 3, padding=2),
    lambda lib: lib.nn.functional.adaptive_avg_pool3d(lib.ones(2, 3, 4), 2),
    lambda lib: lib.nn.InstanceNorm3d(3)(lib.ones(3, 4, 5)),
    lambda lib: lib.nn.functional.max_unpool2d(lib.ones(1, 1, 2, 2),
                                               lib.zeros(1, 1, 2, 2, dtype=lib.int64), 2,
                                               output_size=[7, 7]),
    lambda lib: lib.nn.functional.max_unpool2d(lib.ones(1, 1, 2, 2),
                                               lib.full((1, 1, 2, 2), 20, dtype=lib.int64), 2),
    lambda lib: lib.nn.functional.max_unpool3d(lib.ones(1, 1, 2, 2, 2),
                                               lib.zeros(1, 1, 2, 2, 1, dtype=lib.int64), 2),
])
def test_bad_input_raises_what_torch_raises(make):
    t_err, e_err = raised(make, torch), raised(make, ember)
    assert t_err is not None and e_err is not None, (t_err, e_err)
    assert isinstance(e_err, type(t_err)), (type(e_err), type(t_err), str(e_err))


def test_unpool_int32_indices_raise_runtime_error():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="elements in indices should be type int64"):
            lib.nn.functional.max_unpool2d(lib.ones(1, 1, 2, 2),
                                           lib.zeros(1, 1, 2, 2, dtype=lib.int32), 2)
