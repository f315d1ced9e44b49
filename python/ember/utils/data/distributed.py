"""DistributedSampler: each rank's shard of a dataset, all shards equally long (PyTorch's
arithmetic: padded by wrapping around, or the tail dropped with drop_last; rank r takes positions
r, r + R, ...). The indices come from the C++ ember::data::DistributedSampler, so a Python and a
C++ program shard alike. Without shuffle the shards equal PyTorch's. With shuffle every rank draws
the same permutation for an epoch, seeded by seed and the epoch of set_epoch; it is ember's
permutation (the C++ DataLoader's), not torch.randperm's, as ember's random streams differ from
PyTorch's by design."""
import math

from ... import _C
from .sampler import Sampler


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            from ... import distributed as dist
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(self.dataset)
        if self.drop_last and n % self.num_replicas != 0:
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        return iter(_C._distributed._sampler_indices(
            len(self.dataset), self.num_replicas, self.rank, bool(self.shuffle), int(self.seed),
            int(self.epoch), bool(self.drop_last)))

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        self.epoch = epoch
