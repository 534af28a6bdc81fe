"""Binary ops across every dtype pair (the type-promotion fuzzer): an op, two operands of any of
bool/uint8/int8/int16/int32/int64/float16/bfloat16/float32/float64/complex64/complex128, each a
dimensioned tensor, a 0-d tensor or (the right one) a Python int/float/bool/complex, and the
in-place forms, whose result must fit the left operand's dtype (torch: "result type Float can't
be cast to the desired output type Long"). Values include 0 (integer division and remainder by
zero raise in torch), negatives, the ends of each integer range, and inf/nan.

`apply(L, op, a, b)` runs one op in library L; `operand(L, spec)` builds an operand.
"""
import math
import operator

import numpy as np

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]

BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor, "lshift": operator.lshift,
    "rshift": operator.rshift, "eq": operator.eq, "ne": operator.ne, "lt": operator.lt,
    "le": operator.le, "gt": operator.gt, "ge": operator.ge,
    "add_alpha": lambda a, b: a.add(b, alpha=2), "sub_alpha": lambda a, b: a.sub(b, alpha=3),
    "div_floor": lambda a, b: a.div(b, rounding_mode="floor"),
    "div_trunc": lambda a, b: a.div(b, rounding_mode="trunc"),
    "fmod": lambda a, b: a.fmod(b), "remainder": lambda a, b: a.remainder(b),
    "atan2": lambda a, b: a.atan2(b), "copysign": lambda a, b: a.copysign(b),
    "maximum": lambda a, b: a.maximum(b), "minimum": lambda a, b: a.minimum(b),
    "fmax": lambda a, b: a.fmax(b), "logical_and": lambda a, b: a.logical_and(b),
    "logical_xor": lambda a, b: a.logical_xor(b), "hypot": lambda a, b: a.hypot(b),
    "float_power": lambda a, b: a.float_power(b), "xlogy": lambda a, b: a.xlogy(b),
    "where": lambda a, b: _lib(a).where(_lib(a).ones(a.shape, dtype=_lib(a).bool), a, b),
    "bitwise_left_shift": lambda a, b: a.bitwise_left_shift(b),
    "isclose": lambda a, b: a.isclose(b), "mul_method": lambda a, b: a.mul(b),
    "rsub": lambda a, b: b - a, "rtruediv": lambda a, b: b / a, "rpow": lambda a, b: b ** a,
    "rfloordiv": lambda a, b: b // a, "rmod": lambda a, b: b % a, "rlshift": lambda a, b: b << a,
    "rand": lambda a, b: b & a, "radd": lambda a, b: b + a, "rlt": lambda a, b: b < a,
}
INPLACE = {
    "iadd": operator.iadd, "isub": operator.isub, "imul": operator.imul,
    "itruediv": operator.itruediv, "ifloordiv": operator.ifloordiv, "imod": operator.imod,
    "ipow": operator.ipow, "iand": operator.iand, "ior": operator.ior, "ixor": operator.ixor,
    "ilshift": operator.ilshift, "irshift": operator.irshift,
    "add_": lambda a, b: a.add_(b, alpha=2), "sub_": lambda a, b: a.sub_(b),
    "mul_": lambda a, b: a.mul_(b), "div_": lambda a, b: a.div_(b),
    "div_floor_": lambda a, b: a.div_(b, rounding_mode="floor"),
    "div_trunc_": lambda a, b: a.div_(b, rounding_mode="trunc"),
    "fmod_": lambda a, b: a.fmod_(b), "remainder_": lambda a, b: a.remainder_(b),
    "pow_": lambda a, b: a.pow_(b), "atan2_": lambda a, b: a.atan2_(b),
    "copysign_": lambda a, b: a.copysign_(b), "hypot_": lambda a, b: a.hypot_(b),
    "logical_and_": lambda a, b: a.logical_and_(b), "eq_": lambda a, b: a.eq_(b),
    "lt_": lambda a, b: a.lt_(b), "clamp_min_": lambda a, b: a.clamp_min_(b),
    "lerp_": lambda a, b: a.lerp_(b, 0.5), "maximum_copy": lambda a, b: a.copy_(a.maximum(b)),
    "xlogy_": lambda a, b: a.xlogy_(b), "float_power_": lambda a, b: a.float_power_(b),
    "masked_fill_": lambda a, b: a.masked_fill_(a != 0, b),
    "fill_": lambda a, b: a.fill_(b), "copy_": lambda a, b: a.copy_(b),
    "setitem": lambda a, b: a.__setitem__(..., b) or a,
    "index_fill_": lambda a, b: a.index_fill_(-1, _lib(a).tensor([0] if a.shape[-1] else [],
                                                                 dtype=_lib(a).int64), b),
}
# operands that do not take a Python number on the right (torch's signatures want a tensor)
TENSOR_ONLY = {"maximum", "minimum", "fmax", "hypot", "logical_and", "logical_xor", "atan2",
               "copysign", "isclose", "maximum_copy", "hypot_", "atan2_", "copysign_",
               "logical_and_", "lerp_", "copy_"}

# (no minimum of int32/int64: min // -1 traps in C, and torch would crash, not raise)
VALUES = {
    "bool": [True, False],
    "uint8": [0, 1, 2, 3, 5, 127, 128, 255],
    "int8": [-128, -3, -1, 0, 1, 2, 7, 127],
    "int16": [-32768, -3, -1, 0, 1, 2, 7, 32767],
    "int32": [-2 ** 31 + 1, -3, -1, 0, 1, 2, 31, 2 ** 31 - 1],
    "int64": [-2 ** 63 + 1, -3, -1, 0, 1, 2, 63, 2 ** 63 - 1],
    "float": [-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, math.inf, -math.inf, math.nan],
}
SCALARS = [0, 1, -1, 2, 3, 7, 64, 300, -200, 2 ** 40, 0.0, 0.5, -1.5, 2.0, 1e10, math.inf,
           math.nan, True, False, 1j, 2 - 1j, 0j]


def _lib(t):
    import labkit
    return labkit if isinstance(t, labkit.Tensor) else __import__("torch")


def values_for(dtype):
    if dtype in VALUES:
        return VALUES[dtype]
    return VALUES["float"] + ([1 + 1j, -0.5j] if dtype.startswith("complex") else [])


def operand(L, spec):
    """spec: ("scalar", number) or (dtype, shape, values)."""
    if spec[0] == "scalar":
        return spec[1]
    dtype, shape, vals = spec
    if dtype == "bfloat16":
        return L.tensor(np.array(vals, dtype=np.float32).reshape(shape)).to(L.bfloat16)
    arr = np.array(vals, dtype=object).reshape(shape)
    return L.tensor(arr.tolist(), dtype=getattr(L, dtype))


def apply(L, op, a_spec, b_spec):
    a, b = operand(L, a_spec), operand(L, b_spec)
    if op in INPLACE:
        out = INPLACE[op](a, b)
        assert out is a or op == "setitem"
        return a, a._version
    return BINARY[op](a, b)
