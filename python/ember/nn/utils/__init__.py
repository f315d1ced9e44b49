"""ember.nn.utils: the helpers of torch.nn.utils that Ember has (rnn: packed sequences)."""
from . import rnn  # noqa: F401
