"""Indexing: x[idx] (basic and advanced) and x[idx] = value, with their gradients."""
import numpy as np

from ..function import Function
from ..tensor import Tensor, tensor_method
from .shape import _as_view
from . import rules


def _index_arrays(idx, x):
    """Turn tensors inside an index into arrays; check index dtypes and devices."""
    if isinstance(idx, tuple):
        return tuple(_index_arrays(i, x) for i in idx)
    if isinstance(idx, Tensor):
        if idx.device is not x.device:
            raise RuntimeError(f"indexing: the index is on {idx.device} but the tensor is on "
                               f"{x.device}; move the index with idx.to(x.device).")
        if idx._data.dtype.kind not in "iub":
            raise IndexError(f"indexing: tensors used as indices must be long, int or bool "
                             f"tensors, got {idx.dtype}. Convert with idx.long().")
        return idx._data
    if isinstance(idx, list):
        return np.asarray(idx) if x.device.type == "cpu" else x.device.xp.asarray(idx)
    return idx


def _check_bounds(x, idx):
    """Integer-array indices in range, checked by hand on a GPU: CuPy wraps an out-of-range
    index around (i % n) where numpy raises, which would be a silently wrong answer. Costs one
    device sync per index array, only on the GPU."""
    items = idx if isinstance(idx, tuple) else (idx,)
    shape = x._data.shape
    axis = 0
    for i in items:
        if i is Ellipsis:
            axis += len(shape) - sum(_axes_used(j) for j in items)
        elif hasattr(i, "dtype") and i.dtype.kind in "iu" and i.size and axis < len(shape):
            n = shape[axis]
            if bool(((i < -n) | (i >= n)).any()):
                hi = int(i.max())
                bad = hi if hi >= n else int(i.min())
                raise _index_error(x, idx, f"index {bad} is out of bounds for axis {axis} "
                                           f"with size {n}")
        axis += _axes_used(i)


def _axes_used(i):
    """How many dims of the indexed tensor one index item consumes."""
    if i is None or i is Ellipsis:
        return 0
    return i.ndim if hasattr(i, "dtype") and i.dtype.kind == "b" else 1


def _is_basic(idx):
    items = idx if isinstance(idx, tuple) else (idx,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, slice, np.integer)) for i in items)


def _index_error(x, idx, err):
    return IndexError(f"indexing a tensor of shape {tuple(x.shape)}: {err}. Valid integer indices "
                      "for a dim of size n are -n to n-1; a bool mask must match the indexed shape.")


class Index(Function):
    node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, x, idx):
        ctx.shape, ctx.dtype, ctx.idx = x._data.shape, x._data.dtype, idx
        try:
            return x.device.xp.asarray(x._data[idx])
        except IndexError as e:
            raise _index_error(x, idx, e) from None

    @staticmethod
    def backward(ctx, grad):
        return IndexAdd.apply(grad, ctx.idx, ctx.shape), None

    @staticmethod
    def put_back(parent, new, idx):
        """The parent once its part x[idx] (a view) holds `new`."""
        return IndexPut.apply(parent, idx, new)

    jvp = classmethod(rules.same_op)

    @classmethod
    def vmap(cls, args, batched):
        (x, idx), items = args, rules.index_items(args[1])
        if batched[0] is not True or rules.any_batched(batched[1]) or not rules.plain_index(items):
            return NotImplemented
        return cls.apply(x, (slice(None),) + items)


class Slice(Index):
    node_name = "SliceBackward0"


class Select(Index):
    """x[i] (integers only): torch calls it select. It is a view even when it picks one element
    (numpy would return a copied scalar for x[i]; x[i, ...] is a 0-d view)."""
    node_name = "SelectBackward0"

    @staticmethod
    def forward(ctx, x, idx):
        items = idx if isinstance(idx, tuple) else (idx,)
        return Index.forward(ctx, x, items if Ellipsis in items else items + (Ellipsis,))

    jvp = classmethod(rules.same_op)
    vmap = Index.vmap


class IndexAdd(Function):
    """Zeros of `shape` with grad added at idx (repeated indices add up): the backward of x[idx]."""
    node_name = "IndexAddBackward0"

    @staticmethod
    def forward(ctx, grad, idx, shape):
        xp = grad.device.xp
        out = xp.zeros(shape, grad._data.dtype)
        if _is_basic(idx):
            out[idx] = grad._data
        elif xp is np:
            np.add.at(out, idx, grad._data)
        else:
            xp.add.at(out, idx, grad._data)
        ctx.idx = idx
        return out

    @staticmethod
    def backward(ctx, grad):
        return Index.apply(grad, ctx.idx), None, None

    jvp = classmethod(rules.same_op)

    @staticmethod
    def vmap(args, batched):
        (grad, idx, shape), items = args, rules.index_items(args[1])
        if batched[0] is not True or rules.any_batched(batched[1]) or not rules.plain_index(items):
            return NotImplemented
        return IndexAdd.apply(grad, (slice(None),) + items, (grad.shape[0],) + tuple(shape))


class IndexPut(Function):
    """A copy of x with x[idx] = value (the recorded form of an in-place item assignment)."""
    node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, x, idx, value):
        out = x._data.copy()
        try:
            out[idx] = value._data if isinstance(value, Tensor) else value
        except IndexError as e:
            raise _index_error(x, idx, e) from None
        ctx.idx = idx
        return out

    @staticmethod
    def backward(ctx, grad):
        need = ctx.needs_input_grad
        gx = IndexPut.apply(grad, ctx.idx, 0.0) if need[0] else None
        gv = Index.apply(grad, ctx.idx) if need[2] else None
        return gx, None, gv


@tensor_method("__getitem__")
def getitem(x, idx):
    idx = _index_arrays(idx, x)
    if x.device.type != "cpu":
        _check_bounds(x, idx)
    if _is_basic(idx):
        ints = all(isinstance(i, (int, np.integer)) or i is Ellipsis
                   for i in (idx if isinstance(idx, tuple) else (idx,)))
        op = Select if ints else Slice
        return _as_view(op.apply(x, idx), x, op, (idx,))
    return Index.apply(x, idx)


@tensor_method("__setitem__")
def setitem(x, idx, value):
    """x[idx] = value, in place (e.g. the lecture's grad_h[h < 0] = 0)."""
    from .inplace import inplace
    idx = _index_arrays(idx, x)
    if x.device.type != "cpu":
        _check_bounds(x, idx)
    if isinstance(value, Tensor) and value.device is not x.device:
        raise RuntimeError(f"x[idx] = value: value is on {value.device} but x is on {x.device}; "
                           "move it first with value.to(x.device).")

    def write(target):
        try:
            target[idx] = value._data if isinstance(value, Tensor) else value
        except IndexError as e:
            raise _index_error(x, idx, e) from None
        except ValueError as e:
            raise RuntimeError(f"x[idx] = value: cannot assign a value of shape "
                               f"{tuple(getattr(value, 'shape', ()))} into x of shape "
                               f"{tuple(x.shape)} at this index: {e}.") from None
    inplace(x, "setitem", write, IndexPut, idx, value)
