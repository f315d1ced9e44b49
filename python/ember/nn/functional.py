"""ember.nn.functional: PyTorch's functional API over the C++ kernels (ember._C._nn) and the
tensor ops; argument names and defaults are PyTorch 1.13's."""
import warnings as _warnings

from .. import _C
from .._C import _nn

linear = _nn.linear
bilinear = _nn.bilinear
fold = _nn.fold
unfold = _nn.unfold
local_response_norm = _nn.local_response_norm
conv1d = _nn.conv1d
conv2d = _nn.conv2d
conv_transpose1d = _nn.conv_transpose1d
conv_transpose2d = _nn.conv_transpose2d


def conv_tbc(input, weight, bias, pad=0):
    """A 1-D convolution over time-major input [time, batch, channels] with a weight of
    [kernel, in_channels, out_channels] (PyTorch's conv_tbc), written as conv1d."""
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out = _nn.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad)
    return out.permute(2, 0, 1)
adaptive_avg_pool2d = _nn.adaptive_avg_pool2d
adaptive_avg_pool1d = _nn.adaptive_avg_pool1d
avg_pool1d = _nn.avg_pool1d


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return _nn.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode,
                          return_indices)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    return _nn.adaptive_max_pool1d(input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return _nn.adaptive_max_pool2d(input, output_size, return_indices)


conv3d = _nn.conv3d
conv_transpose3d = _nn.conv_transpose3d
adaptive_avg_pool3d = _nn.adaptive_avg_pool3d


def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _nn.adaptive_max_pool3d(input, output_size, return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return _nn.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode,
                          return_indices)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _nn.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                          divisor_override)


# PyTorch's *_with_indices names: the pools with return_indices on, whatever is passed.
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _nn.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _nn.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _nn.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _nn.adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _nn.adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _nn.adaptive_max_pool3d(input, output_size, True)


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """The spatial size max_unpool writes: (in - 1) * stride - 2 * padding + kernel_size per
    dim, or output_size (strictly within one stride of that), as PyTorch's."""
    dims = len(kernel_size)
    default = [(input.shape[input.dim() - dims + d] - 1) * stride[d] + kernel_size[d] -
               2 * padding[d] for d in range(dims)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == dims + 2:
        output_size = output_size[2:]
    if len(output_size) != dims:
        raise ValueError(f"output_size should be a sequence containing {dims} or {dims + 2} "
                         f"elements, but it has a length of '{len(output_size)}'")
    for d in range(dims):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f"{low} and {high})")
    return output_size


def _unpool(dims, input, indices, kernel_size, stride, padding, output_size):
    def expand(v):
        return tuple(v) if isinstance(v, (tuple, list)) else (v,) * dims
    kernel_size = expand(kernel_size)
    stride = expand(stride) if stride is not None else kernel_size
    size = _unpool_output_size(input, kernel_size, stride, expand(padding), output_size)
    return getattr(_nn, f"max_unpool{dims}d")(input, indices, size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool(3, input, indices, kernel_size, stride, padding, output_size)
layer_norm = _nn.layer_norm
group_norm = _nn.group_norm
instance_norm = _nn.instance_norm
one_hot = _nn.one_hot
pad = _nn.pad
interpolate = _nn.interpolate


_ALIGN_CORNERS_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples input [N, C, H, W] (or a volume) at the grid's [-1, 1] coordinates."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if mode == "bicubic":
        raise NotImplementedError("nn.functional.grid_sample(): mode='bicubic' is not supported "
                                  "by Ember (bilinear and nearest are)")
    if align_corners is None:
        _warnings.warn(_ALIGN_CORNERS_WARNING)
        align_corners = False
    return _nn.grid_sample(input, grid, mode, padding_mode, align_corners)


def affine_grid(theta, size, align_corners=None):
    """The [N, H, W, 2] (or [N, D, H, W, 3]) sampling grid of a batch of affine matrices."""
    if align_corners is None:
        _warnings.warn(_ALIGN_CORNERS_WARNING)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) in (4, 5):
        k = len(size) - 2
        if theta.dim() != 3 or theta.shape[-2] != k or theta.shape[-1] != k + 1:
            raise ValueError(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} "
                             f"for size {size}. Got {theta.shape}.")
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(size[2:]) == 1:
        _warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                       "grids when align_corners=True. This is not an intended use case of "
                       "affine_grid. See the documentation of affine_grid for details.")
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _nn.affine_grid(theta, size, align_corners)


