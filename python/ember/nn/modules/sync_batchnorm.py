"""SyncBatchNorm: batch normalization whose statistics are those of the whole batch across the
processes of a process group, as PyTorch 1.13's (and for the same reason: per-process batches
too small for stable statistics, in detection and segmentation training).

The forward all-reduces each channel's sum, sum of squares and count (one collective), so every
rank normalizes with the global mean and variance and updates its running statistics with the
same numbers; the backward all-reduces the channel sums of grad_output and grad_output * x_hat,
so grad_input is the gradient of the sum of every rank's loss. grad_weight and grad_bias stay
local, as in PyTorch: DistributedDataParallel averages them with the other gradients.

Unlike PyTorch 1.13, which refuses CPU tensors, it runs on every device Ember's process groups
serve (CPU tensors over the TCP backend, CUDA tensors over NCCL)."""
from ... import _C
from ..._function import Function
from ..._C import _nn
from .module import _C_no_grad
from .normalization import _BatchNorm


class _SyncBatchNormFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum,
                process_group, world_size):
        from ... import distributed as dist

        x = input.contiguous()
        channels = x.shape[1]
        dims = [0] + list(range(2, x.dim()))
        count = x.numel() // channels
        # One all_reduce of [sum, sum of squares, count] per channel, in float64 so that the
        # variance E[x^2] - E[x]^2 keeps its precision over large global batches.
        x64 = x.to(_C.float64)
        stats = _C.cat([x64.sum(dims), (x64 * x64).sum(dims),
                        _C.full((channels,), float(count), dtype=_C.float64, device=x.device)])
        dist.all_reduce(stats, group=process_group)
        total = stats[2 * channels:]
        mean = stats[:channels] / total
        var = (stats[channels:2 * channels] / total - mean * mean).clamp(min=0)
        n = float(total[0])
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {list(input.shape)}")
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean.to(running_mean.dtype) * momentum)
        if running_var is not None:
            unbiased = var * (n / (n - 1))
            running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype) * momentum)
        shape = [1, channels] + [1] * (x.dim() - 2)
        invstd = (var + eps).rsqrt().to(x.dtype).reshape(shape)
        x_hat = (x - mean.to(x.dtype).reshape(shape)) * invstd
        out = x_hat
        if weight is not None:
            out = out * weight.reshape(shape)
        if bias is not None:
            out = out + bias.reshape(shape)
        ctx.save_for_backward(x_hat, invstd, weight)
        ctx.process_group = process_group
        ctx.total = n
        ctx.has_bias = bias is not None
        return out

    @staticmethod
    def backward(ctx, grad_output):
        from ... import distributed as dist

        x_hat, invstd, weight = ctx.saved_tensors
        dy = grad_output.contiguous()
        channels = dy.shape[1]
        dims = [0] + list(range(2, dy.dim()))
        shape = [1, channels] + [1] * (dy.dim() - 2)
        sum_dy = dy.sum(dims)
        sum_dy_xhat = (dy * x_hat).sum(dims)
        grad_weight = sum_dy_xhat if weight is not None else None
        grad_bias = sum_dy if ctx.has_bias else None
        # The sums over the whole batch, for grad_input only.
        both = _C.cat([sum_dy, sum_dy_xhat])
        dist.all_reduce(both, group=ctx.process_group)
        mean_dy = (both[:channels] / ctx.total).reshape(shape)
        mean_dy_xhat = (both[channels:] / ctx.total).reshape(shape)
        scale = invstd if weight is None else invstd * weight.reshape(shape)
        grad_input = (dy - mean_dy - x_hat * mean_dy_xhat) * scale
        return grad_input, grad_weight, grad_bias, None, None, None, None, None, None


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over N-D inputs (N >= 2) with the statistics of the whole process group."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def forward(self, input):
        from ... import distributed as dist

        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                momentum = 1.0 / float(self.num_batches_tracked)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        running_mean = self.running_mean if track else None
        running_var = self.running_var if track else None
        need_sync = bn_training and self.training
        if need_sync:
            group = self.process_group if self.process_group else dist.group.WORLD
            world_size = dist.get_world_size(group)
            need_sync = world_size > 1
        if not need_sync:
            return _nn.batch_norm(input, running_mean, running_var, self.weight, self.bias,
                                  bn_training, momentum, self.eps)
        return _SyncBatchNormFunction.apply(input, self.weight, self.bias, running_mean,
                                            running_var, self.eps, momentum, group, world_size)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Returns `module` with every BatchNorm1d/2d/3d replaced by a SyncBatchNorm holding the
        same parameters, running statistics and mode (the module itself when it is one)."""
        converted = module
        if isinstance(module, _BatchNorm) and type(module).__name__.startswith("BatchNorm"):
            converted = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                      module.affine, module.track_running_stats, process_group)
            if module.affine:
                with _C_no_grad():
                    converted.weight = module.weight
                    converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return converted
