"""Small helpers shared by the op files: reading operands and fixing result dtypes."""
import numpy as np

from ..defaults import defaults
from ..promotion import cast, cast_all, result_np
from ..tensor import Tensor
from .shape import dense_copy

_f64 = np.dtype("float64")


def data(x):
    """The array behind a Tensor, or a Python scalar unchanged."""
    return x._data if isinstance(x, Tensor) else x


def float_data(x):
    """The array of x as floating point: float ops on int/bool tensors give the default dtype
    (float32 unless set_default_dtype changed it), as torch."""
    d = x._data
    if d.dtype.kind not in "fVc":   # V: bfloat16, c: complex
        if 0 in d.strides and d.size > 1:   # numpy's astype would put an expanded dim
            return dense_copy(x.device.xp, d, defaults.float)   # innermost; torch keeps it
        d = d.astype(defaults.float)
    return d


def operands(a, b):
    """a's and b's arrays (or numbers) in torch's result dtype (engine/promotion.py), with
    the common cases (same dtype; float tensor and a Python number) taken without lookups."""
    x = a._data if isinstance(a, Tensor) else a
    if isinstance(b, Tensor):
        y = b._data
        if isinstance(a, Tensor) and x.dtype is y.dtype:
            return x, y
    elif type(b) is float or type(b) is int:
        if x.dtype.kind == "f":
            return x, b
        y = b
    else:
        y = b
    _, (x, y) = cast_all(a, b)
    return x, y


def float_operands(a, b):
    """a and b converted straight to the floating result dtype of a true division: torch's
    result dtype, or float32 when both are integer or bool (uint8 255 / int8 2 is 127.5)."""
    x = a._data if isinstance(a, Tensor) else None
    if isinstance(b, Tensor) and x is not None and x.dtype is b._data.dtype and x.dtype.kind == "f":
        return x, b._data
    dt = result_np(a, b)
    if dt.kind not in "fVc":
        dt = defaults.float
    return cast(a, dt), cast(b, dt)


def require_tensor(name, other, position=1):
    """torch's signature takes only a tensor here (maximum(x, 2) is a TypeError)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position {position}) must be Tensor, not "
                        f"{type(other).__name__}. Wrap the number: labkit.tensor(value).")


def require_float(name, x):
    """torch implements some float-only ops for no integer or bool dtype: refuse as it does,
    rather than computing in float32 (code that runs here would then fail under torch)."""
    if x._data.dtype.kind not in "fV":
        raise NotImplementedError(
            f"{name}: not implemented for {x.dtype} tensors (as in torch). Convert first: "
            f"x.float().")


def refuse_bool(name, x, exc=NotImplementedError):
    if x._data.dtype.kind == "b":
        raise exc(f"{name}: not implemented for bool tensors (as in torch). Convert first, "
                  "e.g. mask.long() or mask.float().")


def as_tensor_like(x, ref):
    """A scalar or array operand as a constant Tensor on ref's device (for torch.where etc.)."""
    if isinstance(x, Tensor):
        return x
    arr = ref.device.xp.asarray(x)
    if arr.dtype == _f64 and not isinstance(x, np.ndarray):
        arr = arr.astype(ref._data.dtype if ref._data.dtype.kind in "fV" else defaults.float)
    return Tensor._make(arr, ref.device)