# PyTorch's deprecated spellings of interpolate, with its warnings.
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    _warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    _warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate "
                   "instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    _warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate "
                   "instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
pixel_shuffle = _nn.pixel_shuffle
pixel_unshuffle = _nn.pixel_unshuffle
channel_shuffle = _nn.channel_shuffle
native_channel_shuffle = _nn.channel_shuffle
cosine_similarity = _nn.cosine_similarity
normalize = _nn.normalize


def _legacy_reduction(size_average, reduce, reduction):
    """The legacy size_average/reduce flags, when given, override reduction (as PyTorch)."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _checked_reduction(reduction):
    """PyTorch checks the reduction in Python, when the loss is computed: a ValueError."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduction(size_average, reduce, reduction):
    return _checked_reduction(_legacy_reduction(size_average, reduce, reduction))


def _check_batch_sizes(input, target):
    """Class-index losses: PyTorch raises ValueError when the batch sizes differ."""
    if input.dim() >= 2 and target.dim() >= 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")


def _implicit_dim(ndim):
    return 0 if ndim in (0, 1, 3) else 1


# ---- activations ----
def _maybe_inplace(input, out, inplace):
    return input.copy_(out) if inplace else out


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def relu_(input):
    return input.relu_()


def relu6(input, inplace=False):
    return _maybe_inplace(input, _nn.relu6(input), inplace)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    return _nn.rrelu(input, lower, upper, training, inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return _nn.rrelu(input, lower, upper, training, True)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    if eps != 1e-10:
        import warnings
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    return _nn.gumbel_softmax(logits, tau, hard, dim)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _nn.lp_pool1d(input, float(norm_type), kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _nn.lp_pool2d(input, float(norm_type), kernel_size, stride, ceil_mode)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _maybe_inplace(input, _nn.leaky_relu(input, negative_slope), inplace)


def elu(input, alpha=1.0, inplace=False):
    return _maybe_inplace(input, _nn.elu(input, alpha), inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _maybe_inplace(input, _nn.hardtanh(input, min_val, max_val), inplace)


def softplus(input, beta=1, threshold=20):
    return _nn.softplus(input, beta, threshold)


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate!r}")
    return _nn.gelu(input, approximate)


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def silu(input, inplace=False):
    return _maybe_inplace(input, input * input.sigmoid(), inplace)


def hardswish(input, inplace=False):
    return _maybe_inplace(input, _nn.hardswish(input), inplace)


def hardsigmoid(input, inplace=False):
    return _maybe_inplace(input, _nn.hardsigmoid(input), inplace)


def mish(input, inplace=False):
    return _maybe_inplace(input, _nn.mish(input), inplace)


def selu(input, inplace=False):
    return _maybe_inplace(input, _nn.selu(input), inplace)


def celu(input, alpha=1.0, inplace=False):
    return _maybe_inplace(input, _nn.celu(input, alpha), inplace)


def threshold(input, threshold, value, inplace=False):
    return _maybe_inplace(input, _nn.threshold(input, threshold, value), inplace)


# The in-place spellings PyTorch's functional module also has.
def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def selu_(input):
    return selu(input, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input, threshold, value):
    return globals()["threshold"](input, threshold, value, inplace=True)


softsign = _nn.softsign
tanhshrink = _nn.tanhshrink
logsigmoid = _nn.logsigmoid
hardshrink = _nn.hardshrink
softshrink = _nn.softshrink
glu = _nn.glu
prelu = _nn.prelu


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return _nn.softmax(-input, _implicit_dim(input.dim()) if dim is None else dim, dtype)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _nn.softmax(input, _implicit_dim(input.dim()) if dim is None else dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _nn.log_softmax(input, _implicit_dim(input.dim()) if dim is None else dim, dtype)


# ---- layers ----
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return _nn.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode,
                          return_indices)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _nn.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                          divisor_override)


def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    out = _nn.dropout(input, p, training)
    return input.copy_(out) if inplace and training else out


def _feature_dropout(input, p, training, inplace, unbatched_dims):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    unbatched = input.dim() == unbatched_dims
    out = _nn.feature_dropout(input.unsqueeze(0) if unbatched else input, p, training)
    out = out.squeeze(0) if unbatched else out
    return _maybe_inplace(input, out, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    if input.dim() not in (2, 3):
        raise RuntimeError("dropout1d: Expected 2D or 3D input, but received a "
                           f"{input.dim()}D input")
    return _feature_dropout(input, p, training, inplace, 2)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, -1)


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 4)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return _maybe_inplace(input, _nn.alpha_dropout(input, p, training), inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return _maybe_inplace(input, _nn.feature_alpha_dropout(input, p, training), inplace)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    return _nn.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    if padding_idx is not None and not -weight.size(0) <= padding_idx < weight.size(0):
        raise AssertionError("Padding_idx must be within num_embeddings")
    return _nn.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq,
                         sparse)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    # PyTorch's Python checks (ValueError, where the C++ function's raise RuntimeError).
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    return _nn.embedding_bag(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode,
                             sparse, per_sample_weights, include_last_offset, padding_idx)


