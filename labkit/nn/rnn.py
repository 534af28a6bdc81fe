"""Recurrent layers: RNN, LSTM, GRU and their one-step cells (torch.nn's, same parameter names,
so a torch state_dict loads).

A recurrent layer applies the same cell once per time step, feeding each step's hidden state
into the next. The Python loop runs as many times as the sequence is long, so the autograd graph
is as deep as the input: the textbook case for a dynamic graph. Sequences of different lengths
in one batch come as a PackedSequence (nn.utils.rnn): at step t only the batch_sizes[t]
sequences still running are computed, and each keeps the hidden state of its own last step.
"""
import math
import warnings

from ..engine.creation import empty, zeros
from ..engine.ops.join import cat, stack
from ..engine.tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


# --- one time step of each cell: gi = x W_ih^T + b_ih is computed for all steps at once --------
def _rnn_step(act):
    def step(gi, state, w_hh, b_hh):
        return act(gi + F.linear(state, w_hh, b_hh))
    return step


def _lstm_step(gi, state, w_hh, b_hh, w_hr=None):
    """Input, forget, cell and output gates (torch's order i, f, g, o): c' = f c + i g,
    h' = o tanh(c'), projected to proj_size by w_hr when there is one."""
    h, c = state
    i, f, g, o = (gi + F.linear(h, w_hh, b_hh)).chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    return (h if w_hr is None else F.linear(h, w_hr)), c


