"""The Python suite's set-up: where the built package is (EMBER_PYTHON_PATH, set by CTest; or
build/python), and `ember` imported from there."""
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE_PATH = os.environ.get("EMBER_PYTHON_PATH", str(ROOT / "build" / "python"))
if PACKAGE_PATH not in sys.path:
    sys.path.insert(0, PACKAGE_PATH)
