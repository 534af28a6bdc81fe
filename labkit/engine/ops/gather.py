"""Picking and placing along a dim by an index tensor: gather, scatter, scatter_add, index_select,
index_fill, index_copy (IndexAddNew is also index_add's engine, in fused.py). gather's backward is a scatter_add and the other way round, so each is the other's
gradient (to any order).

torch's rule for gather/scatter: `index` has as many dims as `input`, and may be smaller than it
(and than `src`) in every dim: only the leading part of the other dims takes part.
"""
from ..function import _NULL, Function
from ..tensor import Tensor, tensor_method
from .scan import _one_dim


def _check_index(name, x, dim, index, src=None):
    if not isinstance(index, Tensor) or index._data.dtype.kind not in "iu":
        got = index.dtype if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"{name}(): expected index to be an int64 tensor, got {got}. "
                           "Convert it with index.long().")
    if index.device is not x.device:
        raise RuntimeError(f"{name}(): index is on {index.device} but input is on {x.device}; "
                           "move it with index.to(input.device).")
    nd, ind = x._data.ndim, index._data.ndim
    if max(ind, 1) != max(nd, 1):
        raise RuntimeError(f"{name}(): index {tuple(index.shape)} and input {tuple(x.shape)} "
                           "must have the same number of dimensions.")
    xs, ishape = x._data.shape or (1,), index._data.shape or (1,)
    for d, (n_i, n_x) in enumerate(zip(ishape, xs)):
        if d != dim and n_i > n_x and index._data.size:   # an empty index: torch skips this
            raise RuntimeError(f"{name}(): index {tuple(index.shape)} is larger than input "
                               f"{tuple(x.shape)} in dimension {d} (only dim {dim} may differ).")
    if src is not None and isinstance(src, Tensor):
        ss = src._data.shape or (1,)
        if len(ss) != len(ishape) or any(a > b for a, b in zip(ishape, ss)):
            raise RuntimeError(f"{name}(): index {tuple(index.shape)} must not be larger than "
                               f"src {tuple(src.shape)} in any dimension.")
    _check_range(name, index, xs[dim], dim)


def _check_range(name, index, n, dim):
    i = index._data
    if i.size and bool(((i < 0) | (i >= n)).any()):   # one sync on a GPU: never a wrong answer
        bad = int(i.max()) if int(i.max()) >= n else int(i.min())
        raise RuntimeError(f"{name}(): index {bad} is out of bounds for dimension {dim} with "
                           f"size {n} (valid: 0 to {n - 1}).")


def _positions(xp, index, dim):
    """The full coordinates addressed by index along dim: a tuple for advanced indexing."""
    shape = index.shape
    if not shape:                  # a 0-d index of a 1-d input addresses one element, as torch
        return (index,)
    out = []
    for d, n in enumerate(shape):
        if d == dim:
            out.append(index)
        else:
            out.append(xp.arange(n).reshape([n if k == d else 1 for k in range(len(shape))]))
    return tuple(out)


def _lead(arr, shape):
    """The leading block of arr with the given shape (a 0-d index takes arr's first item)."""
    if not shape and arr.ndim:
        return arr.reshape(-1)[0]
    return arr[tuple(slice(0, n) for n in shape)]


class Gather(Function):
    node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.dim, ctx.shape = dim, x._data.shape
        ctx.save_for_backward(x, index)   # as torch: changing either in place, then backward,
        d, i = x._data, index._data         # raises (a changed index would misplace grads)
        if d.ndim == 0:
            return d.reshape(i.shape).copy() if i.ndim == 0 else d.reshape(1)[i]
        return d[_positions(x.device.xp, i, dim)]

    @staticmethod
    def backward(ctx, grad):
        _, index = ctx.saved_tensors
        return ScatterAddNew.apply(grad, ctx.dim, index, ctx.shape), None, None


class ScatterAddNew(Function):
    """zeros(shape) with src added at index along dim (the gradient of gather)."""
    node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, src, dim, index, shape):
        xp = src.device.xp
        out = xp.zeros(shape, src._data.dtype)
        ctx.dim, ctx.index = dim, index
        _add_at(xp, out, dim, index._data, _lead(src._data, index._data.shape))
        return out

    @staticmethod
    def backward(ctx, grad):
        return gather(grad, ctx.dim, ctx.index), None, None, None


