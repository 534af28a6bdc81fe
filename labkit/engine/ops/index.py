"""Indexing: x[idx] (basic and advanced) and x[idx] = value, with their gradients."""
import numpy as np

from ..dtype import bool_, uint8
from ..function import Function, _pack_saved
from ..promotion import fill_value
from ..tensor import Tensor, tensor_method
from .shape import _as_view
from . import rules
from .basic_index import views as basic_views


def _as_tuple(idx, ndim):
    """torch's reading of a non-tuple sequence index (numpy's old rule): a list of fewer than 32
    items holding a sequence, slice, tensor, None or Ellipsis is a tuple of indices
    (x[[[0, 1]]] is x[[0, 1]], x[[[0], [1]]] is x[[0], [1]]); a list of numbers is one index."""
    if isinstance(idx, list) and len(idx) < 32 and any(
            isinstance(i, (list, tuple, slice, Tensor, np.ndarray, str)) or i is None
            or i is Ellipsis for i in idx):
        idx = tuple(idx)
    if isinstance(idx, tuple) and sum(1 for i in idx if i is Ellipsis) > 1:
        idx = _spell_out_ellipses(idx, ndim)
    return idx


def _spell_out_ellipses(idx, ndim):
    """torch accepts several Ellipsis in one index: each stands for the dims no other item
    names (x[..., 0, ...] on a 3-d x is x[:, :, 0]); spelled out here as slices."""
    named = sum(_item_axes(i) for i in idx if i is not Ellipsis)
    out = []
    for i in idx:
        out.extend([slice(None)] * max(ndim - named, 0) if i is Ellipsis else [i])
    while out and out[-1] == slice(None) and sum(_item_axes(i) for i in out) > ndim:
        out.pop()                  # trailing full slices past the last dim select nothing
    return tuple(out)


def _index_arrays(idx, x):
    """Turn tensors inside an index into arrays; check index dtypes, devices and slice steps."""
    if isinstance(idx, tuple):
        _first_fault(idx, x)
        return tuple(_index_arrays(i, x) for i in idx)
    if isinstance(idx, slice):
        if idx.step is not None and idx.step <= 0:
            raise ValueError(f"indexing: step must be greater than zero (got {idx.step}); torch "
                             "has no negative-step slices. To reverse, use x.flip(dim).")
        return idx
    if isinstance(idx, Tensor):
        if idx.device is not x.device:
            raise RuntimeError(f"indexing: the index is on {idx.device} but the tensor is on "
                               f"{x.device}; move the index with idx.to(x.device).")
        d = idx._data
        if d.dtype.kind not in "iub" or d.dtype.kind == "i" and d.dtype.itemsize < 4:
            raise IndexError(f"indexing: tensors used as indices must be long, int, byte or "
                             f"bool tensors, got {idx.dtype}. Convert with idx.long().")
        if d.dtype.kind == "u":            # torch (deprecated): a uint8 index is a mask
            return d.astype(bool)
        if d.ndim == 0 and d.dtype.kind == "i":
            return int(d)                  # a 0-d integer tensor selects, as an int does
        return d
    if isinstance(idx, (bool, np.bool_)):    # torch: a long index [0] or [] (a copy, not
        return x.device.xp.asarray(idx)       # numpy's view): read as a 0-d mask, advanced
    if isinstance(idx, list):
        arr = np.asarray(idx)
        if arr.size == 0:
            arr = arr.astype(np.int64)        # [] indexes nothing (numpy would make it float)
        return arr if x.device.type == "cpu" else x.device.xp.asarray(arr)
    if isinstance(idx, np.ndarray):         # torch reads an ndarray as a sequence: floats
        if idx.dtype.kind == "f":           # truncate to long, uint8 is a (deprecated) mask
            idx = idx.astype(np.int64)
        elif idx.dtype == np.uint8:
            idx = idx.astype(bool)
        return idx if x.device.type == "cpu" else x.device.xp.asarray(idx)
    return idx


