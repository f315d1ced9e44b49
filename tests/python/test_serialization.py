"""ember.save / ember.load: round trips of tensors and containers, map_location, file objects,
files other tools read, and errors naming the file."""
import collections
import io
import os

import numpy as np
import pytest
import torch

import ember


def test_tensor_round_trip_keeps_dtype_shape_values(tmp_path):
    path = tmp_path / "t.pt"
    for t in (ember.arange(6, dtype=ember.float64).reshape(2, 3), ember.tensor([True, False]),
              ember.tensor(7), ember.ones(2, 2, dtype=ember.float16), ember.arange(12)[::3],
              ember.ones(0, 3)):
        ember.save(t, path)
        back = ember.load(path)
        assert back.dtype == t.dtype and back.shape == t.shape
        assert back.tolist() == t.tolist()


def test_nested_containers_round_trip(tmp_path):
    sd = collections.OrderedDict([("b.weight", ember.ones(2, 2)), ("a.bias", ember.zeros(2))])
    obj = {"model": sd, "epoch": 5, "lr": 1e-3, "name": "x", "none": None, "flag": True,
           "list": [1, [2.5, ember.tensor([1, 2])]], "tuple": (1, "a"), 3: "int key",
           "size": ember.Size([2, 3]), "dtype": ember.float16, "device": ember.device("cpu")}
    ember.save(obj, tmp_path / "ckpt.pt")
    back = ember.load(str(tmp_path / "ckpt.pt"))
    assert type(back) is dict and type(back["model"]) is collections.OrderedDict
    assert list(back["model"]) == ["b.weight", "a.bias"]
    assert back["model"]["b.weight"].tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert (back["epoch"], back["lr"], back["name"], back["none"], back["flag"]) == \
        (5, 1e-3, "x", None, True)
    assert back["list"][0] == 1 and back["list"][1][0] == 2.5
    assert back["list"][1][1].tolist() == [1, 2]
    assert back["tuple"] == (1, "a") and back[3] == "int key"
    assert isinstance(back["size"], ember.Size) and back["size"] == (2, 3)
    assert back["dtype"] is ember.float16 and back["device"] == ember.device("cpu")


def test_shared_tensor_stays_shared_and_requires_grad_survives(tmp_path):
    w = ember.ones(3, requires_grad=True)
    ember.save({"a": w, "b": w, "c": [w]}, tmp_path / "s.pt")
    back = ember.load(tmp_path / "s.pt")
    assert back["a"] is back["b"] and back["c"][0] is back["a"]
    assert back["a"].requires_grad and back["a"].is_leaf


def test_flat_state_dict_is_a_plain_safetensors_file(tmp_path):
    ember.save({"w": ember.arange(4, dtype=ember.float32)}, tmp_path / "m.safetensors")
    raw = (tmp_path / "m.safetensors").read_bytes()
    n = int.from_bytes(raw[:8], "little")
    assert b'"w"' in raw[8:8 + n]
    data = np.frombuffer(raw[8 + n:], dtype=np.float32)
    assert data.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_map_location_forms(tmp_path):
    ember.save({"x": ember.ones(2)}, tmp_path / "m.pt")
    for loc in ("cpu", ember.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage):
        assert ember.load(tmp_path / "m.pt", map_location=loc)["x"].device.type == "cpu"
    with pytest.raises(TypeError, match="map_location returned int"):
        ember.load(tmp_path / "m.pt", map_location=lambda s, loc: 3)
    if not ember.cuda.is_available():
        with pytest.raises(RuntimeError, match="is_available"):
            ember.load(tmp_path / "m.pt", map_location="cuda:0")


