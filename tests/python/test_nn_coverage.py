"""The module coverage table of docs/nn.md cannot drift: it must list exactly the modules of
libtorch 1.13's C++ frontend (its installed headers) that Ember's C++ lacks, and exactly the
names of PyTorch's torch.nn.modules.__all__ that ember.nn lacks. Adding a module fails here until
its line leaves the table; a name that goes missing fails until it is listed with its status."""
import pathlib
import re

import torch

import ember

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIBTORCH_MODULES = pathlib.Path("/usr/include/torch/csrc/api/include/torch/nn/modules")
DOC = ROOT / "docs" / "nn.md"

# Ember's holder macros: EMBER_MODULE(Name) and the family macros whose first argument is the name.
EMBER_HOLDER = re.compile(r"\bEMBER_(?:MODULE|PAD_MODULE|CONSTANT_PAD_MODULE|DROPOUT_VARIANT|"
                          r"ACTIVATION_WITH_OPTIONS|ACTIVATION|LOSS_MODULE)\((\w+)|"
                          r"class (?:EMBER_API )?(\w+)\s*:\s*public (?:\w+::)*ModuleHolder<")
# libtorch's: TORCH_MODULE(Name), and holders written out (Embedding, EmbeddingBag).
TORCH_HOLDER = re.compile(r"TORCH_MODULE\((\w+)\)|class (?:TORCH_API )?(\w+)\s*:\s*public "
                          r"torch::nn::ModuleHolder<")


def libtorch_modules():
    names = set()
    for header in LIBTORCH_MODULES.rglob("*.h"):
        for a, b in TORCH_HOLDER.findall(header.read_text()):
            names.add(a or b)
    names.discard("M")  # TORCH_MODULE(M) in a documentation comment
    assert len(names) > 100, f"libtorch's module headers were not read from {LIBTORCH_MODULES}"
    return names


def ember_cpp_modules():
    names = set()
    for header in (ROOT / "include" / "ember" / "nn").rglob("*.h"):
        for a, b in EMBER_HOLDER.findall(header.read_text()):
            names.add(a or b)
    return names


def table(heading):
    """The names listed under `### heading` in docs/nn.md (first column of its table)."""
    text = DOC.read_text()
    start = text.index(f"### {heading}")
    end = text.find("\n#", start + 1)
    section = text[start:end if end != -1 else len(text)]
    return {m for m in re.findall(r"^\| `(\w+)` \|", section, re.M)}


def test_cpp_table_lists_exactly_the_missing_libtorch_modules():
    missing = libtorch_modules() - ember_cpp_modules()
    listed = table("C++ modules of libtorch 1.13 not yet in Ember")
    assert sorted(missing - listed) == [], "missing from Ember and not listed in docs/nn.md"
    assert sorted(listed - missing) == [], "listed in docs/nn.md but Ember has them"


def test_python_table_lists_exactly_the_missing_torch_nn_modules():
    missing = {n for n in torch.nn.modules.__all__ if not hasattr(ember.nn, n)}
    listed = table("Python modules of PyTorch 1.13 not yet in ember.nn")
    assert sorted(missing - listed) == [], "missing from ember.nn and not listed in docs/nn.md"
    assert sorted(listed - missing) == [], "listed in docs/nn.md but ember.nn has them"


# Public names of torch.nn.functional that are not functions of the API: typing re-exports and
# PyTorch's own __torch_function__ and argument-parsing helpers.
NOT_FUNCTIONAL_OPS = {"Callable", "DType", "List", "Optional", "Tensor", "Tuple", "Union",
                      "assert_int_or_pair", "boolean_dispatch", "handle_torch_function",
                      "has_torch_function", "has_torch_function_unary",
                      "has_torch_function_variadic"}


def torch_functional_names():
    import inspect
    names = {n for n in dir(torch.nn.functional) if not n.startswith("_") and
             callable(getattr(torch.nn.functional, n)) and
             not inspect.ismodule(getattr(torch.nn.functional, n))}
    assert len(names) > 100, "torch.nn.functional was not read"
    return names - NOT_FUNCTIONAL_OPS


def test_functional_table_lists_exactly_the_missing_torch_functions():
    import ember.nn.functional as F
    missing = {n for n in torch_functional_names() if not hasattr(F, n)}
    listed = table("Functions of torch.nn.functional not yet in ember.nn.functional")
    assert sorted(missing - listed) == [], ("missing from ember.nn.functional and not listed in "
                                            "docs/nn.md")
    assert sorted(listed - missing) == [], "listed in docs/nn.md but ember.nn.functional has them"
