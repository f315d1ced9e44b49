"""The ops of the Python package have rows in the op table of the C++ tests.

tests/ops/python_ops.txt lists the ops of dir(ember); every other public function of the package
is named in NOT_OPS below (factories, settings, I/O), so that a newly bound op fails here until it
is listed. Each listed op must have a row in the op table (tests/ops/op_info.h): a row named as
the op or `<op>_<variant>` among the rows test_op_devices lists, or an exemption of
tests/ops/test_op_coverage.cpp (which checks the same list from C++)."""
import inspect
import os
import pathlib
import subprocess

import pytest

import ember

ROOT = pathlib.Path(__file__).resolve().parents[2]
OPS_FILE = ROOT / "tests" / "ops" / "python_ops.txt"

# Public functions of dir(ember) that are not ops over tensors.
NOT_OPS = {
    # factories and conversions
    "arange", "as_tensor", "empty", "empty_like", "eye", "from_dlpack", "from_numpy", "full",
    "full_like", "linspace", "ones", "ones_like", "rand", "rand_like", "randint", "randn",
    "randn_like", "randperm", "tensor", "tril_indices", "triu_indices", "zeros", "zeros_like",
    # comparisons to a Python bool, queries
    "allclose", "equal", "is_floating_point", "is_tensor", "numel",
    # settings and state
    "clear_autocast_cache", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype",
    "get_default_dtype", "is_autocast_cache_enabled", "is_autocast_cpu_enabled",
    "is_autocast_enabled", "is_grad_enabled", "is_inference_mode_enabled", "manual_seed",
    "initial_seed", "get_rng_state", "set_rng_state", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
    "set_autocast_cache_enabled", "set_autocast_cpu_dtype", "set_autocast_cpu_enabled",
    "set_num_threads", "get_num_threads",
    "set_autocast_enabled", "set_autocast_gpu_dtype", "set_default_dtype",
    # I/O
    "load", "save",
    # random draws, no value to compare (tests/core/test_multinomial.cpp, test_bindings.py,
    # tests/core/test_random_sampling.cpp, test_reductions_over_dims_and_sampling.py)
    "multinomial", "bernoulli", "normal",
}

# Python spellings whose rows are under another name (as kExempt of test_op_coverage.cpp).
ALIASES = {"clip": "clamp", "clamp_min": "clamp", "clamp_max": "clamp", "multiply": "mul",
           "divide": "div", "subtract": "sub", "true_divide": "div", "negative": "neg",
           "absolute": "abs", "greater": "gt", "greater_equal": "ge", "less": "lt",
           "less_equal": "le", "not_equal": "ne", "arctan2": "atan2", "positive": "neg",
           "fix": "trunc", "arcsin": "asin", "arccos": "acos",
           "arctan": "atan", "det": "linalg_det", "slogdet": "linalg_slogdet",
           "inverse": "linalg_inv", "cholesky": "linalg_cholesky"}


def listed_ops():
    lines = OPS_FILE.read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def package_functions():
    out = set()
    for name in dir(ember):
        if name.startswith("_"):
            continue
        value = getattr(ember, name)
        if callable(value) and not inspect.isclass(value) and not inspect.ismodule(value):
            out.add(name)
    return out


def test_the_list_is_the_packages_ops():
    listed = set(listed_ops())
    functions = package_functions()
    assert len(listed) == len(listed_ops()), "python_ops.txt names an op twice"
    unlisted = sorted(functions - listed - NOT_OPS)
    assert not unlisted, f"ops of dir(ember) missing from tests/ops/python_ops.txt: {unlisted}"
    gone = sorted(listed - functions)
    assert not gone, f"tests/ops/python_ops.txt names what dir(ember) lacks: {gone}"
    both = sorted(listed & NOT_OPS)
    assert not both, f"listed as ops and as not ops: {both}"


def row_names():
    # The package lives in <build>/python; the sweeps in <build>/tests.
    package = pathlib.Path(os.environ.get("EMBER_PYTHON_PATH", ROOT / "build" / "python"))
    binary = package.parent / "tests" / "test_op_devices"
    if not binary.exists():
        pytest.skip(f"{binary} is not built (the op table's rows are listed by it)")
    listing = subprocess.run([str(binary), "--gtest_list_tests", "--gtest_filter=*OpDevices.Cpu/*"],
                             check=True, capture_output=True, text=True).stdout
    return {line.split()[0].split("/", 1)[1] for line in listing.splitlines()
            if line.startswith("  ")}


def test_every_op_has_a_row():
    rows = row_names()
    assert len(rows) > 100, "test_op_devices listed no rows"
    missing = []
    for op in listed_ops():
        name = ALIASES.get(op, op)
        if not any(row == name or row.startswith(name + "_") for row in rows):
            missing.append(op)
    assert not missing, f"ops with no row in the op table (tests/ops/op_info.h): {missing}"
