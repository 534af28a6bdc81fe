"""Tensors made from a tensor: new_zeros, new_ones, new_full, new_empty, new_tensor (same dtype
and device as self unless given), and Tensor.type() with torch's type strings."""
from .. import creation, dtype as _dt
from ..tensor import tensor_method


def _new(fn, x, size, dtype, device, requires_grad, *extra):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return fn(size, *extra, dtype=dtype or x.dtype, device=device or x.device,
              requires_grad=requires_grad)


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
    return creation.full(tuple(size) if not isinstance(size, int) else (size,), fill_value,
                         dtype=dtype or x.dtype, device=device or x.device,
                         requires_grad=requires_grad)


@tensor_method("new_tensor")
def new_tensor(x, data, *, dtype=None, device=None, requires_grad=False):
    """A copy of data as a tensor with x's dtype and device (unless given)."""
    return creation.tensor(data, dtype=dtype or x.dtype, device=device or x.device,
                           requires_grad=requires_grad)


_TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
               "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
               "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor"}
_BY_NAME = {v: k for k, v in _TYPE_NAMES.items()}


def type_string(x):
    """torch's name for x's type: 'torch.FloatTensor', 'torch.cuda.LongTensor', ..."""
    name = _TYPE_NAMES[x._data.dtype.name]
    return f"torch.cuda.{name}" if x.device.type == "cuda" else f"torch.{name}"


@tensor_method("type")
def tensor_type(x, dtype=None, non_blocking=False):
    """With no argument, torch's type string ('torch.FloatTensor'; the same string as torch,
    so code that compares it keeps working); with a dtype or such a string, x converted."""
    if dtype is None:
        return type_string(x)
    if isinstance(dtype, str):
        prefix, _, name = dtype.rpartition(".")
        if name not in _BY_NAME or prefix not in ("torch", "torch.cuda", "labkit", "labkit.cuda"):
            raise ValueError(f"type(): invalid type {dtype!r}; use e.g. 'torch.FloatTensor' or "
                             "a dtype such as labkit.float64.")
        device = "cuda" if prefix.endswith("cuda") else "cpu"
        return x.to(device, _dt.to_np(_BY_NAME[name]), non_blocking=non_blocking)
    return x.to(dtype, non_blocking=non_blocking)


