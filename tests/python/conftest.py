"""The Python suite's set-up: where the built package is (EMBER_PYTHON_PATH, set by CTest; or
build/python), and `ember` imported from there."""
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE_PATH = os.environ.get("EMBER_PYTHON_PATH", str(ROOT / "build" / "python"))
if PACKAGE_PATH not in sys.path:
    sys.path.insert(0, PACKAGE_PATH)

# Under CI's capped runs (ONEDNN_MAX_CPU_ISA below AVX-512) PyTorch still picks its oneDNN bfloat16
# kernels by the CPU's own flags, and oneDNN then has none ("could not create a primitive
# descriptor"); off oneDNN PyTorch takes the path of a real AVX2 machine, as the C++ oracle does
# (tests/support/torch_oracle.py).
_isa_cap = os.environ.get("ONEDNN_MAX_CPU_ISA", "").lower()
if _isa_cap and _isa_cap != "all" and "avx512" not in _isa_cap and "amx" not in _isa_cap:
    import torch

    torch.backends.mkldnn.enabled = False
