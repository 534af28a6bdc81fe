"""Tensors made from a tensor: new_zeros, new_ones, new_full, new_empty, new_tensor (same dtype
and device as self unless given), and Tensor.type() with torch's type strings."""
from .. import creation
from ..hooks import current_tracer
from ..tensor import tensor_method


def _new(fn, x, size, dtype, device, requires_grad, *extra):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return _batched_like(x, fn(size, *extra, dtype=dtype or x.dtype, device=device or x.device,
                                requires_grad=requires_grad))


def _batched_like(x, t):
    """Under vmap, x.new_zeros(...) of a batched x is batched too (torch's advice for writing
    into a fresh tensor inside a vmapped function)."""
    hook = getattr(current_tracer(), "batched_like", None)
    if hook is not None:
        hook(x, t)
    return t


@tensor_method("new_zeros")
def new_zeros(x, *size, dtype=None, device=None, requires_grad=False):
    return _new(creation.zeros, x, size, dtype, device, requires_grad)


@tensor_method("new_ones")
def new_ones(x, *size, dtype=None, device=None, requires_grad=False):
    return _new(creation.ones, x, size, dtype, device, requires_grad)


@tensor_method("new_empty")
def new_empty(x, *size, dtype=None, device=None, requires_grad=False):
    return _new(creation.empty, x, size, dtype, device, requires_grad)


@tensor_method("new_full")
def new_full(x, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return _batched_like(x, creation.full(tuple(size) if not isinstance(size, int) else (size,),
                                          fill_value, dtype=dtype or x.dtype,
                                          device=device or x.device, requires_grad=requires_grad))


@tensor_method("new_tensor")
def new_tensor(x, data, *, dtype=None, device=None, requires_grad=False):
    """A copy of data as a tensor with x's dtype and device (unless given)."""
    return creation.tensor(data, dtype=dtype or x.dtype, device=device or x.device,
                           requires_grad=requires_grad)


