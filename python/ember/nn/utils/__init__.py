"""ember.nn.utils: the helpers of torch.nn.utils that Ember has (rnn: packed sequences; gradient
clipping)."""
from . import rnn  # noqa: F401
from .clip_grad import clip_grad_norm_, clip_grad_value_  # noqa: F401
