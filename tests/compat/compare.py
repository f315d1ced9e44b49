#!/usr/bin/env python3
"""Runs a compat program built against libtorch and the same program built against Ember (after
the rename), and compares what they print. The rule is the program's own, a comment line in its
source:
    // compat-compare: rtol=1e-5 atol=1e-6
        line by line: numbers within the tolerance, every other word exactly (the defaults when
        the line is absent: rtol=1e-5 atol=1e-6);
    // compat-compare: exact
        the text character for character, spaces and empty lines included, on stdout and on
        stderr (for programs that print tensors, modules, dtypes and devices with operator<<).
libtorch's output is compared after the documented rename (torch:: -> ember::), since that is what
the renamed program is expected to print: libtorch's `torch::nn::Linear(...)` is Ember's
`ember::nn::Linear(...)`. Exit 0 when the outputs agree, 1 with the first differences."""
import os
import re
import subprocess
import sys

def rule_of(source):
    rule = {"rtol": 1e-5, "atol": 1e-6, "exact": False}
    with open(source, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*//\s*compat-compare:(.*)", line)
            if not m:
                continue
            for word in m.group(1).split():
                key, _, value = word.partition("=")
                if key == "exact" and not value:
                    rule["exact"] = True
                elif key in ("rtol", "atol") and value:
                    rule[key] = float(value)
                else:
                    sys.exit(f"{source}: unknown compat-compare rule '{word}'")
    return rule

def run(exe, workdir):
    p = subprocess.run([exe], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=workdir)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        sys.exit(f"{exe} exited with status {p.returncode}")
    return p.stdout, p.stderr

def renamed(text):
    """libtorch's text as the renamed program prints it (tests/compat/rename.cmake's rule)."""
    return text.replace("torch::", "ember::")

def as_number(word):
    try:
        return float(word)
    except ValueError:
        return None

def words_agree(a, b, rtol, atol):
    x, y = as_number(a), as_number(b)
    if x is None or y is None:
        return a == b
    if x != x or y != y:  # NaN matches only NaN
        return x != x and y != y
    return abs(x - y) <= atol + rtol * abs(x)

def compare_numbers(expected, actual, rtol, atol):
    expected, actual = expected.splitlines(), actual.splitlines()
    problems = []
    if len(expected) != len(actual):
        problems.append(f"libtorch printed {len(expected)} lines, Ember {len(actual)}")
    for n, (e, a) in enumerate(zip(expected, actual), 1):
        ew, aw = e.split(), a.split()
        if len(ew) != len(aw) or not all(words_agree(x, y, rtol, atol) for x, y in zip(ew, aw)):
            problems.append(f"line {n}:\n  libtorch: {e[:400]}\n  Ember:    {a[:400]}")
    return problems, len(expected)

def compare_exact(stream, expected, actual):
    """Every character; lines are shown with repr() so that spaces and line ends are visible."""
    if expected == actual:
        return []
    expected, actual = expected.splitlines(True), actual.splitlines(True)
    problems = []
    if len(expected) != len(actual):
        problems.append(f"{stream}: libtorch printed {len(expected)} lines, Ember {len(actual)}")
    for n in range(max(len(expected), len(actual))):
        e = expected[n] if n < len(expected) else "(nothing)"
        a = actual[n] if n < len(actual) else "(nothing)"
        if e != a:
            problems.append(f"{stream} line {n + 1}:\n  libtorch: {e!r:.400}\n  Ember:    {a!r:.400}")
    return problems

def main():
    if len(sys.argv) != 5:
        sys.exit("usage: compare.py SOURCE TORCH_EXE EMBER_EXE WORKDIR")
    source, torch_exe, ember_exe, workdir = sys.argv[1:]
    rule = rule_of(source)
    os.makedirs(workdir, exist_ok=True)
    (expected, expected_err), (actual, actual_err) = run(torch_exe, workdir), run(ember_exe, workdir)
    expected, expected_err = renamed(expected), renamed(expected_err)
    if rule["exact"]:
        what = "exact text"
        problems = compare_exact("stdout", expected, actual)
        problems += compare_exact("stderr", expected_err, actual_err)
        count = len(expected.splitlines()) + len(expected_err.splitlines())
    else:
        what = f"rtol={rule['rtol']}, atol={rule['atol']}"
        problems, count = compare_numbers(expected, actual, rule["rtol"], rule["atol"])
    if problems:
        print(f"{source}: outputs differ ({what})")
        print("\n".join(problems[:10]))
        return 1
    print(f"{count} lines agree ({what})")
    return 0

if __name__ == "__main__":
    sys.exit(main())
