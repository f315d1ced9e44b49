#!/usr/bin/env python3
"""Runs a compat program built against libtorch and the same program built against Ember (after
the rename), and compares what they print line by line: numbers within a tolerance, every other
word exactly. The tolerance is the program's own rule, a comment line in its source:
    // compat-compare: rtol=1e-5 atol=1e-6
(defaults: rtol=1e-5 atol=1e-6). Exit 0 when the outputs agree, 1 with the first differences."""
import os
import re
import subprocess
import sys

def rule_of(source):
    rtol, atol = 1e-5, 1e-6
    with open(source, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*//\s*compat-compare:(.*)", line)
            if m:
                for key, value in re.findall(r"(\w+)=(\S+)", m.group(1)):
                    if key == "rtol":
                        rtol = float(value)
                    elif key == "atol":
                        atol = float(value)
                    else:
                        sys.exit(f"{source}: unknown compat-compare key '{key}'")
    return rtol, atol

def run(exe, workdir):
    p = subprocess.run([exe], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=workdir)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        sys.exit(f"{exe} exited with status {p.returncode}")
    return p.stdout.splitlines()

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

def main():
    if len(sys.argv) != 5:
        sys.exit("usage: compare.py SOURCE TORCH_EXE EMBER_EXE WORKDIR")
    source, torch_exe, ember_exe, workdir = sys.argv[1:]
    rtol, atol = rule_of(source)
    os.makedirs(workdir, exist_ok=True)
    expected, actual = run(torch_exe, workdir), run(ember_exe, workdir)
    problems = []
    if len(expected) != len(actual):
        problems.append(f"libtorch printed {len(expected)} lines, Ember {len(actual)}")
    for n, (e, a) in enumerate(zip(expected, actual), 1):
        ew, aw = e.split(), a.split()
        if len(ew) != len(aw) or not all(words_agree(x, y, rtol, atol) for x, y in zip(ew, aw)):
            problems.append(f"line {n}:\n  libtorch: {e[:400]}\n  Ember:    {a[:400]}")
    if problems:
        print(f"{source}: outputs differ (rtol={rtol}, atol={atol})")
        print("\n".join(problems[:10]))
        return 1
    print(f"{len(expected)} lines agree (rtol={rtol}, atol={atol})")
    return 0

if __name__ == "__main__":
    sys.exit(main())
