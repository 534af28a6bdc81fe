"""The older PyTorch API that tutorials and textbooks still use, behaving (and warning) as
torch 2.x does: autograd.Variable, the typed constructors FloatTensor, LongTensor ... (and
labkit.cuda.FloatTensor ...), Tensor.type(), Tensor.nelement(), Tensor.volatile and range().

Modern code writes labkit.tensor(data, dtype=...), labkit.zeros(size) and x.to(dtype)."""
import warnings

import numpy as np

from .engine import dtype as _dt
from .engine.creation import _finish, arange, empty
from .engine.device import Device, cuda_available
from .engine.tensor import Size, Tensor, tensor_method

_NAMES = {_dt.float32: "FloatTensor", _dt.float64: "DoubleTensor", _dt.float16: "HalfTensor",
          _dt.int64: "LongTensor", _dt.int32: "IntTensor", _dt.int16: "ShortTensor",
          _dt.int8: "CharTensor", _dt.uint8: "ByteTensor", _dt.bool_: "BoolTensor"}


class _TensorTypeMeta(type):
    """A legacy tensor type: calling it makes a tensor of its dtype (from sizes or from data),
    and isinstance(x, FloatTensor) asks "is x a float32 tensor on the cpu?", as in torch.
    labkit.cuda.FloatTensor & co. do the same on the GPU."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype and \
            obj.device.type == ("cuda" if cls.is_cuda else "cpu")

    def __call__(cls, *args, device=None):
        if cls.is_cuda:
            if not cuda_available():
                raise TypeError(f"type labkit.cuda.{cls.__name__} not available: no CUDA GPU "
                                "is usable here. Old code picks its type with `torch.cuda."
                                f"{cls.__name__} if torch.cuda.is_available() else torch."
                                f"{cls.__name__}`; modern code passes device= instead.")
            return _construct(cls.dtype, args, device or "cuda", cls.__name__)
        return _construct(cls.dtype, args, device, cls.__name__)

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _construct(dtype, args, device, name):
    """torch's legacy rules: no argument -> an empty tensor; ints or one Size -> an
    uninitialised tensor of that size; a list, tuple or numpy array -> a copy of the data
    converted to dtype; a tensor (which must already have the dtype) -> that tensor's data."""
    if not args:
        return empty(0, dtype=dtype, device=device)
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        for a in args:
            if a < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {a}: "
                                   f"{list(args)}")
        return empty(*args, dtype=dtype, device=device)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, Size):                  # FloatTensor(x.shape): a size, not data
            return empty(tuple(data), dtype=dtype, device=device)
        if isinstance(data, Tensor):
            if data.dtype != dtype:
                raise TypeError(f"{name}(tensor): the tensor is {data.dtype}, but {name} "
                                f"holds {dtype}. Convert with x.to({dtype}) (or x.type({name}))"
                                ".")
            return data.detach()
        if isinstance(data, (list, tuple, np.ndarray)):
            return _finish(np.array(data).astype(dtype.np), None, device, False)
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__}). "
                        f"{name}(n) takes int sizes, {name}([...]) data.")
    bad = next(a for a in args if not isinstance(a, (int, np.integer)))
    raise TypeError(f"new(): argument 'size' must be a tuple of ints, but got "
                    f"{type(bad).__name__} ({name}{args}). Sizes are ints: {name}(2, 3).")


def _legacy_type(dtype, cuda=False):
    where = "cuda" if cuda else "cpu"
    return _TensorTypeMeta(_NAMES[dtype], (), {
        "dtype": dtype, "is_cuda": cuda, "__module__": "labkit.cuda" if cuda else "labkit",
        "__doc__": f"Legacy constructor for {dtype} tensors on the {where} (torch's)."})


FloatTensor = _legacy_type(_dt.float32)
DoubleTensor = _legacy_type(_dt.float64)
HalfTensor = _legacy_type(_dt.float16)
LongTensor = _legacy_type(_dt.int64)
IntTensor = _legacy_type(_dt.int32)
ShortTensor = _legacy_type(_dt.int16)
CharTensor = _legacy_type(_dt.int8)
ByteTensor = _legacy_type(_dt.uint8)
BoolTensor = _legacy_type(_dt.bool_)
_BY_NAME = {c.__name__: c for c in (FloatTensor, DoubleTensor, HalfTensor, LongTensor,
                                    IntTensor, ShortTensor, CharTensor, ByteTensor, BoolTensor)}
CUDA_TYPES = {name: _legacy_type(c.dtype, cuda=True) for name, c in _BY_NAME.items()}


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """Deprecated since PyTorch 0.4, when Variables and Tensors merged: Variable(x) returns a
    tensor sharing x's data, cut from x's graph, requiring grad only if asked. Every tensor is
    a Variable (isinstance says yes). volatile=True warns and does nothing: use no_grad()."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", UserWarning, stacklevel=2)
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got "
                            f"{type(data).__name__}")
        out = data.detach()
        if requires_grad:
            if not out.is_floating_point():
                raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                                   f"gradients (this one is {out.dtype}).")
            out.requires_grad_(True)
        return out


@tensor_method("type")
def type_(x, dtype=None, non_blocking=False):
    """With no argument, the legacy type name ('torch.FloatTensor', 'torch.cuda.LongTensor',
    the names torch prints, so old comparisons keep working); with a legacy type, its name or
    a dtype, this tensor converted (self when it already is that type)."""
    if dtype is None:
        prefix = "torch.cuda." if x.device.type == "cuda" else "torch."
        return prefix + _NAMES.get(x.dtype, _dt.scalar_type_name(x) + "Tensor")
    device = x.device
    if isinstance(dtype, str):
        parts = dtype.split(".")
        if len(parts) not in (2, 3) or parts[-1] not in _BY_NAME or \
                parts[0] not in ("torch", "labkit") or (len(parts) == 3 and parts[1] != "cuda"):
            raise ValueError(f"invalid type: {dtype!r}")
        dtype = (CUDA_TYPES if len(parts) == 3 else _BY_NAME)[parts[-1]]
    if isinstance(dtype, _TensorTypeMeta):
        device = Device("cuda") if dtype.is_cuda else Device("cpu")
        dtype = dtype.dtype
    return x.to(device, dtype, non_blocking=non_blocking)


def _volatile(x):
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                  stacklevel=2)
    return False


tensor_method("volatile")(property(_volatile))


def range(start, end, step=1, dtype=None, device=None, requires_grad=False):
    """Deprecated: like arange but including end (float32 by default). Use arange."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    n = int(np.floor((end - start) / step)) + 1
    out = arange(n, dtype=_dt.float64) * step + start
    return out.to(dtype or _dt.float32).to(device or "cpu").requires_grad_(requires_grad)