def _first_fault(idx, x):
    """torch walks an index left to right and reports the first fault it meets: an int out of
    range (IndexError) before a negative step further right (ValueError), and the reverse."""
    shape = x._data.shape
    used = sum(_item_axes(i) for i in idx if i is not Ellipsis)
    if used > len(shape):            # torch counts the dims an index names before anything
        raise _index_error(x, idx, f"too many indices for tensor of dimension {len(shape)}")
    axis = 0
    for i in idx:
        if i is Ellipsis:
            axis += max(len(shape) - used, 0)
            continue
        if isinstance(i, slice) and i.step is not None and i.step <= 0:
            return                     # _index_arrays raises it: nothing wrong before it
        if isinstance(i, (int, np.integer)) and not isinstance(i, bool) and axis < len(shape):
            n = shape[axis]
            if not -n <= i < n:
                raise _index_error(x, idx, f"index {i} is out of bounds for dimension {axis} "
                                           f"with size {n}")
        axis += _item_axes(i)


def _item_axes(i):
    """How many dims of the indexed tensor an index item (before conversion) consumes."""
    if isinstance(i, Tensor):            # bool and uint8 (torch: a mask) span their ndim
        return i._data.ndim if i._data.dtype.kind in "bu" else 1
    if isinstance(i, bool) or i is None or i is Ellipsis:
        return 0
    return 1


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
            if bool(((i < -n) | (i >= n)).any()) and _empty_despite(x._data, idx) is None:
                hi = int(i.max())
                bad = hi if hi >= n else int(i.min())
                raise _index_error(x, idx, f"index {bad} is out of bounds for axis {axis} "
                                           f"with size {n}")
        axis += _axes_used(i)


def _empty_despite(arr, idx):
    """x[idx] when it selects nothing although an index array is out of range: torch checks an
    index array only while it copies elements, so with none to copy it does not complain
    (zeros(2, 0, 3)[[5]] has shape (1, 0, 3)), except for an index into a dim of size 0. The
    result with every index array clipped into range, if that is empty; else None."""
    items = idx if isinstance(idx, tuple) else (idx,)
    shape, axis, clipped = arr.shape, 0, []
    for i in items:
        if i is Ellipsis:
            axis += len(shape) - sum(_axes_used(j) for j in items)
        elif hasattr(i, "dtype") and i.dtype.kind in "iu" and i.size and axis < len(shape):
            if shape[axis] == 0:
                return None
            i = i.clip(-shape[axis], shape[axis] - 1)
        clipped.append(i)
        axis += _axes_used(i)
    try:
        out = _get(arr, tuple(clipped) if isinstance(idx, tuple) else clipped[0])
    except (IndexError, ValueError):
        return None
    return out if out.size == 0 else None


def _axes_used(i):
    """How many dims of the indexed tensor one index item consumes."""
    if i is None or i is Ellipsis:
        return 0
    return i.ndim if hasattr(i, "dtype") and i.dtype.kind == "b" else 1


def _split(idx):
    """torch applies integer indices first (select), then the array indices to what remains;
    numpy treats an int beside an array as one more array index, which moves dims around
    (x[0, :, [0, 1]] is (3, 2) in torch, (2, 3) in numpy). None when numpy's order is torch's."""
    if type(idx) is not tuple:
        return None
    ints = arrays = False
    for i in idx:
        if isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            ints = True
        elif hasattr(i, "dtype"):
            arrays = True
    if not (ints and arrays):
        return None
    first, rest = [], []
    for i in idx:
        if isinstance(i, (int, np.integer)):
            first.append(i)
        elif hasattr(i, "dtype"):
            first.extend([slice(None)] * _axes_used(i))
            rest.append(i)
        elif i is None:
            first.append(None)
            rest.append(slice(None))
        elif i is Ellipsis:
            first.append(i)
            rest.append(i)
        else:
            first.append(slice(None))
            rest.append(i)
    return tuple(first), tuple(rest)


def _get(arr, idx):
    parts = _split(idx)
    return arr[idx] if parts is None else arr[parts[0]][parts[1]]


