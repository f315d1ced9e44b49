"""RNN, LSTM, GRU and their cells with PyTorch 1.13's arguments, parameter names,
initialisation and repr; their steps run in C++ (nn::detail::run_rnn and the cell functions,
the code of the C++ modules), on padded or packed batches."""
import math

from ... import _C
from ..._C import _nn
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module


class RNNBase(Module):
    _gates = 1

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or \
                isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size != 0 and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if hidden_size <= 0 or num_layers <= 0:
            raise ValueError("hidden_size and num_layers must be positive")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        gate_size = self._gates * hidden_size
        width = proj_size if proj_size > 0 else hidden_size  # of h; c keeps hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else width * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)),
                          ("weight_hh", (gate_size, width))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(_C.empty(shape, device=device, dtype=dtype)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        per = (4 if self.bias else 2) + (1 if self.proj_size > 0 else 0)
        w = self._flat_weights
        return [w[i:i + per] for i in range(0, len(w), per)]

    def flatten_parameters(self):
        """cuDNN's packed weights in PyTorch; nothing to do here."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _state_shape(self, batch, cell=False):
        width = self.proj_size if self.proj_size > 0 and not cell else self.hidden_size
        return (self.num_layers * (2 if self.bidirectional else 1), batch, width)

    def _check_state(self, state, expected, which):
        if state is not None and tuple(state.shape) != tuple(expected):
            raise RuntimeError(f"Expected {which} size {tuple(expected)}, got "
                               f"{list(state.shape)}")

    def _run(self, input, hx, cx):
        """(output, h_n, c_n) for a padded or packed input; states in the caller's layout."""
        name = type(self).__name__
        args = (self._flat_weights, self.hidden_size, self.num_layers, self.bias, self.dropout,
                self.bidirectional, self.training, self.proj_size)
        if isinstance(input, PackedSequence):
            batch = int(input.batch_sizes[0])
            for state, which, cell in ((hx, "hidden[0]" if cx is not None else "hidden", False),
                                       (cx, "hidden[1]", True)):
                self._check_state(state, self._state_shape(batch, cell), which)
            data, h_n, c_n = _nn.rnn_packed(self.mode, input.data, input.batch_sizes,
                                            input.sorted_indices, input.unsorted_indices, hx, cx,
                                            *args)
            out = PackedSequence(data, input.batch_sizes, input.sorted_indices,
                                 input.unsorted_indices)
            return out, h_n, c_n
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2-D or 3-D but received "
                             f"{input.dim()}-D tensor")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")
        batched = input.dim() == 3
        if batched:
            x = input.transpose(0, 1) if self.batch_first else input
        else:
            x = input.unsqueeze(1)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                                       f"{hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
            cx = cx.unsqueeze(1) if cx is not None else None
        expected = self._state_shape(x.shape[1])
        expected_cell = self._state_shape(x.shape[1], cell=True)
        lstm = self.mode == "LSTM"
        if hx is None:
            hx = _C.zeros(expected, dtype=x.dtype, device=x.device)
        if lstm and cx is None:
            cx = _C.zeros(expected_cell, dtype=x.dtype, device=x.device)
        self._check_state(hx, expected, "hidden[0]" if lstm else "hidden")
        self._check_state(cx, expected_cell, "hidden[1]")
        out, h_n, c_n = _nn.rnn(self.mode, x, hx, cx, *args)
        if not batched:
            return out.squeeze(1), h_n.squeeze(1), None if c_n is None else c_n.squeeze(1)
        return (out.transpose(0, 1) if self.batch_first else out), h_n, c_n


class RNN(RNNBase):
    def __init__(self, *args, nonlinearity="tanh", **kwargs):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        out, h_n, _ = self._run(input, hx, None)
        return out, h_n


class LSTM(RNNBase):
    _gates = 4

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        h0, c0 = (None, None) if hx is None else hx
        out, h_n, c_n = self._run(input, h0, c0)
        return out, (h_n, c_n)


class GRU(RNNBase):
    _gates = 3

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        out, h_n, _ = self._run(input, hx, None)
        return out, h_n


class RNNCellBase(Module):
    """The parameters, initialisation, checks and repr of PyTorch 1.13's cells; each step is
    one call of the C++ cell function (ember::lstm_cell, gru_cell, rnn_tanh_cell,
    rnn_relu_cell), which the C++ cell modules call too."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_C.empty((num_chunks * hidden_size, input_size), device=device,
                                            dtype=dtype))
        self.weight_hh = Parameter(_C.empty((num_chunks * hidden_size, hidden_size),
                                            device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_C.empty((num_chunks * hidden_size,), device=device,
                                              dtype=dtype))
            self.bias_hh = Parameter(_C.empty((num_chunks * hidden_size,), device=device,
                                              dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, input, *states):
        """(input as [B, I], states as [B, H] or None, whether the input was unbatched), with
        PyTorch's messages."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1-D or 2-D but received "
                             f"{input.dim()}-D tensor")
        for s in states:
            if s is not None and s.dim() != input.dim():
                raise ValueError(f"{name}: Expected hidden to be {input.dim()}-D but received "
                                 f"{s.dim()}-D tensor")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} "
                               f"expected {self.input_size}")
        unbatched = input.dim() == 1
        if unbatched:
            input = input.unsqueeze(0)
            states = tuple(None if s is None else s.unsqueeze(0) for s in states)
        zeros = _C.zeros((input.shape[0], self.hidden_size), dtype=input.dtype,
                         device=input.device)
        return input, tuple(zeros if s is None else s for s in states), unbatched


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        x, (h,), unbatched = self._batched(input, hx)
        step = _nn.rnn_tanh_cell if self.nonlinearity == "tanh" else _nn.rnn_relu_cell
        h = step(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h.squeeze(0) if unbatched else h


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        h0, c0 = (None, None) if hx is None else hx
        x, (h, c), unbatched = self._batched(input, h0, c0)
        h, c = _nn.lstm_cell(x, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        x, (h,), unbatched = self._batched(input, hx)
        h = _nn.gru_cell(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h.squeeze(0) if unbatched else h
