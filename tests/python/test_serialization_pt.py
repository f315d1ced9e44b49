"""ember.save / ember.load of PyTorch's own files (.pt / .pth, torch.save's zip format) against
PyTorch 1.13: files from torch.save load with the same values, dtypes, strides and shared
storages; files from ember.save load in torch.load, also with weights_only=True; map_location as
PyTorch; hostile files raise without running anything."""
import collections
import io
import os
import pickle
import zipfile

import pytest
import torch

import ember

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
          "bool"]


def pattern(n, name):
    dt = getattr(torch, name)
    i = torch.arange(n)
    if dt == torch.bool:
        return i % 3 == 0
    if dt.is_floating_point:
        return ((i % 97).double() * 0.25 - 12.0).to(dt)
    return ((i * 37) % 100 - 50).to(dt) if dt != torch.uint8 else ((i * 37) % 256).to(dt)


def values(t):
    """Exact values of a torch or ember tensor, as nested Python lists."""
    is_float = t.dtype in (getattr(torch, "float16"), getattr(torch, "bfloat16"),
                           ember.float16, ember.bfloat16)
    return (t.double() if is_float else t).tolist()


def test_torch_files_load_with_every_dtype_and_shared_views(tmp_path):
    sd = collections.OrderedDict((name, pattern(12, name).reshape(3, 4)) for name in DTYPES)
    base = pattern(24, "float32").reshape(4, 6)
    sd.update(base=base, t=base.t(), row=base[2], strided=base[:, ::2])
    torch.save(sd, tmp_path / "sd.pth")
    back = ember.load(tmp_path / "sd.pth")
    assert type(back) is collections.OrderedDict and list(back) == list(sd)
    for name, t in sd.items():
        e = back[name]
        assert str(e.dtype) == "ember." + str(t.dtype).split(".")[1], name
        assert e.shape == t.shape and e.stride() == t.stride(), name
        assert e.storage_offset() == t.storage_offset(), name
        assert values(e) == values(t), name
    back["base"].fill_(1.0)  # the views share the storage of base, as in PyTorch
    assert back["row"].tolist() == [1.0] * 6 and back["t"].tolist()[0] == [1.0] * 4


def test_torch_checkpoint_keeps_its_structure(tmp_path):
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(model.parameters())
    model(torch.ones(1, 3)).sum().backward()
    opt.step()
    shared = torch.ones(2)
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 4,
                "lr": 0.5, "tags": ["a", None, True], "shape": torch.Size([2, 3]),
                "same": [shared, shared], "param": torch.nn.Parameter(torch.zeros(2)),
                "dtype": torch.float16, "device": torch.device("cpu")}, tmp_path / "ckpt.pt")
    ck = ember.load(str(tmp_path / "ckpt.pt"))
    assert type(ck["model"]) is collections.OrderedDict
    assert values(ck["model"]["weight"]) == values(model.weight.detach())
    state = ck["optimizer"]["state"]
    assert sorted(state) == [0, 1]
    assert values(state[0]["exp_avg"]) == values(opt.state_dict()["state"][0]["exp_avg"])
    assert ck["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999)
    assert (ck["epoch"], ck["lr"], ck["tags"]) == (4, 0.5, ["a", None, True])
    assert isinstance(ck["shape"], ember.Size) and ck["shape"] == (2, 3)
    assert ck["same"][0] is ck["same"][1]
    assert isinstance(ck["param"], ember.nn.Parameter) and ck["param"].requires_grad
    assert ck["dtype"] is ember.float16 and ck["device"] == ember.device("cpu")


def test_ember_files_load_in_torch_with_weights_only(tmp_path):
    sd = collections.OrderedDict(
        (name, ember.tensor(pattern(6, name).tolist(), dtype=getattr(ember, name)))
        for name in DTYPES)
    base = ember.arange(12, dtype=ember.float32).reshape(3, 4)
    sd.update(base=base, t=base.t(), col=base[:, 1])
    ember.save(sd, tmp_path / "sd.pt")
    for weights_only in (False, True):
        back = torch.load(tmp_path / "sd.pt", weights_only=weights_only)
        assert type(back) is collections.OrderedDict and list(back) == list(sd)
        for name, t in sd.items():
            assert str(back[name].dtype) == "torch." + str(t.dtype).split(".")[1]
            assert back[name].stride() == t.stride() and values(back[name]) == values(t)
        assert back["col"].storage().data_ptr() == back["base"].storage().data_ptr()
    # Floats, strings, Parameters, Size: torch.load reads them (1.13's weights_only has no
    # opcode for floats, for torch.save's files too).
    p = ember.nn.Parameter(ember.ones(2))
    ember.save({"p": p, "again": p, "lr": 0.25, "name": "x", "size": ember.Size([1, 2]),
                "dtype": ember.bfloat16}, tmp_path / "ck.pth")
    ck = torch.load(tmp_path / "ck.pth")
    assert isinstance(ck["p"], torch.nn.Parameter) and ck["again"] is ck["p"]
    assert (ck["lr"], ck["name"], ck["size"], ck["dtype"]) == \
        (0.25, "x", torch.Size([1, 2]), torch.bfloat16)


def test_format_follows_the_suffix_or_the_argument(tmp_path):
    t = {"w": ember.ones(2)}
    ember.save(t, tmp_path / "a.safetensors")
    ember.save(t, tmp_path / "b.pt")
    ember.save(t, tmp_path / "c.bin", format="pt")
    assert (tmp_path / "a.safetensors").read_bytes()[:4] != b"PK\x03\x04"
    for name in ("b.pt", "c.bin"):
        assert (tmp_path / name).read_bytes()[:4] == b"PK\x03\x04"
        assert torch.load(tmp_path / name)["w"].tolist() == [1.0, 1.0]
    buf = io.BytesIO()
    ember.save(t, buf, format="pt")
    assert torch.load(io.BytesIO(buf.getvalue()))["w"].tolist() == [1.0, 1.0]
    buf = io.BytesIO()
    torch.save({"x": torch.arange(3)}, buf)
    assert ember.load(io.BytesIO(buf.getvalue()))["x"].tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="format must be"):
        ember.save(t, tmp_path / "d.pt", format="zip")
    with pytest.raises(TypeError, match="cannot store an object of type object"):
        ember.save({"bad": object()}, tmp_path / "e.pt")


