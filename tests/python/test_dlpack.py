"""DLPack both ways and the buffer protocol: memory shared (pointer identity, writes seen on both
sides), lifetimes, and errors."""
import gc

import numpy as np
import pytest
import torch

import ember


def test_torch_from_ember_shares_memory():
    e = ember.arange(6, dtype=ember.float32).reshape(2, 3)
    t = torch.from_dlpack(e)
    assert t.data_ptr() == e.data_ptr() and t.shape == (2, 3) and t.dtype == torch.float32
    t[1, 2] = 42.0
    assert e[1, 2].item() == 42.0
    e[0, 0] = -1.0
    assert t[0, 0].item() == -1.0
    del e
    gc.collect()
    assert t.tolist() == [[-1.0, 1.0, 2.0], [3.0, 4.0, 42.0]]  # the capsule kept it alive


def test_ember_from_torch_shares_memory_and_strides():
    base = torch.arange(12.0).reshape(3, 4)
    view = base[:, 1:3]
    e = ember.from_dlpack(view)
    assert e.data_ptr() == view.data_ptr() and e.stride() == (4, 1) and e.shape == (3, 2)
    e[0, 0] = 100.0
    assert base[0, 1].item() == 100.0
    del base, view
    gc.collect()
    assert e.tolist() == [[100.0, 2.0], [5.0, 6.0], [9.0, 10.0]]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32",
                                   "int16", "int8", "uint8"])
def test_dtypes_both_ways(dtype):
    t = torch.arange(4).to(getattr(torch, dtype))
    e = ember.from_dlpack(t)
    assert str(e.dtype) == f"ember.{dtype}" and e.data_ptr() == t.data_ptr()
    back = torch.from_dlpack(e)
    assert back.dtype == t.dtype and back.data_ptr() == t.data_ptr()


def test_utils_dlpack_capsules_and_numpy():
    e = ember.ones(3)
    cap = ember.utils.dlpack.to_dlpack(e)
    t = torch.utils.dlpack.from_dlpack(cap)
    assert t.data_ptr() == e.data_ptr()
    with pytest.raises(RuntimeError, match="only once"):
        ember.utils.dlpack.from_dlpack(cap)
    tcap = torch.utils.dlpack.to_dlpack(torch.zeros(2))
    assert ember.utils.dlpack.from_dlpack(tcap).tolist() == [0.0, 0.0]
    a = np.arange(5.0)
    n = ember.from_dlpack(a)
    assert n.data_ptr() == a.ctypes.data and n.dtype == ember.float64
    assert np.from_dlpack(e).ctypes.data == e.data_ptr()
    assert e.__dlpack_device__() == (1, 0)


def test_dlpack_errors():
    with pytest.raises(RuntimeError, match="require gradient"):
        ember.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(TypeError, match="__dlpack__"):
        ember.from_dlpack([1, 2])
    with pytest.raises(TypeError, match="ember.Tensor"):
        ember.utils.dlpack.to_dlpack(np.ones(2))


def test_buffer_protocol_shares_memory():
    e = ember.arange(6, dtype=ember.float32).reshape(2, 3)
    m = memoryview(e)
    assert (m.format, m.shape, m.strides, m.readonly) == ("f", (2, 3), (12, 4), False)
    assert m.tolist() == e.tolist()
    m[1, 2] = 9.5
    assert e[1, 2].item() == 9.5
    a = np.asarray(m)
    assert a.ctypes.data == e.data_ptr()
    assert bytes(ember.tensor([1, 2, 255], dtype=ember.uint8)) == b"\x01\x02\xff"
    t = memoryview(e.t())
    assert t.strides == (4, 12) and not t.c_contiguous
    formats = {ember.float64: "d", ember.float16: "e", ember.int64: "q", ember.int32: "i",
               ember.int16: "h", ember.int8: "b", ember.bool: "?"}
    for dt, f in formats.items():
        assert memoryview(ember.zeros(2, dtype=dt)).format == f
    del e
    gc.collect()
    assert m[1, 2] == 9.5  # the view keeps the tensor alive
    m.release()


def test_buffer_protocol_errors():
    with pytest.raises(BufferError, match="requires grad"):
        memoryview(ember.ones(2, requires_grad=True))
    with pytest.raises(BufferError, match="BFloat16|bfloat16"):
        memoryview(ember.ones(2, dtype=ember.bfloat16))
    if ember.cuda.is_available():
        with pytest.raises(BufferError, match="cuda"):
            memoryview(ember.ones(2, device="cuda"))
