"""torch.set_float32_matmul_precision / get_float32_matmul_precision: a hint that lets torch
use TF32 or bfloat16 inside float32 matmuls on GPUs that have them. labkit's matmuls are
numpy's/cupy's full float32, so the setting is recorded (and validated as torch does) but
changes no result -- as on torch's CPU."""
import warnings

_PRECISION = ["highest"]


def get_float32_matmul_precision():
    return _PRECISION[0]


def set_float32_matmul_precision(precision):
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _PRECISION[0] = precision
