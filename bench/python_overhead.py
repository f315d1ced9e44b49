"""Per-call overhead of small ops from Python: ember vs PyTorch 1.13 in the same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py

Times each small op (100 floats, CPU) as the best of several repeats of a timed loop, and prints
microseconds per call and ember's time as a fraction of PyTorch's (issue 23's target: <= 0.5)."""
import argparse
import timeit

import ember
import torch


def cases(lib):
    a, b = lib.ones(100), lib.ones(100)
    x = lib.ones(100)
    # A Linear module's forward over 100 features at batch 1: the module call, the autograd
    # record and the product, with arithmetic small beside the overhead (bench/python_train.py
    # times the tutorial's Linear(784, 128), whose 401 KB weight read bounds it).
    linear, row = lib.nn.Linear(100, 100), lib.ones(1, 100)
    return {
        "a + b": lambda: a + b,
        "a.add_(b)": lambda: a.add_(b),
        "x.sum().item()": lambda: x.sum().item(),
        "zeros(100)": lambda: lib.zeros(100),
        "Linear(100) b=1": lambda: linear(row),
    }


def per_call_us(fn, number, repeat):
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20000, help="calls per timed loop")
    parser.add_argument("--repeat", type=int, default=7, help="timed loops; the best counts")
    args = parser.parse_args()
    torch.set_num_threads(1)
    e, t = cases(ember), cases(torch)
    print(f"{'op':<18}{'ember us':>10}{'torch us':>10}{'ratio':>8}")
    for name in e:
        eu = per_call_us(e[name], args.number, args.repeat)
        tu = per_call_us(t[name], args.number, args.repeat)
        print(f"{name:<18}{eu:>10.3f}{tu:>10.3f}{eu / tu:>8.2f}")


if __name__ == "__main__":
    main()
