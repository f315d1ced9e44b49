"""A DataLoader epoch from Python: ember vs PyTorch 1.13 in the same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_data.py

One epoch over a TensorDataset of 60000x784 float32 images and int64 labels (Fashion-MNIST's
shape), batch 64, shuffled and in order, each batch's first element read; best of
--repeat epochs each. Prints seconds per epoch and ember's time as a fraction of PyTorch's
(issue 23's target: no slower, ratio <= 1)."""
import argparse
import time

import ember
import torch


def epoch_seconds(lib, shuffle, num_workers, repeat):
    images = lib.ones(60000, 784)
    labels = lib.arange(60000) % 10
    data = lib.utils.data
    loader = data.DataLoader(data.TensorDataset(images, labels), batch_size=64, shuffle=shuffle,
                             num_workers=num_workers)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        total = 0.0
        for x, y in loader:
            total += x[0, 0].item()
        best = min(best, time.perf_counter() - start)
        assert total == len(loader) == 938
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="epochs timed; the best counts")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"{'loader':<32}{'ember s':>9}{'torch s':>9}{'ratio':>8}")
    for shuffle, workers in ((False, 0), (True, 0), (False, 2)):
        name = f"shuffle={shuffle} num_workers={workers}"
        e = epoch_seconds(ember, shuffle, workers, args.repeat)
        t = epoch_seconds(torch, shuffle, workers, args.repeat)
        print(f"{name:<32}{e:>9.3f}{t:>9.3f}{e / t:>8.3f}")


if __name__ == "__main__":
    main()
