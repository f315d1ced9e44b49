"""EmbeddingBag forward + backward from Python: ember vs PyTorch 1.13 in the same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_embedding_bag.py [--device cuda]

A 100K x 64 float32 table, 2048 bags of 32 random indices (1-d input with offsets), for each
mode: the bag lookup and the dense weight gradient of the output's sum (autograd.grad, so no
gradient accumulates across calls). Prints milliseconds per call, best of several repeats, and
ember's time as a multiple of PyTorch's."""
import argparse
import timeit

import ember
import torch


def case(lib, mode, device):
    lib.manual_seed(0)
    weight = lib.randn(100000, 64, device=device).requires_grad_()
    indices = lib.randint(0, 100000, (2048 * 32,), device=device)
    offsets = lib.arange(0, 2048 * 32, 32, device=device)
    sync = lib.cuda.synchronize if device == "cuda" else (lambda: None)

    def step():
        out = lib.nn.functional.embedding_bag(indices, weight, offsets, mode=mode)
        (grad,) = lib.autograd.grad(out.sum(), [weight])
        sync()
        return grad

    return step


def best_ms(fn, number, repeat):
    fn()  # warm up
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--number", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'mode':6} {'ember ms':>9} {'torch ms':>9} {'ember / torch':>14}")
    for mode in ["sum", "mean", "max"]:
        e = best_ms(case(ember, mode, args.device), args.number, args.repeat)
        t = best_ms(case(torch, mode, args.device), args.number, args.repeat)
        print(f"{mode:6} {e:9.3f} {t:9.3f} {e / t:14.2f}")


if __name__ == "__main__":
    main()