def _add_at(xp, out, dim, i, values):
    if out.ndim == 0:
        out[...] += values.sum()
        return
    xp.add.at(out, _positions(xp, i, dim), values)


class Scatter(Function):
    """input with src (a tensor or a number) written at index along dim."""
    node_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, src):
        out = x._data.copy()
        i = index._data
        ctx.dim = dim
        ctx.save_for_backward(index)      # version-checked, as torch
        ctx.src_shape = src._data.shape if isinstance(src, Tensor) else ()
        v = _lead(src._data, i.shape) if isinstance(src, Tensor) else src
        if out.ndim == 0:
            if i.size:
                out[...] = v.reshape(()) if isinstance(src, Tensor) else v
            return out
        out[_positions(x.device.xp, i, dim)] = v
        return out

    @staticmethod
    def backward(ctx, grad):
        need = ctx.needs_input_grad
        (index,), dim = ctx.saved_tensors, ctx.dim
        gx = scatter(grad, dim, index, 0.0) if need[0] else None
        gs = None
        if need[3]:
            gs = _pad_to(gather(grad, dim, index), ctx.src_shape)
        return gx, None, None, gs


class ScatterAdd(Function):
    """input + src added at index along dim (repeated indices add up)."""
    node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, src):
        out = x._data.copy()
        ctx.dim, ctx.src_shape = dim, src._data.shape
        ctx.save_for_backward(index)      # version-checked, as torch
        _add_at(x.device.xp, out, dim, index._data, _lead(src._data, index._data.shape))
        return out

    @staticmethod
    def backward(ctx, grad):
        need = ctx.needs_input_grad
        (index,) = ctx.saved_tensors
        gs = _pad_to(gather(grad, ctx.dim, index), ctx.src_shape) if need[3] else None
        return (grad if need[0] else None), None, None, gs


def _pad_to(g, shape):
    """g (index-shaped) placed in zeros of src's shape: src beyond the index gets no gradient."""
    if tuple(g.shape) == tuple(shape):
        return g
    if g.dim() == 0:                   # from a 0-d index: src's first item got the gradient
        g = g.reshape((1,) * len(shape))
    from .index import IndexAdd
    return IndexAdd.apply(g, tuple(slice(0, n) for n in g.shape), shape)


@tensor_method("gather")
def gather(input, dim, index, *, sparse_grad=False):
    """out[i][j] = input[index[i][j]][j] for dim=0 (and likewise for other dims)."""
    dim = _one_dim(dim, input._data.ndim, "gather")
    _check_index("gather", input, dim, index)
    return Gather.apply(input, dim, index)


def _scatter_args(name, input, dim, index, src, value):
    if src is None:
        src = value
    if src is None:
        raise TypeError(f"{name}(): give src (a tensor) or value (a number).")
    dim = _one_dim(dim, input._data.ndim, name)
    if isinstance(src, Tensor):
        if src.device is not input.device:
            raise RuntimeError(f"{name}(): src is on {src.device} but input is on "
                               f"{input.device}; move it first.")
        if src._data.dtype != input._data.dtype:
            raise RuntimeError(f"{name}(): expected src to have the same dtype as input "
                               f"({input.dtype}), got {src.dtype}. Convert it first.")
    _check_index(name, input, dim, index, src)
    return dim, src


@tensor_method("scatter")
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """A copy of input with src[i][j] written at [index[i][j]][j] (dim=0), or a number."""
    if reduce is not None:
        return _scatter_reduced("scatter", input, dim, index, src, value, reduce, False)
    dim, src = _scatter_args("scatter", input, dim, index, src, value)
    return Scatter.apply(input, dim, index, src)