def _set(arr, idx, value):
    parts = _split(idx)
    target = None if parts is None else arr[parts[0]]
    if target is None or not getattr(target, "ndim", 0):   # ints took every dim: numpy's
        arr[idx] = value                                    # order is torch's
    else:
        target[parts[1]] = value    # arr[first] is a view: the write reaches arr


def _torch_order_source(arr, idx, value):
    """The values torch writes for x[idx] = value when value overlaps the non-dense target
    (fastai's x[:,:,a:b,c:d] = x[:,:,e:f,g:h]): its overlap check gives up there and it copies
    row by row in the target's order, reading rows it has already written. None: no overlap."""
    if not isinstance(value, Tensor) or not isinstance(arr, np.ndarray) or \
            not _is_basic(idx) or value._data.dtype != arr.dtype:
        return None
    try:
        dst, src = arr[idx], value._data
        overlap = dst.ndim >= 2 and np.shares_memory(dst, src, max_work=1000)
    except IndexError:
        return None                           # the write reports the bad index
    except np.exceptions.TooHardError:
        overlap = True                        # (a sequential copy is right either way)
    if not overlap:
        return None
    saved, src = dst.copy(), np.broadcast_to(src, dst.shape)
    for i in np.ndindex(dst.shape[:-1]):
        dst[i] = src[i]
    out = dst.copy()
    dst[...] = saved
    return out


def _add_at(xp, arr, idx, value):
    parts = _split(idx)
    target = None if parts is None else arr[parts[0]]
    if target is None or target.ndim == 0:  # ints took every dim: numpy's order is torch's
        xp.add.at(arr, idx, value)
    else:
        xp.add.at(target, parts[1], value)


def _index_put_wants_same_dtype(idx, value):
    """Whether torch's x[idx] = value goes through index_put_, which wants value's dtype to be
    x's: when idx holds an index tensor (a tensor that is not a 0-d integer, a list, or a
    Python bool or 0-d bool tensor inside it, which torch turns into a long index), unless
    it is a lone bool mask and value has one element (then torch calls masked_fill_). A bare
    int, slice, None, Ellipsis, True or False copies with conversion."""
    if not isinstance(idx, tuple):
        if idx is None or idx is Ellipsis or isinstance(idx, (bool, int, slice, np.integer)):
            return False
        idx = (idx,)
    tensors, masks = 0, 0
    for i in idx:
        if isinstance(i, Tensor):
            if i._data.ndim == 0 and i._data.dtype.kind == "i":
                continue                      # a 0-d integer tensor selects, as an int
            tensors += 1
            masks += i._data.ndim > 0 and i._data.dtype.kind in "bu"
        elif isinstance(i, (list, tuple, np.ndarray, bool, np.bool_)):
            tensors += 1
            masks += isinstance(i, (list, tuple, np.ndarray)) and np.asarray(i).dtype.kind == "b" \
                and np.asarray(i).ndim > 0
    return tensors > 0 and not (tensors == 1 and masks == 1 and value.numel() == 1)


