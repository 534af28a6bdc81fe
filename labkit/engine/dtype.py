"""labkit dtypes: thin, printable names over numpy dtypes (labkit.float32 ...)."""
import numpy as np


class dtype:
    """A tensor element type; `.np` is the numpy dtype that stores it."""
    __slots__ = ("name", "np", "is_floating_point")

    def __init__(self, name):
        self.name = name
        self.np = np.dtype(name)
        self.is_floating_point = self.np.kind == "f"

    def __repr__(self):
        return f"labkit.{self.name}"

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self is other
        try:
            return self.np == np.dtype(other)
        except TypeError:
            return False

    def __hash__(self):
        return hash(self.np)


float16 = dtype("float16")
float32 = dtype("float32")
float64 = dtype("float64")
int8 = dtype("int8")
uint8 = dtype("uint8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
bool_ = dtype("bool")

_BY_NP = {d.np: d for d in (float16, float32, float64, int8, uint8, int16, int32, int64, bool_)}


def from_np(np_dtype):
    """The labkit dtype for a numpy dtype (raises a clear error for unsupported ones)."""
    d = _BY_NP.get(np_dtype)
    if d is None:
        raise TypeError(f"labkit: numpy dtype {np_dtype} is not supported; convert to float32, "
                        "float64, int64 or bool first (e.g. array.astype('float32')).")
    return d


def to_np(d):
    """numpy dtype for a labkit dtype, numpy dtype, python type or name (None stays None)."""
    if d is None or isinstance(d, np.dtype):
        return d
    if isinstance(d, dtype):
        return d.np
    if d is bool:
        return bool_.np
    return from_np(np.dtype(d)).np