def _gru_step(gi, state, w_hh, b_hh):
    """Reset and update gates r, z and the candidate n: h' = (1 - z) n + z h."""
    gh = F.linear(state, w_hh, b_hh)
    i_r, i_z, i_n = gi.chunk(3, -1)
    h_r, h_z, h_n = gh.chunk(3, -1)
    r = (i_r + h_r).sigmoid()
    z = (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    return (1 - z) * n + z * state


_STEPS = {"RNN_TANH": _rnn_step(F.tanh), "RNN_RELU": _rnn_step(F.relu), "LSTM": _lstm_step,
          "GRU": _gru_step}


def _hidden(state):
    return state[0] if isinstance(state, tuple) else state


def _head(state, n):
    """The first n rows of the state (the sequences still running at this step)."""
    if isinstance(state, tuple):
        return tuple(s[:n] for s in state)
    return state[:n]


def _merge(new, old, n):
    """Rows :n from new, the rest (finished or not yet started sequences) from old."""
    if isinstance(new, tuple):
        return tuple(_merge(a, b, n) for a, b in zip(new, old))
    return new if n == old.shape[0] else cat([new, old[n:]])


def _run(step, gi_steps, state, weights, reverse):
    """Apply step along the time steps (gi_steps[t] has batch_sizes[t] rows, decreasing):
    (outputs per step, final state). weights: (w_hh, b_hh), and w_hr for a projection."""
    outs = [None] * len(gi_steps)
    order = range(len(gi_steps) - 1, -1, -1) if reverse else range(len(gi_steps))
    for t in order:
        n = gi_steps[t].shape[0]
        new = step(gi_steps[t], _head(state, n), *weights)
        outs[t] = _hidden(new)
        state = _merge(new, state, n)
    return outs, state


class RNNBase(Module):
    """The shared machinery: parameters weight_ih_l{k}[_reverse] (gates*H, in), weight_hh_l{k}
    (gates*H, H), bias_ih_l{k}, bias_hh_l{k}, for every layer k and direction."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0, device=None,
                 dtype=None):
        super().__init__()
        name = type(self).__name__
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError(f"{name}: hidden_size must be a positive integer, got "
                             f"{hidden_size!r}.")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError(f"{name}: num_layers must be a positive integer, got {num_layers!r}.")
        if isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError(f"{name}: dropout must be a number in [0, 1] (the probability of "
                             f"zeroing an element between layers), got {dropout!r}.")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"dropout option adds dropout after all but last recurrent layer, so "
                          f"non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", UserWarning,
                          stacklevel=3)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional = float(dropout), bidirectional
        if not isinstance(proj_size, int) or not 0 <= proj_size < hidden_size:
            raise ValueError(f"{name}: proj_size has to be a non-negative integer smaller than "
                             f"hidden_size ({hidden_size}), got {proj_size!r}.")
        self.proj_size = proj_size
        self._flat_weights_names = []
        gates = _GATES[mode] * hidden_size
        dirs = 2 if bidirectional else 1
        out = proj_size or hidden_size          # the size of h (and of each step's output)
        for layer in range(num_layers):
            layer_in = input_size if layer == 0 else out * dirs
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                shapes = [("weight_ih", (gates, layer_in)), ("weight_hh", (gates, out))]
                if bias:
                    shapes += [("bias_ih", (gates,)), ("bias_hh", (gates,))]
                if proj_size:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                for pname, shape in shapes:
                    setattr(self, pname + sfx, Parameter(empty(*shape, device=device,
                                                               dtype=dtype)))
                    self._flat_weights_names.append(pname + sfx)
        self.reset_parameters()

    def reset_parameters(self):
        """Every weight and bias uniform in [-1/sqrt(hidden_size), 1/sqrt(hidden_size)]."""
        k = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -k, k)

    def flatten_parameters(self):
        """Does nothing: torch packs the weights into one buffer for cuDNN; labkit keeps them
        apart (programs call this before forward, so it exists)."""

    @property
    def all_weights(self):
        """[[weight_ih, weight_hh, bias_ih, bias_hh] for each layer and direction]."""
        n = (4 if self.bias else 2) + (1 if self.proj_size else 0)
        names = self._flat_weights_names
        return [[getattr(self, w) for w in names[i:i + n]] for i in range(0, len(names), n)]

    def _layer_params(self, layer, d):
        sfx = f"_l{layer}" + ("_reverse" if d else "")
        get = self._parameters.get
        weights = (get("weight_hh" + sfx), get("bias_hh" + sfx))
        if self.proj_size:
            weights += (get("weight_hr" + sfx),)
        return get("weight_ih" + sfx), get("bias_ih" + sfx), weights

    def forward(self, input, hx=None):
        name = type(self).__name__
        packed = isinstance(input, PackedSequence)
        dirs = 2 if self.bidirectional else 1
        if packed:
            data, batch_sizes = input.data, [int(b) for b in input.batch_sizes.tolist()]
            batch, unbatched = batch_sizes[0] if batch_sizes else 0, False
            x_steps = _split_steps(data, batch_sizes)
        else:
            if not isinstance(input, Tensor):
                raise TypeError(f"{name}: expected a tensor or a PackedSequence as input, got "
                                f"{type(input).__name__}.")
            if input.ndim not in (2, 3):
                layout = "(N, L, input_size)" if self.batch_first else "(L, N, input_size)"
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D "
                                 f"tensor of shape {tuple(input.shape)} (want {layout}, or "
                                 "(L, input_size) unbatched).")
            unbatched = input.ndim == 2
            x = input.unsqueeze(1) if unbatched else (
                input.transpose(0, 1) if self.batch_first else input)
            if x.shape[-1] != self.input_size:
                raise RuntimeError(f"{name}: input.size(-1) must be equal to input_size. "
                                   f"Expected {self.input_size}, got {x.shape[-1]} (input "
                                   f"shape {tuple(input.shape)}).")
            if x.shape[0] == 0:
                raise RuntimeError(f"{name}: Expected sequence length to be larger than 0 in "
                                   f"RNN (input shape {tuple(input.shape)}).")
            batch = x.shape[1]
            x_steps = [x[t] for t in range(x.shape[0])]
        state = self._initial_state(hx, batch, unbatched,
                                    input.sorted_indices if packed else None, dirs)
        step = _STEPS[self.mode]
        finals = []
        for layer in range(self.num_layers):
            if layer and self.dropout and self.training:
                x_steps = _split_steps(F.dropout(cat(x_steps), self.dropout, True),
                                       [s.shape[0] for s in x_steps])
            per_dir = []
            for d in range(dirs):
                w_ih, b_ih, weights = self._layer_params(layer, d)
                sizes = [s.shape[0] for s in x_steps]
                gi = _split_steps(F.linear(cat(x_steps), w_ih, b_ih), sizes)
                s0 = _index_state(state, layer * dirs + d)
                outs, last = _run(step, gi, s0, weights, reverse=bool(d))
                per_dir.append(outs)
                finals.append(last)
            x_steps = per_dir[0] if dirs == 1 else [cat(pair, -1) for pair in zip(*per_dir)]
        h_n = _stack_states(finals)
        if packed:
            if input.unsorted_indices is not None:
                h_n = _permute_state(h_n, input.unsorted_indices)
            out = PackedSequence(cat(x_steps), input.batch_sizes, input.sorted_indices,
                                 input.unsorted_indices)
            return out, h_n
        out = stack(x_steps)
        if unbatched:
            out = out.squeeze(1)
            h_n = _squeeze_state(h_n)
        elif self.batch_first:
            out = out.transpose(0, 1)
        return out, h_n

    def _initial_state(self, hx, batch, unbatched, sorted_indices, dirs):
        """h_0 (and c_0) as (layers * directions, batch, hidden), zeros when not given, in the
        packed batch's order (longest first) when the input was sorted for packing."""
        name = type(self).__name__
        like = self.weight_ih_l0
        n_state = self.num_layers * dirs
        h_size = self.proj_size or self.hidden_size
        is_lstm = self.mode == "LSTM"
        if hx is None:
            h = zeros(n_state, batch, h_size, dtype=like.dtype, device=like.device)
            c = zeros(n_state, batch, self.hidden_size, dtype=like.dtype, device=like.device)
            return (h, c) if is_lstm else h
        if is_lstm and not (isinstance(hx, (tuple, list)) and len(hx) == 2):  # torch: a list too
            raise TypeError(f"LSTM: hx must be a tuple (h_0, c_0), got {type(hx).__name__}.")
        parts = tuple(hx) if is_lstm else (hx,)
        if not is_lstm and not isinstance(hx, Tensor):
            raise TypeError(f"{name}: hx must be a tensor, got {type(hx).__name__} (only LSTM "
                            "takes a tuple (h_0, c_0)).")
        for which, h, size in zip(("h_0", "c_0"), parts, (h_size, self.hidden_size)):
            want = (n_state, size) if unbatched else (n_state, batch, size)
            if tuple(h.shape) != want:
                raise RuntimeError(f"{name}: Expected hidden size {want}, got {tuple(h.shape)} "
                                   f"for {which} (num_layers * num_directions, batch, "
                                   "hidden_size).")
        if unbatched:
            parts = tuple(h.unsqueeze(1) for h in parts)
        if sorted_indices is not None:
            parts = tuple(h[:, sorted_indices] for h in parts)
        return parts if is_lstm else parts[0]

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"     # (torch leaves out nonlinearity)
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


def _split_steps(data, sizes):
    """Rows of data cut into consecutive chunks of the given sizes (one per time step)."""
    out, start = [], 0
    for n in sizes:
        out.append(data[start:start + n])
        start += n
    return out


def _index_state(state, i):
    return tuple(s[i] for s in state) if isinstance(state, tuple) else state[i]


def _stack_states(finals):
    if isinstance(finals[0], tuple):
        return tuple(stack([f[k] for f in finals]) for k in range(2))
    return stack(finals)


def _permute_state(state, index):
    if isinstance(state, tuple):
        return tuple(s[:, index] for s in state)
    return state[:, index]


def _squeeze_state(state):
    if isinstance(state, tuple):
        return tuple(s.squeeze(1) for s in state)
    return state.squeeze(1)


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu).
    Returns (output of every step of the last layer, h_n of every layer and direction)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        super().__init__("RNN_" + nonlinearity.upper(), input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory: a cell state c carried beside h, changed only by gated
    additions, so gradients survive long sequences. hx and the returned state are (h, c).
    With proj_size, h is projected to that size at every step (weight_hr_l{k})."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)


class GRU(RNNBase):
    """Gated recurrent unit: LSTM's gating with one state (reset and update gates)."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)


class RNNCellBase(Module):
    """One step: weight_ih (gates*H, input_size), weight_hh (gates*H, H), bias_ih, bias_hh."""

    def __init__(self, mode, input_size, hidden_size, bias, device=None, dtype=None):
        super().__init__()
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.bias = bias
        gates = _GATES[mode] * hidden_size
        self.weight_ih = Parameter(empty(gates, input_size, device=device, dtype=dtype))
        self.weight_hh = Parameter(empty(gates, hidden_size, device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(gates, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(gates, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def forward(self, input, hx=None):
        name = type(self).__name__
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D "
                             f"(shape {tuple(input.shape)}).")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"{name}: input has inconsistent input_size: got "
                               f"{input.shape[-1]} expected {self.input_size}.")
        unbatched = input.ndim == 1
        x = input.unsqueeze(0) if unbatched else input
        if hx is None:
            h = zeros(x.shape[0], self.hidden_size, dtype=x.dtype, device=x.device)
            hx = (h, h) if self.mode == "LSTM" else h
        elif unbatched:
            hx = tuple(h.unsqueeze(0) for h in hx) if isinstance(hx, tuple) else hx.unsqueeze(0)
        gi = F.linear(x, self.weight_ih, self.bias_ih)
        out = _STEPS[self.mode](gi, hx, self.weight_hh, self.bias_hh)
        if unbatched:
            out = tuple(o.squeeze(0) for o in out) if isinstance(out, tuple) else out.squeeze(0)
        return out

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            s += ", bias=False"
        if self.mode == "RNN_RELU":
            s += ", nonlinearity='relu'"
        return s


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__("RNN_" + nonlinearity.upper(), input_size, hidden_size, bias, device,
                         dtype)
        self.nonlinearity = nonlinearity


class LSTMCell(RNNCellBase):
    """One LSTM step: (h, c) -> (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, bias, device, dtype)


class GRUCell(RNNCellBase):
    """One GRU step: h -> h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, bias, device, dtype)