def test_cuda_tensors_come_back_on_their_device(tmp_path):
    if ember.cuda.is_available():  # the SIM build: two devices
        ember.save({"x": ember.ones(2, device="cuda:1")}, tmp_path / "c.pt")
    else:  # the file a CUDA build writes: the device is in the structure
        meta = {"ember.python": '{"D":[[{"V":"x"},{"T":"x","device":"cuda:1"}]]}'}
        (tmp_path / "c.pt").write_bytes(ember._C._save_bytes([("x", ember.ones(2))], meta))
    assert ember.load(tmp_path / "c.pt", map_location="cpu")["x"].device.type == "cpu"
    if not ember.cuda.is_available():
        with pytest.raises(RuntimeError, match="map_location=ember.device"):
            ember.load(tmp_path / "c.pt")
        return
    assert ember.load(tmp_path / "c.pt")["x"].device == ember.device("cuda:1")
    moved = ember.load(tmp_path / "c.pt", map_location={"cuda:1": "cuda:0"})["x"]
    assert moved.device == ember.device("cuda:0")


def test_file_objects():
    buf = io.BytesIO()
    ember.save([ember.tensor([1.5]), 2], buf)
    buf.seek(0)
    back = ember.load(buf)
    assert back[0].tolist() == [1.5] and back[1] == 2


def test_save_is_atomic_and_replaces(tmp_path):
    path = tmp_path / "a.pt"
    ember.save(ember.ones(2), path)
    ember.save(ember.zeros(3), path)
    assert ember.load(path).tolist() == [0.0, 0.0, 0.0]
    assert os.listdir(tmp_path) == ["a.pt"]  # no temporary left behind
    with pytest.raises(TypeError, match="object"):
        ember.save({"bad": object()}, path)
    assert ember.load(path).tolist() == [0.0, 0.0, 0.0]  # a failed save kept the old file


def test_bad_files_raise_naming_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.pt"):
        ember.load(tmp_path / "missing.pt")
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}")
    with pytest.raises((RuntimeError, ValueError), match="garbage.pt"):
        ember.load(garbage)
    ember.save({"a": ember.ones(4)}, tmp_path / "ok.pt")
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes((tmp_path / "ok.pt").read_bytes()[:-3])
    with pytest.raises((RuntimeError, ValueError), match="truncated.pt"):
        ember.load(truncated)
    torch.save({"a": torch.ones(2)}, tmp_path / "torch.pt")
    assert ember.load(tmp_path / "torch.pt")["a"].tolist() == [1.0, 1.0]  # test_serialization_pt
    with pytest.raises(RuntimeError, match="nonexistent"):
        ember.save(ember.ones(1), tmp_path / "nonexistent" / "x.pt")
    with pytest.raises(TypeError, match="path or a writable"):
        ember.save(ember.ones(1), 42)
    with pytest.raises(TypeError, match="path or a readable"):
        ember.load(42)


def test_files_written_by_cpp_ember_save_load():
    # C++'s ember::save(tensor) and save(vector) tag the file; Python reads both kinds.
    buf = io.BytesIO(ember._C._save_bytes([("tensor", ember.ones(2))],
                                          {"ember.content": "tensor"}))
    assert ember.load(buf).tolist() == [1.0, 1.0]
    buf = io.BytesIO(ember._C._save_bytes([("1", ember.ones(1)), ("0", ember.zeros(1))],
                                          {"ember.content": "tensor_list"}))
    assert [t.tolist() for t in ember.load(buf)] == [[0.0], [1.0]]
    buf = io.BytesIO(ember._C._save_bytes([("w", ember.ones(1))], {}))
    assert list(ember.load(buf)) == ["w"]


def test_equal_and_allclose_functions_as_checkpoint_comparisons_use_them(tmp_path):
    a = ember.tensor([1.0, 2.0, float("nan")])
    ember.save(a, tmp_path / "a.pt")
    b = ember.load(tmp_path / "a.pt")
    ta = torch.tensor([1.0, 2.0, float("nan")])
    assert ember.equal(a[:2], b[:2]) == torch.equal(ta[:2], ta[:2]) is True
    assert ember.equal(a, ember.ones(2)) is torch.equal(ta, torch.ones(2)) is False
    assert ember.allclose(a, b) is torch.allclose(ta, ta) is False
    assert ember.allclose(a, b, equal_nan=True) is torch.allclose(ta, ta, equal_nan=True) is True
    assert ember.allclose(a[:2], a[:2] + 1e-6, rtol=0, atol=1e-5)
    assert not ember.allclose(a[:2], a[:2] + 1e-3, rtol=0, atol=1e-5)
