"""torch.finfo / torch.iinfo: the limits of a dtype (eps for numerical guards, min for masks)."""
import numpy as np

from .dtype import dtype as _dtype


class finfo:
    """Limits of a floating dtype: bits, eps, max, min, tiny (= smallest_normal), resolution."""

    def __init__(self, type=None):
        if type is None:
            from .defaults import get_default_dtype
            type = get_default_dtype()
        if not isinstance(type, _dtype) or not type.is_floating_point:
            raise TypeError(f"torch.finfo() requires a floating point input type, got {type!r}; "
                            "use torch.iinfo for integer types")
        if type.name == "bfloat16":            # numpy's finfo does not know ml_dtypes' types
            import ml_dtypes
            info = ml_dtypes.finfo(type.np)
        else:
            info = np.finfo(type.np)
        self.dtype = type.name
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype: bits, max, min."""

    def __init__(self, type):
        if not isinstance(type, _dtype) or type.is_floating_point or type.name == "bool":
            raise TypeError(f"torch.iinfo() requires an integer input type, got {type!r}; "
                            "use torch.finfo for floating point types")
        info = np.iinfo(type.np)
        self.dtype, self.bits, self.max, self.min = type.name, info.bits, int(info.max), int(info.min)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