def _scatter_reduced(name, input, dim, index, src, value, reduce, in_place):
    """scatter(reduce='add' | 'multiply'), the older spelling of scatter_reduce('sum' |
    'prod') with the input's values included (a number src fills the index's shape)."""
    if reduce not in ("add", "multiply"):
        raise RuntimeError(f"{name}: reduce argument must be either add or multiply (got "
                           f"{reduce!r}); scatter_reduce offers 'sum', 'prod', 'mean', "
                           "'amax' and 'amin'.")
    dim, src = _scatter_args(name, input, dim, index, src, value)
    if not isinstance(src, Tensor):
        src = input.new_full(tuple(index.shape), src)
    how = "sum" if reduce == "add" else "prod"
    op = input.scatter_reduce_ if in_place else input.scatter_reduce
    return op(dim, index, src, how)


@tensor_method("scatter_add")
def scatter_add(input, dim, index, src):
    """A copy of input with src added at index along dim; repeated indices add up."""
    dim, src = _scatter_args("scatter_add", input, dim, index, src, None)
    return ScatterAdd.apply(input, dim, index, src)


@tensor_method("scatter_")
def scatter_(input, dim, index, src=None, value=None, *, reduce=None):
    from .inplace import inplace
    if reduce is not None:
        return _scatter_reduced("scatter_", input, dim, index, src, value, reduce, True)
    dim, src = _scatter_args("scatter_", input, dim, index, src, value)

    def write(d):
        d[...] = Scatter.forward(_NULL, Tensor._make(d, input.device), dim, index, src)
    return inplace(input, "scatter_", write, Scatter, dim, index, src)


@tensor_method("scatter_add_")
def scatter_add_(input, dim, index, src):
    from .inplace import inplace
    dim, src = _scatter_args("scatter_add_", input, dim, index, src, None)

    def write(d):
        d[...] = ScatterAdd.forward(_NULL, Tensor._make(d, input.device), dim, index, src)
    return inplace(input, "scatter_add_", write, ScatterAdd, dim, index, src)


class IndexSelect(Function):
    node_name = "IndexSelectBackward0"

    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.dim, ctx.shape = dim, x._data.shape
        ctx.save_for_backward(index)      # version-checked, as torch
        d = x._data if x._data.ndim else x._data.reshape(1)
        out = x.device.xp.take(d, index._data.reshape(-1), axis=dim)
        return out.reshape(()) if x._data.ndim == 0 else out

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        return IndexAddNew.apply(grad, ctx.dim, index, ctx.shape), None, None


class IndexAddNew(Function):
    """zeros(shape) with grad's slices added at index along dim (index_select's gradient).
    index_add starts from -0.0 instead, the one number that adds as nothing (x + -0.0 is x
    for x = -0.0 too), so input + this is torch's in-place sum, signed zeros included."""
    node_name = "IndexAddBackward0"

    @staticmethod
    def forward(ctx, g, dim, index, shape, start=0):
        xp = g.device.xp
        ctx.dim, ctx.index = dim, index
        out = xp.full(shape or (1,), start, g._data.dtype)
        pos = (slice(None),) * dim + (index._data.reshape(-1),)
        k = index._data.size               # not -1: with a size-0 dim, reshape cannot infer it
        xp.add.at(out, pos, g._data.reshape(out.shape[:dim] + (k,) + out.shape[dim + 1:]))
        return out.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return IndexSelect.apply(grad, ctx.dim, ctx.index), None, None, None, None