# ---- losses ----
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    if not target.is_floating_point():
        _check_batch_sizes(input, target)
    return _nn.cross_entropy(input, target, weight, ignore_index,
                             _reduction(size_average, reduce, reduction), label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    _check_batch_sizes(input, target)
    return _nn.nll_loss(input, target, weight, ignore_index,
                        _reduction(size_average, reduce, reduction))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _nn.mse_loss(input, target, _reduction(size_average, reduce, reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _nn.l1_loss(input, target, _reduction(size_average, reduce, reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    return _nn.smooth_l1_loss(input, target, _reduction(size_average, reduce, reduction), beta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         "size.")
    return _nn.binary_cross_entropy(input, target, weight,
                                    _reduction(size_average, reduce, reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    return _nn.binary_cross_entropy_with_logits(
        input, target, weight, _reduction(size_average, reduce, reduction), pos_weight)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = _reduction(size_average, reduce, reduction)
    if reduction == "batchmean":
        total = _nn.kl_div(input, target, "sum", log_target)
        return total / input.size(0) if input.dim() else total
    return _nn.kl_div(input, target, reduction, log_target)




# ---- the margin, ranking, embedding and count losses ----
pairwise_distance = _nn.pairwise_distance


def pdist(input, p=2):
    """The p-norm distance between every pair of rows i < j of a 2-D input, in row-major pair
    order (PyTorch's pdist), gathered with index_select so it runs and differentiates on every
    device."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    if n < 2:
        return _C.empty(0, dtype=input.dtype, device=input.device)
    rows, cols = _C.triu_indices(n, n, 1, device=input.device)
    diff = input.index_select(0, rows) - input.index_select(0, cols)
    return diff.norm(p, dim=1)


def huber_loss(input, target, reduction="mean", delta=1.0):
    return _nn.huber_loss(input, target, _checked_reduction(reduction), delta)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _nn.soft_margin_loss(input, target, _reduction(size_average, reduce, reduction))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    return _nn.multilabel_soft_margin_loss(input, target, weight,
                                           _reduction(size_average, reduce, reduction))


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _nn.multilabel_margin_loss(input, target, _reduction(size_average, reduce, reduction))


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    return _nn.hinge_embedding_loss(input, target, margin,
                                    _reduction(size_average, reduce, reduction))


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    return _nn.multi_margin_loss(input, target, p, margin, weight,
                                 _reduction(size_average, reduce, reduction))


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    return _nn.poisson_nll_loss(input, target, log_input, full, eps,
                                _reduction(size_average, reduce, reduction))


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    return _nn.margin_ranking_loss(input1, input2, target, margin,
                                   _reduction(size_average, reduce, reduction))


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    return _nn.cosine_embedding_loss(input1, input2, target, margin,
                                     _reduction(size_average, reduce, reduction))


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    return _nn.triplet_margin_with_distance_loss(anchor, positive, negative, distance_function,
                                                 margin, swap, _checked_reduction(reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    return _nn.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                        _checked_reduction(reduction), zero_infinity)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    return _nn.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                   _reduction(size_average, reduce, reduction))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if var.shape != input.shape and not (
            tuple(input.shape[:-1]) == tuple(var.shape) or
            (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1)):
        raise ValueError("var is of incorrect size")
    if bool((var < 0).any()):  # PyTorch checks this on the host too
        raise ValueError("var has negative entry/entries")
    return _nn.gaussian_nll_loss(input, target, var, full, eps, _checked_reduction(reduction))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """PyTorch 2.x's F.scaled_dot_product_attention; the backend follows
    ember.nn.attention.sdpa_kernel, and ember.nn.attention.last_choice() says which one ran."""
    return _nn.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                            scale, enable_gqa=enable_gqa)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    # PyTorch 1.13's asserts, raised as AssertionError before the C++ call.
    if query.dim() == 3:
        assert key.dim() == 3 and value.dim() == 3, \
            ("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
             f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None:
            assert key_padding_mask.dim() == 2, \
                ("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            assert attn_mask.dim() in (2, 3), \
                ("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                 f" but found {attn_mask.dim()}-D tensor instead")
    elif query.dim() == 2:
        assert key.dim() == 2 and value.dim() == 2, \
            ("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
             f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None:
            assert key_padding_mask.dim() == 1, \
                ("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            assert attn_mask.dim() in (2, 3), \
                ("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                 f" but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected_shape = (num_heads, query.shape[0], key.shape[0])
                assert tuple(attn_mask.shape) == expected_shape, \
                    (f"Expected `attn_mask` shape to be {expected_shape} but got "
                     f"{attn_mask.shape}")
    else:
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True):
    """PyTorch 1.13's F.multi_head_attention_forward: (output, weights or None)."""
    _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if key_padding_mask is not None:
        if key_padding_mask.dtype != _C.bool and not key_padding_mask.is_floating_point():
            raise AssertionError("only bool and floating types of key_padding_mask are supported")
    embed_dim = query.shape[-1]
    assert embed_dim == embed_dim_to_check, \
        f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
    assert (embed_dim // num_heads) * num_heads == embed_dim, \
        f"embed_dim {embed_dim} not divisible by num_heads {num_heads}"
    return _nn.multi_head_attention_forward(
        query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k,
        bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training,
        key_padding_mask, need_weights, attn_mask, use_separate_proj_weight, q_proj_weight,
        k_proj_weight, v_proj_weight, static_k, static_v, average_attn_weights)


def _fractional(pool, n, input, kernel_size, output_size, output_ratio, return_indices,
                _random_samples):
    if output_size is None and output_ratio is None:
        raise ValueError(f"fractional_max_pool{n}d requires specifying either an output_size or "
                         "an output_ratio")
    out, indices = pool(input, kernel_size, output_size, output_ratio, _random_samples)
    return (out, indices) if return_indices else out


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max pooling over pseudo-random windows (Graham's fractional max pooling)."""
    return _fractional(_nn.fractional_max_pool2d, 2, input, kernel_size, output_size,
                       output_ratio, return_indices, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    return _fractional(_nn.fractional_max_pool3d, 3, input, kernel_size, output_size,
                       output_ratio, return_indices, _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)