def _clipped(arr, idx):
    """idx with its integer arrays clipped into range (dims of size 0 left alone)."""
    items = idx if isinstance(idx, tuple) else (idx,)
    shape, axis, out = arr.shape, 0, []
    for i in items:
        if i is Ellipsis:
            axis += len(shape) - sum(_axes_used(j) for j in items)
        elif hasattr(i, "dtype") and i.dtype.kind in "iu" and i.size and axis < len(shape) \
                and shape[axis]:
            i = i.clip(-shape[axis], shape[axis] - 1)
        out.append(i)
        axis += _axes_used(i)
    return tuple(out) if isinstance(idx, tuple) else out[0]


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
            return x.device.xp.asarray(_get(x._data, idx))
        except IndexError as e:
            out = _empty_despite(x._data, idx)
            if out is None:
                raise _index_error(x, idx, e) from None
            return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # raises if an index tensor was changed in place since forward
        return IndexAdd.apply(grad, ctx.idx, ctx.shape), None

    @staticmethod
    def put_back(parent, new, idx):
        """The parent once its part x[idx] (a view) holds `new`."""
        return IndexPut.apply(parent, idx, new)

    jvp = classmethod(rules.same_op)

    @classmethod
    def vmap(cls, args, batched):
        x, items = args[0], rules.index_items(args[1])
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
        if grad._data.size == 0:   # nothing to add (an out-of-range index array is fine then)
            pass
        elif _is_basic(idx):
            out[idx] = grad._data
        else:
            _add_at(xp, out, idx, grad._data)
        ctx.idx = idx
        return out

    @staticmethod
    def backward(ctx, grad):
        return Index.apply(grad, ctx.idx), None, None

    jvp = classmethod(rules.same_op)

    @staticmethod
    def vmap(args, batched):
        (grad, _, shape), items = args, rules.index_items(args[1])
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
            _set(out, idx, value._data if isinstance(value, Tensor) else value)
        except IndexError as e:
            if _empty_despite(x._data, idx) is None:   # else: nothing to write, as torch
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
    if x._data.ndim == 0 and isinstance(idx, (int, np.integer, slice)) \
            and not isinstance(idx, (bool, np.bool_)):    # old tutorials' loss.data[0]
        raise IndexError("slice() cannot be applied to a 0-dim tensor." if isinstance(idx, slice)
                         else "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
                         if idx == 0 else
                         f"index {idx} is out of bounds for dimension 0 with size 0")
    idx = _as_tuple(idx, x._data.ndim)
    raw, idx = idx, _index_arrays(idx, x)
    if x.device.type != "cpu":
        _check_bounds(x, idx)
    if _is_basic(idx):
        out = basic_views(x, idx, Select, Slice)    # torch's one view op per item
        if out is not None:
            return out
        ints = all(isinstance(i, (int, np.integer)) or i is Ellipsis
                   for i in (idx if isinstance(idx, tuple) else (idx,)))
        op = Select if ints else Slice
        return _as_view(op.apply(x, idx), x, op, (idx,))
    return _guard(Index.apply(x, idx), raw)


def _fits_or_raise(x, idx, number):
    """torch's masked_fill_ check of a one-element value, after the index itself is checked
    (a mask of the wrong shape is reported first, as torch)."""
    try:
        fill_value(x._data.dtype, number)
    except RuntimeError:
        _get(x._data, _index_arrays(idx, x))
        raise


def _is_mask_index(idx):
    """idx holds one bool mask and otherwise only basic items (ints, slices, None, ...): torch
    then fills through it with masked_fill_ when the value has one element."""
    items = idx if isinstance(idx, tuple) else (idx,)
    advanced = [i for i in items if isinstance(i, (Tensor, list, np.ndarray))]
    return len(advanced) == 1 and isinstance(advanced[0], Tensor) and advanced[0].dtype == bool_


def _guard(out, raw):
    """Keep the index tensors of x[idx] in out's node, version-checked like saved tensors:
    backward reads their values, so changing one in place must raise, not give the gradient
    for the new indices."""
    node = out.grad_fn
    if node is not None:
        tensors = [i for i in (raw if isinstance(raw, tuple) else (raw,)) if isinstance(i, Tensor)]
        if tensors:
            node._saved = tuple(node._saved) + tuple(_pack_saved(tensors, ()))
    return out


