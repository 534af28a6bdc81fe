"""x.as_strided(size, stride, storage_offset): a view of x's memory (its storage) with any
shape and steps, what every view op is underneath (transpose swaps two strides, expand sets
one to 0, unfold makes windows that overlap). Positions count elements from the start of the
storage, not of x: storage_offset defaults to x.storage_offset(). Out-of-bounds geometry is
refused, as torch refuses it. The gradient adds each output element's gradient at its storage
position (overlapping windows add up), then reads x's elements back from there."""
from ..function import Function
from ..tensor import tensor_method
from .shape import _as_view


def _storage_array(x):
    """The array of x's storage: its base tensor's (x's own if x is not a view), which torch
    would have allocated as one dense block."""
    root = x._base if x._base is not None else x
    return root._data


def _address(a):
    return a.__array_interface__["data"][0] if hasattr(a, "__array_interface__") \
        else a.data.ptr


def _offset(x):
    """How many elements into its storage x starts."""
    d = x._data
    return (_address(d) - _address(_storage_array(x))) // d.itemsize if d.size else 0


def _storage(xp, x):
    """x's storage as a 1-d array in memory order."""
    root = _storage_array(x)
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        raise RuntimeError("as_strided: this tensor's memory is not one dense block (an "
                           "expanded or internal view); call .contiguous() first.")
    return xp.lib.stride_tricks.as_strided(root, shape=(root.size,), strides=(root.itemsize,))


def _positions(xp, shape, strides, offset):
    """The storage position of every element of a (shape, strides, offset) geometry."""
    pos = xp.full(tuple(shape), offset, dtype="int64")
    for k, (n, s) in enumerate(zip(shape, strides)):
        step = xp.arange(n, dtype="int64") * s
        pos = pos + step.reshape((n,) + (1,) * (len(shape) - k - 1))
    return pos


class AsStrided(Function):
    node_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, x, size, stride, offset):
        xp, d = x.device.xp, x._data
        flat = _storage(xp, x)
        need = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride)) \
            if all(size) else 0
        if need > flat.size or offset < 0 or any(s < 0 for s in stride):
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, "
                               f"storage offset {offset}, and itemsize {d.itemsize} requiring a "
                               f"storage size of {need * d.itemsize} are out of bounds for "
                               f"storage of size {flat.size * d.itemsize}")
        ctx.geometry = (size, stride, offset, flat.size)
        ctx.x_geometry = (d.shape, tuple(s // d.itemsize for s in d.strides), _offset(x))
        return xp.lib.stride_tricks.as_strided(flat[offset:], shape=size,
                                               strides=[s * d.itemsize for s in stride])

    @staticmethod
    def backward(ctx, grad):
        size, stride, offset, n = ctx.geometry
        xp = grad.device.xp
        from ..creation import tensor
        out_pos = tensor(_positions(xp, size, stride, offset).reshape(-1), device=grad.device)
        storage = grad.new_zeros(n).index_add(0, out_pos, grad.reshape(-1))
        shape, strides, x_offset = ctx.x_geometry
        in_pos = tensor(_positions(xp, shape, strides, x_offset), device=grad.device)
        return storage[in_pos], None, None, None


@tensor_method("as_strided")
def as_strided(input, size, stride, storage_offset=None):
    """A view of input's storage with shape size and steps stride (in elements)."""
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape ({len(stride)} strides "
                           f"for {len(size)} sizes)")
    offset = _offset(input) if storage_offset is None else int(storage_offset)
    d = input._data
    where = (d.shape, tuple(s // d.itemsize for s in d.strides), _offset(input),
             _storage_array(input).size)
    return _as_view(AsStrided.apply(input, size, stride, offset), input, _View,
                    (size, stride, offset, where))


class _View:
    """How an as_strided view is re-read and written back (the in-place ops use both): `where`
    is the parent's own geometry in the storage, which the copy put_back receives lacks."""

    @staticmethod
    def apply(parent, size, stride, offset, where):
        return AsStrided.apply(parent, size, stride, offset)

    @staticmethod
    def put_back(parent, new, size, stride, offset, where):
        """parent once the view holds `new`: each parent element whose storage position the
        view covers takes the view's value there, through index_put (so gradients flow to
        parent's other elements and to new)."""
        from ..creation import tensor
        shape, strides, start, n = where
        xp, dev = parent.device.xp, parent.device
        mine = tensor(_positions(xp, shape, strides, start).reshape(-1), device=dev)
        view = tensor(_positions(xp, size, stride, offset).reshape(-1), device=dev)
        storage = parent.new_zeros(n).index_put((mine,), parent.reshape(-1))
        storage = storage.index_put((view,), new.reshape(-1))
        return storage[mine].reshape(shape)
