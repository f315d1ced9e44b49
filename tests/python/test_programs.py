"""Each programs/*.py is a PyTorch program. It runs under PyTorch, and again with every word
`torch` replaced by `ember` against the built package; both print the same text, once PyTorch's
output has had the same rename (torch.Size -> ember.Size).

When ember has CUDA devices (the SIM build: two simulated devices) and PyTorch has none, the
programs take their `cuda` branch under ember only; the device text of both outputs is then
normalised (docs/python.md): `device='cuda:N'` suffixes are dropped and the words cuda/cuda:N
read as cpu. Every number, shape and dtype is still compared exactly."""
import functools
import os
import pathlib
import re
import subprocess
import sys

import pytest
import torch

from conftest import PACKAGE_PATH

PROGRAMS = sorted((pathlib.Path(__file__).parent / "programs").glob("*.py"))


def run(source, name, extra_path=None):
    env = dict(os.environ)
    if extra_path:
        env["PYTHONPATH"] = extra_path + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, f"{name} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def rename(text):
    return re.sub(r"\btorch\b", "ember", text)


def without_device_text(text):
    text = re.sub(r",\s*device='cuda:\d+'", "", text)
    text = re.sub(r"device\(type='cuda', index=\d+\)", "device(type='cpu')", text)
    return re.sub(r"\bcuda(:\d+)?\b", "cpu", text)


@functools.lru_cache(maxsize=None)
def ember_has_cuda():
    out = run("import ember; print(ember.cuda.is_available())", "probe", PACKAGE_PATH)
    return out.strip() == "True"


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_program_prints_what_pytorch_prints(program):
    source = program.read_text()
    assert re.search(r"\btorch\b", source), f"{program.name} does not use torch"
    expected = rename(run(source, f"{program.name} under PyTorch"))
    actual = run(rename(source), f"{program.name} under ember", PACKAGE_PATH)
    if ember_has_cuda() and not torch.cuda.is_available():
        if "torch.cuda.is_available()" in source:
            assert "cuda" in actual, f"{program.name} did not take the cuda branch"
        expected, actual = without_device_text(expected), without_device_text(actual)
    assert actual == expected
