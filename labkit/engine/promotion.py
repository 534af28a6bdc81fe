"""Type promotion: torch's `result_type` rules as one table, used by every op.

torch decides a result dtype in two steps (numpy decides differently, so we never let numpy
choose):
1. promote_types(a, b) for two dtypes: within a category (bool < integer < floating <
   complex) the wider type (uint8 with int8 gives int16); across categories the higher
   category's type, whatever its width (int64 with float16 gives float16), but complex with
   a wider float widens (complex64 with float64 gives complex128).
2. result_type(*operands) groups the operands by priority: dimensioned tensors, then 0-d
   tensors, then Python scalars (bool -> bool, int -> int64, float -> float32, the default
   dtype, complex -> complex64, its complex counterpart). A lower-priority group changes the
   result only if it is of a higher category:
   int32 tensor + 0-d float64 tensor -> float64, but float32 tensor + 0-d float64 -> float32,
   and uint8 tensor + 1000 -> uint8 (the scalar wraps around, as in torch). A complex lower
   group makes a float higher one complex of its width: float64 tensor + 1j -> complex128.
"""
import numpy as np

from . import dtype as _dt
from .defaults import defaults
from .tensor import Tensor

_b, _i64 = np.dtype(bool), np.dtype("int64")
_KINDS = {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2, "c": 3}   # "V": bfloat16 (ml_dtypes)
_c64, _c128 = np.dtype("complex64"), np.dtype("complex128")
_NP = [d.np for d in (_dt.bool_, _dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64,
                      _dt.float16, _dt.float32, _dt.float64)] + [_c64, _c128]


def _pair(a, b):
    ka, kb = _KINDS[a.kind], _KINDS[b.kind]
    if ka != kb and not (ka + kb == 5):   # complex with float: numpy's widening is torch's
        return a if ka > kb else b
    return np.promote_types(a, b)  # same category: numpy's widening agrees with torch's


# (numpy dtype, numpy dtype) -> numpy dtype, for every pair labkit supports
PROMOTE = {(a, b): _pair(a, b) for a in _NP for b in _NP}


def add_bfloat16(bf16):
    """Enter bfloat16 into the table when ml_dtypes loads: with float16 it gives float32 (as
    torch: neither holds the other), with a wider float that one, with int/bool bfloat16."""
    f16, f32 = np.dtype("float16"), np.dtype("float32")
    PROMOTE[bf16, bf16] = bf16
    for d in _NP:
        p = f32 if d == f16 else (d if d.kind in "fc" else bf16)
        PROMOTE[bf16, d] = PROMOTE[d, bf16] = p


def category(np_dtype):
    """0 for bool, 1 for integers, 2 for floating point, 3 for complex."""
    return _KINDS[np_dtype.kind]


def promote_types(a, b):
    """The smallest labkit dtype both a and b convert to without losing their category
    (torch.promote_types). Accepts labkit dtypes, numpy dtypes or names."""
    return _dt.from_np(PROMOTE[_dt.to_np(a), _dt.to_np(b)])


def python_number(x):
    """The Python number torch reads a numpy scalar as: np.float64(2.5) is 2.5, a Python float
    (x * np.sqrt(d) stays float32), np.int64 an int, and np.bool_ a float (as torch does)."""
    if isinstance(x, np.generic):
        return float(x) if isinstance(x, (np.floating, np.bool_)) else \
            complex(x) if isinstance(x, np.complexfloating) else int(x)
    return x


def _scalar_np(x):
    x = python_number(x)
    if isinstance(x, bool):
        return _b
    if isinstance(x, (int, np.integer)):
        if not -0x8000000000000000 <= x <= 0x7FFFFFFFFFFFFFFF:
            raise OverflowError(f"int too big to convert: {x} does not fit int64, the widest "
                                "integer a tensor holds (as torch). Use a float: float(x).")
        return _i64
    if isinstance(x, (float, np.floating)):
        return defaults.float   # float32 unless set_default_dtype changed it
    if isinstance(x, complex):
        return _dt.from_np(defaults.float).to_complex().np   # complex64 (complex128 for float64)
    raise TypeError(f"result_type: expected tensors or Python numbers, got {type(x).__name__}. "
                    "Wrap arrays first: labkit.tensor(value).")


