"""The layers of ember.nn, one file per family."""
from .module import Module  # noqa: F401
from .linear import Identity, Linear, Bilinear  # noqa: F401
from .fold import Fold, Unfold  # noqa: F401
from .conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,  # noqa: F401
                   ConvTranspose3d)
from .pooling import (MaxPool1d, MaxPool2d, MaxPool3d, AvgPool1d, AvgPool2d,  # noqa: F401
                      AvgPool3d, AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d,
                      AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d, MaxUnpool1d,
                      MaxUnpool2d, MaxUnpool3d, LPPool1d, LPPool2d,
                      FractionalMaxPool2d, FractionalMaxPool3d)
from .activation import (ReLU, LeakyReLU, ELU, Sigmoid, Tanh, SiLU, GELU, Softplus,  # noqa: F401
                         Softmax, LogSoftmax, Softmin, ReLU6, SELU, CELU, Mish, Hardswish,
                         Hardsigmoid, Threshold, Hardshrink, Softshrink, GLU, PReLU, Softsign,
                         Tanhshrink, LogSigmoid, Hardtanh, MultiheadAttention, RReLU, Softmax2d)
from .dropout import (Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout,  # noqa: F401
                      FeatureAlphaDropout)
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d,  # noqa: F401
                            InstanceNorm2d, InstanceNorm3d, LayerNorm, GroupNorm,
                            LocalResponseNorm, CrossMapLRN2d)
from .sparse import Embedding, EmbeddingBag  # noqa: F401
from .flatten import Flatten, Unflatten  # noqa: F401
from .padding import (ReflectionPad1d, ReflectionPad2d, ReflectionPad3d,  # noqa: F401
                      ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, ConstantPad1d,
                      ConstantPad2d, ConstantPad3d, ZeroPad2d)
from .pixelshuffle import PixelShuffle, PixelUnshuffle, ChannelShuffle  # noqa: F401
from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d  # noqa: F401
from .container import (Sequential, ModuleList, ModuleDict, ParameterList,  # noqa: F401
                        ParameterDict)
from .loss import (MSELoss, L1Loss, SmoothL1Loss, KLDivLoss, NLLLoss,  # noqa: F401
                   CrossEntropyLoss, BCELoss, BCEWithLogitsLoss, HuberLoss, NLLLoss2d,
                   SoftMarginLoss,
                   MultiLabelSoftMarginLoss, MultiLabelMarginLoss, HingeEmbeddingLoss,
                   MultiMarginLoss, PoissonNLLLoss, GaussianNLLLoss, MarginRankingLoss,
                   CosineEmbeddingLoss, TripletMarginLoss, CTCLoss,
                   TripletMarginWithDistanceLoss)
from .distance import PairwiseDistance, CosineSimilarity  # noqa: F401
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell  # noqa: F401
from .transformer import (Transformer, TransformerEncoder, TransformerDecoder,  # noqa: F401
                          TransformerEncoderLayer, TransformerDecoderLayer)
from .lazy import (LazyLinear, LazyConv1d, LazyConv2d, LazyConv3d,  # noqa: F401
                   LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d,
                   LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyInstanceNorm1d,
                   LazyInstanceNorm2d, LazyInstanceNorm3d)
from .sync_batchnorm import SyncBatchNorm  # noqa: F401
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401