@tensor_method("__setitem__")
def setitem(x, idx, value):
    """x[idx] = value, in place (e.g. the lecture's grad_h[h < 0] = 0)."""
    from .inplace import inplace
    if not isinstance(value, Tensor):       # as torch: a number that does not fit x's dtype is
        value = fill_value(x._data.dtype, value)   # refused before the index is read
    idx = _as_tuple(idx, x._data.ndim)
    items = idx if isinstance(idx, tuple) else (idx,)
    advanced = [i for i in items if isinstance(i, (Tensor, list, np.ndarray))]
    if len(advanced) == 1 and isinstance(advanced[0], Tensor) and advanced[0].dtype == uint8 \
            and advanced[0].ndim and (not isinstance(value, Tensor) or value.numel() == 1):
        try:
            _get(x._data, _index_arrays(idx, x))   # a mask of the wrong shape: reported first
        except IndexError as e:
            raise _index_error(x, idx, e) from None
        raise RuntimeError("x[mask] = value: masked_fill_ only supports boolean masks, but got "
                           "a uint8 mask (torch reads a uint8 index as a deprecated mask). Use "
                           "mask.bool().")
    if isinstance(value, Tensor):
        if value.numel() == 1 and _is_mask_index(idx):   # torch: masked_fill_(mask, value.item())
            _fits_or_raise(x, idx, value.item())         # so a value that cannot fit raises
        if value.ndim and value.shape[0] == 1:           # torch drops a value's leading 1s
            shape = list(value.shape)                    # (x[0] = tensor([v]) works)
            while shape and shape[0] == 1:
                shape.pop(0)
            value = value.reshape(shape)
    raw, idx = idx, _index_arrays(idx, x)
    if x.device.type != "cpu":
        _check_bounds(x, idx)
    if isinstance(value, Tensor) and value.device is not x.device:
        raise RuntimeError(f"x[idx] = value: value is on {value.device} but x is on {x.device}; "
                           "move it first with value.to(x.device).")
    if isinstance(value, Tensor) and x._data.ndim:      # as torch: no overlapping source
        from .inplace import check_overlap
        if _is_basic(idx):
            try:
                check_overlap("x[idx] = value", x._data[idx], value._data)
            except IndexError:
                pass                         # the write below reports the bad index
        elif value.numel() != 1 or not _is_mask_index(raw):
            check_overlap("x[idx] = value", x._data, value._data, partial_only=False)
    if isinstance(value, Tensor) and value.dtype != x.dtype and \
            _index_put_wants_same_dtype(raw, value):
        try:      # as torch: a bad int, mask shape or index broadcast is reported first, an
            target = _get(x._data, _clipped(x._data, idx))   # index array out of range after
        except IndexError as e:
            raise _index_error(x, idx, e) from None
        try:
            fits = tuple(np.broadcast_shapes(target.shape, value._data.shape)) == target.shape
        except ValueError:
            fits = False
        if not fits:
            raise RuntimeError(f"x[idx] = value: shape mismatch: value tensor of shape "
                               f"{list(value.shape)} cannot be broadcast to indexing result of "
                               f"shape {list(target.shape)}.")
        raise RuntimeError(f"x[idx] = value: index put requires the source and destination "
                           f"dtypes to match, got {x.dtype} for x and {value.dtype} for value. "
                           f"Convert first: x[idx] = value.to(x.dtype).")

    order = _torch_order_source(x._data, idx, value)
    if order is not None:        # torch's values; a gradient still flows to value
        value = value + Tensor._make(order - value._data, value.device, False) \
            if value.requires_grad else Tensor._make(order, value.device, False)

    def write(target):
        try:
            _set(target, idx, value._data if isinstance(value, Tensor) else value)
        except IndexError as e:
            if _empty_despite(target, idx) is None:   # else: nothing to write, as torch
                raise _index_error(x, idx, e) from None
        except (ValueError, TypeError) as e:    # TypeError: numpy's mask assignment
            raise RuntimeError(f"x[idx] = value: cannot assign a value of shape "
                               f"{tuple(getattr(value, 'shape', ()))} into x of shape "
                               f"{tuple(x.shape)} at this index: {e}.") from None
    inplace(x, "setitem", write, IndexPut, idx, value)


@tensor_method("take")
def take(input, index):
    """input's elements at flat positions `index` (as if input were 1-D); the result has
    index's shape. Negative positions count from the end."""
    if not isinstance(index, Tensor) or index._data.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{getattr(index, 'dtype', type(index).__name__)}. Convert with "
                           "index.long().")
    n = input.numel()
    if index.numel() and n == 0:
        raise IndexError("take(): tried to take from an empty tensor (shape "
                         f"{tuple(input.shape)}) with a non-empty index.")
    if index.numel():
        lo, hi = int(index._data.min()), int(index._data.max())
        if lo < -n or hi >= n:
            bad = hi if hi >= n else lo
            raise IndexError(f"take(): index {bad} out of range for tensor of size "
                             f"{list(input.shape)} ({n} elements).")
    return input.reshape(-1)[index]
