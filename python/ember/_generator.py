"""ember.Generator: a seedable source of the permutations and draws that ember.utils.data makes
(random_split, RandomSampler, DataLoader(shuffle=True)). Random streams differ from PyTorch's by
design, so it is a Python random.Random; without one, those draw their seed from ember's global
generator, so ember.manual_seed makes them reproducible."""
import random

from . import _C


class Generator:
    def __init__(self, device="cpu"):
        self.device = _C.device(device) if isinstance(device, str) else device
        self._seed = random.SystemRandom().getrandbits(63)
        self._random = random.Random(self._seed)

    def manual_seed(self, seed):
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"manual_seed expected an int, got {type(seed).__name__}")
        self._seed = seed
        self._random.seed(seed)
        return self

    def seed(self):
        self.manual_seed(random.SystemRandom().getrandbits(63))
        return self._seed

    def initial_seed(self):
        return self._seed

    def __repr__(self):
        return f"<ember.Generator object, seed={self._seed}>"


def _python_random(generator):
    """The random.Random to draw from: the generator's, or one seeded from ember's global RNG."""
    if generator is None:
        seed = int(_C.randint(0, 2**62, (1,)).item())
        return random.Random(seed)
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be an ember.Generator, got {type(generator).__name__}")
    return generator._random
