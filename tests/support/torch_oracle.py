#!/usr/bin/python3
"""PyTorch oracle server for the Ember tests (see tests/support/torch_oracle.h).

Protocol, one JSON object per line in each direction:
  startup  -> {"ready": true, "torch": "<version>"} or {"ready": false, "error": "..."}
  request  <- {"code": str, "inputs": {name: TENSOR}, "outputs": [name, ...]}
  response -> {"ok": true, "outputs": {name: TENSOR}} or {"ok": false, "error": traceback}
  TENSOR   =  {"dtype": "float32", "shape": [..], "requires_grad": bool, "data": base64 bytes}
The raw bytes are little-endian and row-major (contiguous).
"""
import base64
import json
import math
import os
import sys
import traceback

# The protocol owns the original stdout; anything the test code prints goes to stderr.
_proto_out = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr


def _send(obj):
    _proto_out.write(json.dumps(obj, separators=(",", ":")) + "\n")
    _proto_out.flush()


try:
    import torch
    import torch.nn.functional as F
except Exception as e:  # noqa: BLE001 - report any import failure to the C++ side
    _send({"ready": False, "error": "%s: %s" % (type(e).__name__, e)})
    sys.exit(0)

torch.set_num_threads(1)  # the C++ side of the test owns the (few) cores

# A CPU without AVX-512 (or oneDNN capped below it, ONEDNN_MAX_CPU_ISA=AVX2, as CI's capped runs
# do): PyTorch picks its bfloat16 convolution and matmul kernels by the CPU's own flags
# (mkldnn_bf16_device_check reads cpuinfo, not oneDNN's cap), so under a cap it would ask oneDNN
# for bfloat16 kernels that the cap removed ("could not create a primitive descriptor"). Off
# oneDNN it takes the path it takes on a real AVX2 machine (slow_conv2d, its own GEMM).
_isa_cap = os.environ.get("ONEDNN_MAX_CPU_ISA", "").lower()
if _isa_cap and _isa_cap != "all" and "avx512" not in _isa_cap and "amx" not in _isa_cap:
    torch.backends.mkldnn.enabled = False

_DTYPES = {
    "float32": torch.float32,
    "float64": torch.float64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int64": torch.int64,
    "int32": torch.int32,
    "int16": torch.int16,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "bool": torch.bool,
}
_NAMES = {v: k for k, v in _DTYPES.items()}
# 16-bit floats go through numpy as int16, which numpy can represent.
_BITS = {torch.float16: torch.int16, torch.bfloat16: torch.int16}


def _decode(spec):
    dtype = _DTYPES[spec["dtype"]]
    shape = spec["shape"]
    raw = bytearray(base64.b64decode(spec["data"]))
    storage = _BITS.get(dtype, dtype)
    if len(raw) == 0:
        t = torch.empty(shape, dtype=dtype)
    else:
        t = torch.frombuffer(raw, dtype=storage).view(dtype).reshape(shape).clone()
    if spec.get("requires_grad", False):
        t.requires_grad_(True)
    return t


def _encode(name, value):
    if isinstance(value, torch.dtype):
        # A dtype travels as a 0-dim tensor of that dtype (value 0), e.g. torch.result_type.
        value = torch.zeros((), dtype=value)
    elif isinstance(value, bool):
        value = torch.tensor(value, dtype=torch.bool)
    elif isinstance(value, int):
        value = torch.tensor(value, dtype=torch.int64)
    elif isinstance(value, float):
        value = torch.tensor(value, dtype=torch.float64)
    if not isinstance(value, torch.Tensor):
        raise TypeError("output '%s' is a %s; the oracle returns tensors, dtypes, bools, ints "
                        "and floats" % (name, type(value).__name__))
    if value.dtype not in _NAMES:
        raise TypeError("output '%s' has dtype %s, which Ember does not have" % (name, value.dtype))
    t = value.detach().cpu().contiguous()
    flat = t.reshape(-1).view(_BITS.get(t.dtype, t.dtype))
    return {
        "dtype": _NAMES[t.dtype],
        "shape": list(t.shape),
        "requires_grad": bool(value.requires_grad),
        "data": base64.b64encode(flat.numpy().tobytes()).decode("ascii"),
    }


def _serve(request):
    scope = {"torch": torch, "F": F, "math": math}
    for name, spec in request.get("inputs", {}).items():
        scope[name] = _decode(spec)
    exec(compile(request["code"], "<oracle code>", "exec"), scope)  # noqa: S102 - test oracle
    out = {}
    for name in request.get("outputs", []):
        if name not in scope:
            raise NameError("the code did not define output '%s'" % name)
        out[name] = _encode(name, scope[name])
    return out


def main():
    _send({"ready": True, "torch": torch.__version__})
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            _send({"ok": True, "outputs": _serve(json.loads(line))})
        except Exception:  # noqa: BLE001 - every failure goes back as a traceback
            _send({"ok": False, "error": traceback.format_exc()})


if __name__ == "__main__":
    main()
