"""Moving between dtypes and devices: to(), cpu(), cuda(), float(), double(), long() ..."""
from .. import dtype as _dt
from ..device import Device, cuda_available, is_pinned_array, pin_array, to_device_array
from ..formats import memory_format, preserve_format
from ..function import Function
from ..tensor import Tensor, tensor_method
from . import rules
from .complex import discard_imag


class ToCopy(Function):
    """A copy in another dtype and/or on another device; the gradient goes back the same way."""
    node_name = "ToCopyBackward0"
    op_name = "to"

    @staticmethod
    def onnx(w, node, out):
        if node.args[1] is None:                  # a device move only: nothing to write
            raise w.unsupported(node)
        w.emit("Cast", [w.name(node.args[0])], out, to=w.onnx_dtype(node.args[1]))

    @staticmethod
    def forward(ctx, x, np_dtype, device, non_blocking=False):
        ctx.src_dtype, ctx.src_device = x._data.dtype, x.device
        arr = x._data
        if device is not x.device:
            arr = to_device_array(arr, device, non_blocking)
        if np_dtype is not None and arr.dtype != np_dtype:
            if arr.dtype.kind == "c" and np_dtype.kind != "c":   # bool: z != 0, as torch
                arr = arr != 0 if np_dtype.kind == "b" else discard_imag(arr)
            arr = arr.astype(np_dtype)
        elif arr is x._data:
            arr = arr.copy()
        return Tensor._make(arr, device)

    @staticmethod
    def backward(ctx, grad):
        # four arguments, as forward: so the double backward returns one gradient per argument
        if grad._data.dtype.kind == "c" and ctx.src_dtype.kind != "c":
            grad = grad.real          # a real input keeps the real part of a complex gradient
        return ToCopy.apply(grad, ctx.src_dtype, ctx.src_device, False), None, None, None

    jvp = classmethod(rules.same_op)
    vmap = classmethod(rules.elementwise)


def _parse_to(args, kwargs):
    """torch's three forms: to(dtype, non_blocking, copy), to(device, dtype, non_blocking,
    copy), to(tensor, non_blocking, copy); any of them by keyword; memory_format= keyword-only."""
    fmt = kwargs.pop("memory_format", None)
    if fmt is not None and not isinstance(fmt, memory_format):
        raise TypeError(f"to(): memory_format must be a labkit memory format, got {fmt!r}.")
    args = list(args)
    if "tensor" in kwargs:
        args.insert(0, kwargs.pop("tensor"))
    first = args[0] if args else None
    device = dtype = None
    if isinstance(first, Tensor):
        device, dtype, names = first.device, first.dtype, ("non_blocking", "copy")
        args.pop(0)
    elif first is not None and not isinstance(first, (str, Device, int)):   # a dtype
        names = ("dtype", "non_blocking", "copy")
    else:
        names = ("device", "dtype", "non_blocking", "copy")
    if len(args) > len(names):
        raise TypeError(f"to() takes at most {len(names)} arguments in the form to"
                        f"({', '.join(names)}), got {len(args)}.")
    for name, a in zip(names, args):
        if name in kwargs:
            raise TypeError(f"to() got multiple values for argument '{name}'")
        kwargs[name] = a
    device = kwargs.pop("device", device)
    dtype = kwargs.pop("dtype", dtype)
    copy, non_blocking = kwargs.pop("copy", False), kwargs.pop("non_blocking", False)
    for name, v in (("non_blocking", non_blocking), ("copy", copy)):
        if not isinstance(v, bool) and type(v).__name__ != "bool_":
            raise TypeError(f"to(): {name} must be a bool, got {v!r} (torch's forms: to(dtype, "
                            "non_blocking, copy), to(device, dtype, non_blocking, copy)).")
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{sorted(kwargs)[0]}'; valid "
                        "keywords: copy, device, dtype, memory_format, non_blocking, tensor.")
    if dtype is not None and isinstance(dtype, (str, Device)):
        raise TypeError(f"to(): expected a dtype, got {dtype!r} (torch's forms: to(dtype, "
                        "non_blocking, copy), to(device, dtype, non_blocking, copy)).")
    return (Device(device) if device is not None else None), _dt.to_np(dtype), bool(copy), \
        bool(non_blocking), fmt


@tensor_method("to")
def to(x, *args, **kwargs):
    """to(device), to(dtype), to(device, dtype) or to(other): self when nothing changes.

    non_blocking=True lets a copy from pinned memory to the GPU run while Python goes on;
    memory_format=labkit.channels_last reorders the memory (values stay).
    """
    device, np_dtype, copy, non_blocking, fmt = _parse_to(args, dict(kwargs))
    if fmt is not None and fmt is not preserve_format:
        return to(x, device, None if np_dtype is None else _dt.from_np(np_dtype), copy=copy,
                  non_blocking=non_blocking).contiguous(memory_format=fmt)
    device = device or x.device
    if device.type == "cuda":
        device.xp  # raises a clear error when no GPU is usable
    if device is x.device and (np_dtype is None or np_dtype == x._data.dtype) and not copy:
        return x
    if x.device.type == "meta" and device.type != "meta":
        raise NotImplementedError("Cannot copy out of meta tensor; no data! A meta tensor has "
                                  "a shape and a dtype but no values: create the tensor (or "
                                  "the module) on the target device instead.")
    return ToCopy.apply(x, np_dtype, device, non_blocking)


@tensor_method("cpu")
def cpu(x):
    return to(x, "cpu")


@tensor_method("cuda")
def cuda(x, device=None, non_blocking=False):
    if isinstance(device, int):
        device = f"cuda:{device}"
    return to(x, device or "cuda", non_blocking=non_blocking)


@tensor_method("pin_memory")
def pin_memory(x):
    """This cpu tensor copied into pinned (page-locked) host memory, which the GPU reads
    directly by DMA: faster transfers, and non_blocking copies. Self if already pinned."""
    if x.device.type != "cpu":
        raise RuntimeError(f"pin_memory(): this tensor is on {x.device}; only cpu tensors can be "
                           "pinned (pinned memory is host memory).")
    if not cuda_available():
        raise RuntimeError("pin_memory(): pinned host memory needs a CUDA GPU (the CUDA driver "
                           "pins the pages), and none is usable here. Check "
                           "labkit.cuda.is_available() first, or skip pinning on a CPU machine.")
    if is_pinned_array(x._data):
        return x
    return PinMemory.apply(x)


class PinMemory(Function):
    """The same values in pinned memory; the gradient passes through unchanged."""
    node_name = "PinMemoryBackward0"

    @staticmethod
    def forward(ctx, x):
        return Tensor._make(pin_array(x._data), x.device)

    @staticmethod
    def backward(ctx, grad):
        return grad


@tensor_method("is_pinned")
def is_pinned(x):
    """True when this tensor's data sits in pinned host memory."""
    return is_pinned_array(x._data)


def _caster(name, d):
    def cast(x):
        return to(x, d)
    cast.__name__ = name
    cast.__doc__ = f"This tensor as {d} (self if it already is)."
    tensor_method(name)(cast)


for _name, _d in [("float", _dt.float32), ("double", _dt.float64), ("half", _dt.float16),
                  ("bfloat16", _dt.bfloat16),
                  ("long", _dt.int64), ("int", _dt.int32), ("bool", _dt.bool_),
                  ("byte", _dt.uint8)]:
    _caster(_name, _d)


@tensor_method("type_as")
def type_as(x, other):
    return to(x, other.dtype)
