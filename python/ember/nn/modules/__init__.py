"""The layers of ember.nn, one file per family."""
from .module import Module  # noqa: F401
from .linear import Identity, Linear  # noqa: F401
from .conv import Conv2d  # noqa: F401
from .pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d  # noqa: F401
from .activation import (ReLU, LeakyReLU, ELU, Sigmoid, Tanh, SiLU, GELU, Softplus,  # noqa: F401
                         Softmax, LogSoftmax)
from .dropout import Dropout  # noqa: F401
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm  # noqa: F401
from .sparse import Embedding  # noqa: F401
from .flatten import Flatten  # noqa: F401
from .container import Sequential, ModuleList, ModuleDict  # noqa: F401
from .loss import (MSELoss, L1Loss, SmoothL1Loss, KLDivLoss, NLLLoss,  # noqa: F401
                   CrossEntropyLoss, BCELoss, BCEWithLogitsLoss)
