"""Rearranging elements: view_as, unbind, narrow, movedim, unflatten (views, built on the view
ops of shape.py and indexing), and flip, roll, repeat, tile, repeat_interleave, meshgrid
(copies, as in torch)."""
import numpy as np

from ..creation import tensor
from ..function import Function
from ..tensor import Tensor, tensor_method
from .gather import index_select
from .shape import _norm_dim, _shape_arg, watch_multi_output


@tensor_method("view_as")
def view_as(input, other):
    return input.view(other.shape)


@tensor_method("unbind")
def unbind(input, dim=0):
    """The slices along dim, each without that dim (views)."""
    if input._data.ndim == 0:
        raise IndexError("unbind: a 0-d tensor has no dimension to unbind; use .item().")
    dim = _norm_dim(dim, input._data.ndim, "unbind")
    lead = (slice(None),) * dim
    out = tuple(input[lead + (i,)] for i in range(input._data.shape[dim]))
    for i, t in enumerate(out):
        watch_multi_output(t, f"Output {i} of Unbind")
    return out


@tensor_method("narrow")
def narrow(input, dim, start, length):
    """input's elements start..start+length-1 along dim (a view)."""
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = _norm_dim(dim, input._data.ndim, "narrow")
    n = input._data.shape[dim]
    start = int(start)
    if not -n <= start <= n:
        raise IndexError(f"narrow: start ({start}) is out of range for dimension {dim} of size "
                         f"{n} (valid: {-n} to {n}).")
    if start < 0:
        start += n
    if length < 0 or start + length > n:
        raise RuntimeError(f"narrow: start ({start}) + length ({length}) exceeds dimension "
                           f"{dim} of size {n} (shape {tuple(input.shape)}).")
    return input[(slice(None),) * dim + (slice(start, start + length),)]


@tensor_method("movedim", "moveaxis")
def movedim(input, source, destination):
    """Move dims `source` to positions `destination`; the others keep their order."""
    nd = input._data.ndim
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: source {src} and destination {dst} must have the same "
                           "number of dims.")
    src = [_norm_dim(d, nd, "movedim") for d in src]
    dst = [_norm_dim(d, nd, "movedim") for d in dst]
    if nd == 0:                       # a 0-d tensor: dims 0 and -1 name its one place
        if len(src) > 1:
            raise RuntimeError(f"movedim: repeated dim in source {src} or destination {dst}.")
        return input.reshape(())
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in source {src} or destination {dst}.")
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    order = [next(rest) if o is None else o for o in order]
    return input.permute(*order) if nd else input


@tensor_method("unflatten")
def unflatten(input, dim, sizes):
    """Split dim into several with the given sizes (one may be -1)."""
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("unflatten: a 0-d tensor has no dim to unflatten (torch refuses it "
                           "too); reshape it instead, e.g. x.reshape(1, 1).")
    dim = _norm_dim(dim, nd, "unflatten")
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty.")
    shape = input._data.shape
    n, known = shape[dim], 1
    for s in sizes:
        known *= s if s != -1 else 1
    if (-1 not in sizes and known != n) or (-1 in sizes and (known == 0 or n % known)):
        raise RuntimeError(f"unflatten: provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({n}) in the input tensor {tuple(shape)}.")
    sizes = tuple(n // known if s == -1 else s for s in sizes)   # -1 resolved inside dim
    return input.reshape(shape[:dim] + sizes + shape[dim + 1:])


def _dims_arg(dims, nd, name):
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    out = tuple(_norm_dim(d, nd, name) for d in dims) if nd else ()
    if len(set(out)) != len(out):
        raise RuntimeError(f"{name}: dim appears multiple times in the list of dims {dims}.")
    return out


class Flip(Function):
    node_name = "FlipBackward0"

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return x.device.xp.flip(x._data, axis=dims).copy() if dims else x._data.copy()

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, ctx.dims), None


@tensor_method("flip")
def flip(input, *dims_args, dims=None):
    """A copy with the order of elements reversed along the given dims (flip(x, (0, 1)),
    x.flip(0, 1) or x.flip(dims=[0]))."""
    if dims is None:
        dims = _shape_arg(dims_args)
    elif dims_args:
        raise TypeError("flip: give the dims once, as arguments or as dims=.")
    return Flip.apply(input, _dims_arg(dims, input._data.ndim, "flip"))


@tensor_method("fliplr")
def fliplr(input):
    if input._data.ndim < 2:
        raise RuntimeError("fliplr: input must be at least 2-D.")
    return flip(input, 1)


@tensor_method("flipud")
def flipud(input):
    if input._data.ndim < 1:
        raise RuntimeError("flipud: input must be at least 1-D.")
    return flip(input, 0)


