"""Moving between dtypes and devices: to(), cpu(), cuda(), float(), double(), long() ..."""
from .. import dtype as _dt
from ..device import Device, to_device_array
from ..function import Function
from ..tensor import Tensor, tensor_method


class ToCopy(Function):
    """A copy in another dtype and/or on another device; the gradient goes back the same way."""
    node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, x, np_dtype, device):
        ctx.src_dtype, ctx.src_device = x.data.dtype, x.device
        arr = x.data
        if device is not x.device:
            arr = to_device_array(arr, device)
        if np_dtype is not None and arr.dtype != np_dtype:
            arr = arr.astype(np_dtype)
        elif arr is x.data:
            arr = arr.copy()
        return Tensor._make(arr, device)

    @staticmethod
    def backward(ctx, grad):
        return ToCopy.apply(grad, ctx.src_dtype, ctx.src_device), None, None


def _parse_to(args, kwargs):
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to(): unexpected keyword(s) {sorted(kwargs)}.")
    for a in args:
        if isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, (_dt.dtype,)) or a in (float, int, bool) or (
                not isinstance(a, (str, Device)) and a is not None):
            dtype = a
        elif a is not None:
            device = a
    return (Device(device) if device is not None else None), _dt.to_np(dtype), copy


@tensor_method("to")
def to(x, *args, **kwargs):
    """to(device), to(dtype), to(device, dtype) or to(other): self when nothing changes."""
    device, np_dtype, copy = _parse_to(args, dict(kwargs))
    device = device or x.device
    if device.type == "cuda":
        device.xp  # raises a clear error when no GPU is usable
    if device is x.device and (np_dtype is None or np_dtype == x.data.dtype) and not copy:
        return x
    return ToCopy.apply(x, np_dtype, device)


@tensor_method("cpu")
def cpu(x):
    return to(x, "cpu")


@tensor_method("cuda")
def cuda(x, device=None):
    if isinstance(device, int):
        device = f"cuda:{device}"
    return to(x, device or "cuda")


def _caster(name, d):
    def cast(x):
        return to(x, d)
    cast.__name__ = name
    cast.__doc__ = f"This tensor as {d} (self if it already is)."
    tensor_method(name)(cast)


for _name, _d in [("float", _dt.float32), ("double", _dt.float64), ("half", _dt.float16),
                  ("long", _dt.int64), ("int", _dt.int32), ("bool", _dt.bool_),
                  ("byte", _dt.uint8)]:
    _caster(_name, _d)


@tensor_method("type_as")
def type_as(x, other):
    return to(x, other.dtype)
