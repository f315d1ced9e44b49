"""ember.cuda against torch.cuda's list of 1.13: every public name is in ember.cuda or in the
not-planned table of docs/python.md; the memory, capability and seeding calls behave as
PyTorch's (on the SIM build with simulated devices; elsewhere they refuse as CUDA calls do)."""
import pathlib
import re
import warnings

import pytest
import torch

import ember

ROOT = pathlib.Path(__file__).resolve().parents[2]


def not_planned():
    text = (ROOT / "docs" / "python.md").read_text()
    section = text.split("### torch.cuda names not in ember.cuda", 1)[1].split("\n#", 1)[0]
    return set(re.findall(r"`([A-Za-z0-9_]+)`", section))


def test_every_torch_cuda_name_is_here_or_listed():
    import types
    typing_names = {"Any", "Dict", "List", "Optional", "Set", "Tuple", "Union"}
    names = {n for n in dir(torch.cuda) if not n.startswith("_") and n not in typing_names
             and not isinstance(getattr(torch.cuda, n), types.ModuleType)}
    listed = not_planned()
    missing = sorted(n for n in names if not hasattr(ember.cuda, n) and n not in listed)
    assert missing == []
    stale = sorted(n for n in listed if hasattr(ember.cuda, n))
    assert stale == [], "listed as missing but present"


def test_deprecated_cached_names_warn_as_torch():
    for name in ("memory_cached", "max_memory_cached", "reset_max_memory_allocated",
                 "reset_max_memory_cached"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                getattr(ember.cuda, name)()
            except RuntimeError as e:
                assert "CUDA is not available" in str(e) and not ember.cuda.is_available()
        assert caught and caught[0].category is FutureWarning
        assert "torch.cuda." + name in str(caught[0].message)


def test_per_process_fraction_checks_its_argument_as_torch():
    with pytest.raises(TypeError, match="Invalid type for fraction argument, must be `float`"):
        ember.cuda.set_per_process_memory_fraction(1)
    with pytest.raises(ValueError, match="Invalid fraction value: 1.5. Allowed range: 0~1"):
        ember.cuda.set_per_process_memory_fraction(1.5)


def test_device_queries():
    if not ember.cuda.is_available():
        assert ember.cuda.is_initialized() is torch.cuda.is_initialized() is False
        assert ember.cuda.is_bf16_supported() is False
        assert ember.cuda.memory_stats() == torch.cuda.memory_stats() == {}
        for call in (ember.cuda.init, ember.cuda.get_device_capability, ember.cuda.seed,
                     ember.cuda.mem_get_info):
            with pytest.raises(RuntimeError, match="CUDA is not available"):
                call()
        return
    assert ember.cuda.is_initialized()
    props = ember.cuda.get_device_properties(0)
    assert ember.cuda.get_device_capability(0) == (props.major, props.minor)
    assert ember.cuda.is_bf16_supported() == (props.major >= 8)
    x = ember.zeros(1024, device="cuda")
    stats = ember.cuda.memory_stats()
    assert list(stats) == sorted(stats)
    assert stats["allocated_bytes.all.current"] == ember.cuda.memory_allocated()
    nested = ember.cuda.memory_stats_as_nested_dict()
    assert nested["allocated_bytes"]["all"]["current"] == ember.cuda.memory_allocated()
    free, total = ember.cuda.mem_get_info()
    assert 0 < free <= total == props.total_memory
    ember.cuda.seed()
    a = ember.cuda.initial_seed()
    ember.cuda.seed_all()
    assert ember.cuda.initial_seed() != a
    del x