class Roll(Function):
    node_name = "RollBackward0"

    @staticmethod
    def forward(ctx, x, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        d = x._data
        if dims is None:
            return x.device.xp.roll(d.reshape(-1), shifts[0]).reshape(d.shape)
        return x.device.xp.roll(d, shifts, axis=dims)

    @staticmethod
    def backward(ctx, grad):
        return Roll.apply(grad, tuple(-s for s in ctx.shifts), ctx.dims), None, None


@tensor_method("roll")
def roll(input, shifts, dims=None):
    """Shift elements along dims, wrapping around (flattened first when dims is None)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"roll: with dims=None give one shift, got {shifts}.")
        return Roll.apply(input, shifts, None)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(dims) != len(shifts):
        raise RuntimeError(f"roll: shifts {shifts} and dims {dims} must have the same length.")
    nd = input._data.ndim
    return Roll.apply(input, shifts, tuple(_norm_dim(d, nd, "roll") for d in dims))


class Repeat(Function):
    """Tile the tensor `reps` times along each dim (new leading dims for extra reps)."""
    node_name = "RepeatBackward0"

    @staticmethod
    def forward(ctx, x, reps):
        lead = len(reps) - x._data.ndim
        ctx.shape = (1,) * lead + x._data.shape
        ctx.in_shape, ctx.reps = x._data.shape, reps
        return x.device.xp.tile(x._data.reshape(ctx.shape), reps)

    @staticmethod
    def backward(ctx, grad):
        split = []
        for r, s in zip(ctx.reps, ctx.shape):
            split += [r, s]
        g = grad.reshape(split)
        if g.ndim:
            g = g.sum(tuple(range(0, g.ndim, 2)))
        return g.reshape(ctx.in_shape), None


@tensor_method("repeat")
def repeat(input, *sizes):
    """Tile input: repeat(2, 3) on a (4,) tensor gives (2, 12)."""
    reps = _shape_arg(sizes)
    if len(reps) < input._data.ndim:
        raise RuntimeError(f"repeat: the number of repeat dims ({len(reps)}) can not be smaller "
                           f"than the number of dims of the tensor ({input._data.ndim}).")
    if any(r < 0 for r in reps):
        raise RuntimeError(f"repeat: repeats must be non-negative, got {list(reps)}.")
    return Repeat.apply(input, tuple(int(r) for r in reps))


@tensor_method("tile")
def tile(input, *dims):
    reps = _shape_arg(dims)
    return repeat(input, *((1,) * (input._data.ndim - len(reps)) + tuple(reps)))


def meshgrid(*tensors, indexing="ij"):
    """Coordinate grids from 1-D tensors: out[k] varies along dim k ('ij'), or with the first
    two swapped ('xy', as numpy's default). Each grid is an expanded view of its input."""
    tensors = _shape_arg(tensors)
    indexing = "ij" if indexing is None else indexing     # torch's None (it warns): 'ij'
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}.")
    for t in tensors:
        if not isinstance(t, Tensor) or t._data.ndim > 1:
            raise RuntimeError("meshgrid: expects 0-D or 1-D tensors.")
    ts = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    n = len(ts)
    grids = [t.reshape([-1 if k == i else 1 for k in range(n)]).expand(shape)
             for i, t in enumerate(ts)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@tensor_method("repeat_interleave")
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along dim) repeated `repeats` times in place: [1, 2] -> [1, 1, 2, 2].
    repeats may be a tensor with one count per element. repeat_interleave(counts) alone gives
    each index i repeated counts[i] times."""
    if repeats is None:
        repeats, input = input, tensor(np.arange(input._data.size), device=input.device)
    if dim is None:
        input, dim = input.reshape(-1), 0
    dim = _norm_dim(dim, input._data.ndim, "repeat_interleave")
    n = input._data.shape[dim] if input._data.ndim else 1
    counts = np.asarray(repeats._host() if isinstance(repeats, Tensor) else repeats).reshape(-1)
    if counts.size == 1:
        counts = np.full(n, counts[0])
    if counts.shape != (n,) or counts.dtype.kind not in "iu" or (counts < 0).any():
        raise RuntimeError(f"repeat_interleave: repeats must be non-negative integers, one count "
                           f"or one per element along dim {dim} ({n}), got {repeats!r}.")
    x = input if input._data.ndim else input.reshape(1)
    return index_select(x, dim, tensor(np.repeat(np.arange(n), counts), device=input.device))


@tensor_method("swapdims")
def swapdims(input, dim0, dim1):
    return input.transpose(dim0, dim1)


moveaxis = movedim
