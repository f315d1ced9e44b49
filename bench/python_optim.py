"""Optimizer step time from Python: ember.optim vs torch.optim (1.13, foreach=True) in the same
run, for a model of 100 parameter tensors.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_optim.py [--threads N] [--size N]

The parameters are 50 weights [size, size] and 50 biases [size] (size 128 by default: 0.83 M
float32 elements), each with a fixed gradient; the timed call is optimizer.step() alone (best of
several repeats of a timed loop). Prints microseconds per step and ember / PyTorch (issue 36's
target: <= 0.8 of PyTorch's foreach step). One CPU thread each unless --threads says otherwise."""
import argparse
import os
import sys
import timeit

if __name__ == "__main__":
    threads = "1"
    for i, a in enumerate(sys.argv):
        if a.startswith("--threads"):
            threads = a.split("=", 1)[1] if "=" in a else sys.argv[i + 1]
    os.environ.setdefault("OMP_NUM_THREADS", threads)

import ember  # noqa: E402
import torch  # noqa: E402

# (name, keyword arguments): PyTorch's defaults plus the common options.
CASES = [
    ("SGD", dict(lr=0.01, momentum=0.9)),
    ("Adam", dict(lr=1e-3)),
    ("AdamW", dict(lr=1e-3)),
    ("RMSprop", dict(lr=1e-3)),
    ("Adagrad", dict(lr=1e-2)),
    ("Adadelta", dict()),
    ("Adamax", dict()),
    ("NAdam", dict()),
    ("RAdam", dict()),
    ("ASGD", dict()),
    ("Rprop", dict()),
]


def parameters(lib, size):
    params = []
    for i in range(50):
        params.append(lib.full((size, size), 0.01 * i).requires_grad_(True))
        params.append(lib.full((size,), -0.01 * i).requires_grad_(True))
    for i, p in enumerate(params):
        p.grad = lib.linspace(-1, 1, p.numel()).reshape(p.shape) * (1 + i % 7)
    return params


def best_time(fn, number):
    fn()  # creates the state
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--number", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"optimizer step, 100 tensors ({args.size}x{args.size} weights + biases), "
          f"{args.threads} thread(s); PyTorch {torch.__version__} with foreach=True")
    print(f"{'optimizer':<10} {'ember us':>10} {'torch us':>10} {'ratio':>7}")
    for name, kw in CASES:
        e_opt = getattr(ember.optim, name)(parameters(ember, args.size), **kw)
        t_opt = getattr(torch.optim, name)(parameters(torch, args.size), foreach=True, **kw)
        e = best_time(e_opt.step, args.number)
        t = best_time(t_opt.step, args.number)
        print(f"{name:<10} {e * 1e6:10.0f} {t * 1e6:10.0f} {e / t:7.2f}")


if __name__ == "__main__":
    main()