@tensor_method("index_select")
def index_select(input, dim, index):
    """The slices of input at the positions `index` (1-D) along dim."""
    dim = _one_dim(dim, input._data.ndim, "index_select")
    if not isinstance(index, Tensor) or index._data.dtype.kind not in "iu" or \
            index._data.dtype.itemsize < 4:     # torch: int32 or int64 only
        got = index.dtype if isinstance(index, Tensor) else type(index).__name__
        raise (TypeError if not isinstance(index, Tensor) else RuntimeError)(
            f"index_select(): Expected dtype int32 or int64 for index, got {got}. Convert "
            "with index.long().")
    if index._data.ndim > 1:
        raise IndexError(f"index_select(): Index is supposed to be a vector (1-D or 0-d), got "
                         f"shape {tuple(index.shape)}; flatten it with index.reshape(-1).")
    if index.device is not input.device:
        raise RuntimeError(f"index_select(): index is on {index.device} but input is on "
                           f"{input.device}; move it with index.to(input.device).")
    n = input._data.shape[dim] if input._data.ndim else 1
    i = index._data
    if input._data.ndim == 0 and i.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{i.size} value(s).")
    if i.size and n == 0 and input._data.ndim > 1:
        raise RuntimeError(f"index_select(): self indexing axis dim should be positive: dim "
                           f"{dim} of shape {tuple(input.shape)} has size 0, nothing to select.")
    if i.size and bool(((i < 0) | (i >= n)).any()):
        # torch's kernel for dim 1 raises RuntimeError (as does any dim of an empty input),
        # the others IndexError
        special = input._data.ndim > 1 and (dim == 1 or input._data.size == 0)
        raise (RuntimeError if special else IndexError)(
            f"index_select(): index out of range in self: indices must be in 0..{n - 1} for "
            f"dim {dim} of shape {tuple(input.shape)}.")
    return IndexSelect.apply(input, dim, index)


def _along(name, input, dim, index, negative=True):
    """The index tuple that picks `index` (1-D) along dim, range-checked. torch wants an int64
    index for both index_fill_ and index_copy_, and only index_fill_ counts negative positions
    from the end."""
    dim = _one_dim(dim, input._data.ndim, name)
    if not isinstance(index, Tensor) or index._data.dtype.kind not in "iu" or index._data.ndim > 1:
        raise IndexError(f"{name}(): index must be a 1-D integer tensor.")
    if input._data.ndim == 0 and index._data.size != 1 and name == "index_copy_":
        raise IndexError(f"index_copy_(): When source is scalar, index should have one "
                         f"element (got {index._data.size})")
    if index._data.dtype.name != "int64":
        raise (IndexError if name == "index_fill_" else RuntimeError)(
            f"{name}(): Expected a long tensor (dtype int64) for index, but got {index.dtype}. "
            "Convert it with index.long().")
    n, i = input._data.shape[dim] if input._data.ndim else 1, index._data
    if i.size and (negative or input._data.size) and \
            bool(((i < (-n if negative else 0)) | (i >= n)).any()):   # (index_copy_ of an
        # empty input copies nothing and checks nothing, as torch)
        raise IndexError(f"{name}(): index out of range for dimension {dim} of size {n} "
                         f"(shape {tuple(input.shape)}).")
    if input._data.ndim == 0:        # a 0-d input is its one slice: all of it, or nothing
        return Ellipsis if i.size else ()
    return (slice(None),) * dim + (index.reshape(-1),)


@tensor_method("index_fill_")
def index_fill_(input, dim, index, value):
    """Set the slices at `index` along dim to value, in place (an x[..., index] = value). A
    tensor value must be 0-d, and is converted to input's dtype (as a number would be)."""
    from .inplace import check_leaf
    check_leaf("index_fill_", input)
    key = _along("index_fill_", input, dim, index)
    if (isinstance(value, complex) or isinstance(value, Tensor) and value._data.dtype.kind == "c") \
            and input._data.dtype.kind != "c":
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not "
                           f"supported (input is {input.dtype}). Fill with value.real.")
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._data.ndim} dimension(s). Fill with "
                               "value.item(), or use index_copy_ for values per slice.")
        if value._data.dtype != input._data.dtype:
            value = value.to(input.dtype)
    if key != ():
        input[key] = value
    else:
        input._bump_version()        # (torch counts the call, though nothing changed)
    return input


@tensor_method("index_fill")
def index_fill(input, dim, index, value):
    return index_fill_(input.clone(), dim, index, value)


@tensor_method("index_copy_")
def index_copy_(input, dim, index, source):
    """Copy source's slices to the positions `index` along dim, in place."""
    from .inplace import check_leaf
    check_leaf("index_copy_", input)
    if isinstance(source, Tensor) and source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {input.dtype} and (source) {source.dtype}. Convert "
                           f"first: source.to({input.dtype}).")
    input[_along("index_copy_", input, dim, index, negative=False)] = source
    return input


@tensor_method("index_copy")
def index_copy(input, dim, index, source):
    return index_copy_(input.clone(), dim, index, source)
