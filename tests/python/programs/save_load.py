# Checkpointing a state-dict-like dict with torch.save / torch.load through a temporary file.
import collections
import os
import tempfile

import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("Using", device.type, "device")
state = collections.OrderedDict()
state["layer.weight"] = torch.arange(6, dtype=torch.float32, device=device).reshape(2, 3) / 4
state["layer.bias"] = torch.tensor([0.5, -1.5], device=device)
state["steps"] = torch.tensor(12)
checkpoint = {"model": state, "epoch": 3, "loss": 0.125, "tag": "run-1",
              "history": [1.5, 0.75, 0.25], "shape": (2, 3)}

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "checkpoint.pt")
    torch.save(checkpoint, path)
    loaded = torch.load(path, map_location="cpu")
    print(type(loaded).__name__, sorted(loaded.keys()))
    print(type(loaded["model"]).__name__, list(loaded["model"].keys()))
    for name, tensor in loaded["model"].items():
        print(name, tensor, tensor.dtype, tensor.device)
        print(torch.equal(tensor, state[name].cpu()))
    print(loaded["epoch"], loaded["loss"], loaded["tag"], loaded["history"], loaded["shape"])

    weights = torch.ones(3, requires_grad=True)
    torch.save(weights, path)
    back = torch.load(path)
    print(back, back.requires_grad)
    torch.save([state["layer.bias"], state["layer.bias"]], path)
    first, second = torch.load(path, map_location=torch.device("cpu"))
    print(first, first is second)
    try:
        torch.load(os.path.join(tmp, "missing.pt"))
    except FileNotFoundError as e:
        print("FileNotFoundError", e.errno)