def test_map_location_as_pytorch(tmp_path, monkeypatch):
    # What a GPU box writes: a CPU-only PyTorch with the location tag of a CUDA tensor.
    monkeypatch.setattr(torch.serialization, "location_tag", lambda storage: "cuda:0")
    torch.save({"w": torch.arange(4.0)}, tmp_path / "gpu.pt")
    monkeypatch.undo()
    if not ember.cuda.is_available():
        with pytest.raises(RuntimeError, match="map_location"):
            ember.load(tmp_path / "gpu.pt")
    for where in ("cpu", ember.device("cpu"), {"cuda:0": "cpu"}, lambda t, loc: t):
        w = ember.load(tmp_path / "gpu.pt", map_location=where)["w"]
        assert w.device == ember.device("cpu") and w.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_module_loads_torch_weights_and_computes_the_same(tmp_path):
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    torch.save(tm.state_dict(), tmp_path / "m.pth")
    em = ember.nn.Sequential(ember.nn.Linear(4, 3), ember.nn.ReLU(), ember.nn.Linear(3, 2))
    em.load_state_dict(ember.load(tmp_path / "m.pth"))
    x = [[0.5, -1.0, 2.0, 0.25]]
    assert ember.allclose(em(ember.tensor(x)), ember.tensor(tm(torch.tensor(x)).tolist()))


def test_hostile_files_raise_and_run_nothing(tmp_path):
    marker = tmp_path / "PWNED"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    with zipfile.ZipFile(tmp_path / "evil.pt", "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps({"w": Evil()}, protocol=2))
    with pytest.raises(pickle.UnpicklingError, match="global posix.system"):
        ember.load(tmp_path / "evil.pt")
    with pytest.raises(pickle.UnpicklingError, match="global posix.system"):
        ember.load(io.BytesIO((tmp_path / "evil.pt").read_bytes()))
    assert not marker.exists()
    torch.save({"w": torch.ones(3)}, tmp_path / "ok.pt")
    (tmp_path / "cut.pt").write_bytes((tmp_path / "ok.pt").read_bytes()[:-40])
    with pytest.raises(RuntimeError, match="cut.pt"):
        ember.load(tmp_path / "cut.pt")
    torch.save({"w": torch.ones(3)}, tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    (tmp_path / "old_cut.pt").write_bytes((tmp_path / "old.pt").read_bytes()[:-4])
    with pytest.raises(pickle.UnpicklingError, match="old_cut.pt.*past the file's end"):
        ember.load(tmp_path / "old_cut.pt")


def test_legacy_format_loads(tmp_path):
    base = torch.arange(12.0).reshape(3, 4)
    sd = {"base": base, "t": base.t(), "mask": torch.tensor([True, False]),
          "h": torch.ones(2, dtype=torch.bfloat16), "epoch": 2}
    torch.save(sd, tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    back = ember.load(tmp_path / "old.pt")
    assert back["epoch"] == 2 and back["t"].stride() == (1, 4)
    for k in ("base", "t", "mask", "h"):
        assert values(back[k]) == values(sd[k]), k
    back["base"].fill_(0.0)
    assert back["t"].tolist()[0] == [0.0, 0.0, 0.0]


def test_training_moves_between_pytorch_and_ember_with_its_optimizer(tmp_path):
    torch.manual_seed(2)
    m = torch.nn.Linear(4, 3)
    opt = torch.optim.Adam(m.parameters(), lr=0.05, betas=(0.8, 0.95))
    x = torch.randn(5, 4)

    def step(model, optimizer, inp):
        optimizer.zero_grad()
        (model(inp) ** 2).mean().backward()
        optimizer.step()

    for _ in range(2):
        step(m, opt, x)
    torch.save({"model": m.state_dict(), "optimizer": opt.state_dict(), "x": x},
               tmp_path / "ck.pt")
    step(m, opt, x)  # PyTorch's third step
    ck = ember.load(tmp_path / "ck.pt")
    em = ember.nn.Linear(4, 3)
    em.load_state_dict(ck["model"])
    eo = ember.optim.Adam(em.parameters(), lr=1.0)
    eo.load_state_dict(ck["optimizer"])
    step(em, eo, ck["x"])  # Ember's third step, from PyTorch's checkpoint
    assert eo.param_groups[0]["lr"] == 0.05
    assert ember.allclose(em.weight, ember.tensor(m.weight.tolist()), atol=1e-6)
    # And back: PyTorch resumes from Ember's checkpoint.
    ember.save({"model": em.state_dict(), "optimizer": eo.state_dict()}, tmp_path / "back.pt")
    back = torch.load(tmp_path / "back.pt")
    opt2 = torch.optim.Adam(m.parameters(), lr=1.0)
    opt2.load_state_dict(back["optimizer"])
    assert opt2.param_groups[0]["betas"] == (0.8, 0.95)
    assert torch.equal(back["model"]["weight"], torch.tensor(em.weight.tolist()))