def _combine(higher, lower):
    """torch's combine_categories: the lower-priority group counts only if of higher category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    hk, lk = _KINDS[higher.kind], _KINDS[lower.kind]
    if lk == 3 and hk < 3:        # a complex lower group: complex of a float higher's width
        if higher.kind == "V":    # (bfloat16 has none: torch gives complex64)
            return _c64
        return _dt.from_np(higher).to_complex().np if hk == 2 else lower
    if hk >= 2:
        return higher
    if hk == 0 or lk == 2:
        return PROMOTE[higher, lower]
    return higher


def result_np(*operands):
    """torch's result dtype (as a numpy dtype) for Tensors and Python numbers."""
    dim = zero = scal = None
    for x in operands:
        if isinstance(x, (Tensor, np.ndarray)):   # a numpy array counts as a tensor (as torch)
            a = x._data if isinstance(x, Tensor) else x
            d = a.dtype
            if a.ndim:
                dim = d if dim is None else PROMOTE[dim, d]
            else:
                zero = d if zero is None else PROMOTE[zero, d]
        elif x is not None:
            d = _scalar_np(x)
            scal = d if scal is None else PROMOTE[scal, d]
    return _combine(dim, _combine(zero, scal))


def result_type(*operands):
    """torch.result_type for any number of Tensors and Python numbers, as a labkit dtype."""
    if not operands:
        raise TypeError("result_type: expected at least one tensor or number.")
    return _dt.from_np(result_np(*operands))


def cast(x, np_dtype):
    """x's array converted to np_dtype (a Python number stays a number, or becomes a numpy
    scalar of np_dtype that wrapped around as torch's does: uint8 tensor + 300 adds 44).
    The result goes straight into an array op with others of np_dtype."""
    if isinstance(x, (Tensor, np.ndarray)):
        d = x._data if isinstance(x, Tensor) else x
        return d if d.dtype == np_dtype else d.astype(np_dtype)
    if x is None:
        return None
    x = python_number(x)
    if np_dtype.kind in "iu" and not isinstance(x, bool):
        info = np.iinfo(np_dtype)
        if not info.min <= x <= info.max:
            return np.asarray(x).astype(np_dtype)[()]
    elif np_dtype.kind == "b":
        return bool(x)
    elif np_dtype.kind == "V":       # bfloat16: numpy would promote a Python float to float32
        return np_dtype.type(x)
    return x


def fill_value(np_dtype, value):
    """A Python number stored into a tensor of np_dtype (fill_, x[i] = v, masked_fill), as
    torch: a float is truncated, a negative int wraps into an unsigned type, and a value
    that does not fit raises instead of wrapping silently."""
    kind = np_dtype.kind
    if kind == "c":
        return complex(value)
    if isinstance(value, (complex, np.complexfloating)):
        if value.imag != 0:
            raise RuntimeError(f"value cannot be converted to type "
                               f"{_dt.scalar_type_name(np_dtype, c_type=True)} "
                               f"without overflow: {value} has an imaginary part and the "
                               f"tensor is {np_dtype} (as torch). Make the tensor complex "
                               "first: x = x.to(labkit.complex64).")
        value = value.real
    if kind == "b" or isinstance(value, (bool, np.bool_)):
        return bool(value) if kind == "b" else int(value)
    if kind in "fV":     # V: bfloat16
        return float(value)
    info = np.iinfo(np_dtype)
    lo = -info.max if kind == "u" and isinstance(value, (int, np.integer)) else info.min
    if not lo <= value <= info.max:      # nan fails this too
        raise RuntimeError(f"value {value} cannot be converted to type {np_dtype} without "
                           f"overflow (it holds {info.min} to {info.max}). Convert the tensor "
                           "first, e.g. x = x.long() or x.float().")
    return int(value) % (info.max + 1) if kind == "u" and value < 0 else int(value)


def number_bound(np_dtype, value):
    """A Python number that meets a tensor of integer np_dtype in where/clamp: torch converts
    it to the dtype, refusing one that does not fit (fill_value's rule); anything else (a
    tensor, None, a float that makes the result floating) passes unchanged."""
    if np_dtype.kind in "iu" and isinstance(value, (int, np.integer)) \
            and not isinstance(value, (bool, np.bool_)):
        return fill_value(np_dtype, value)
    return value


def cast_all(*operands):
    """(np result dtype, operand arrays or numbers cast to it): what a promoting op computes on."""
    dt = result_np(*operands)
    return dt, tuple(cast(x, dt) for x in operands)


def check_grad_dtype(name, x, dtype):
    """sum/prod/cumsum(dtype=int) of a tensor autograd records: torch refuses (an integer
    result cannot carry a gradient) instead of silently dropping the graph."""
    from .grad_mode import mode
    if mode.enabled and x._rg and not _dt.to_np(dtype).kind in "fVc":
        raise RuntimeError(f"{name}(dtype={dtype}): Autograd not support dtype {dtype}: x "
                           "requires grad and an integer or bool result cannot carry a "
                           f"gradient. Use x.detach().{name}(dtype=...), or a float dtype.")
