"""In-place forms of the elementwise ops (exp_, sigmoid_, abs_, sqrt_, tanh_, floor_, ...),
pow_ (**=) and floor_divide_/remainder_ (//=, %=).

Each goes through `inplace` (inplace.py), so it bumps the version counter, is recorded on the
base when applied to a view, and refuses a leaf that requires grad, exactly like add_. The new
values come from the op's own forward, so x.exp_() and x.exp() can never disagree.
"""
from ..function import _NULL
from ..promotion import category, fill_value
from ..tensor import Tensor, tensor_method
from . import arithmetic, math as _math, unary
from .inplace import _check_broadcasts_to, inplace


def _assign(xp, d, result):
    """d[...] = result, refusing a cast torch refuses (a float result into an int tensor)."""
    if category(result.dtype) > category(d.dtype):   # torch's canCast: int16 into uint8 is
        # fine, float into int or int into bool is not
        raise TypeError(f"result type {result.dtype} can't be cast to the desired output type "
                        f"{d.dtype}")
    d[...] = result


def _unary_inplace(name, fn_cls):
    def op(x):
        if name == "abs_" and x._data.dtype.kind == "c":   # |z| is real: torch refuses
            raise RuntimeError("In-place abs is not supported for complex tensors (as torch): "
                               "|z| is real. Use z.abs(), a new real tensor.")

        def write(d):
            _assign(x.device.xp, d, fn_cls.forward(_NULL, Tensor._make(d, x.device)))
        return inplace(x, name, write, fn_cls)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"In-place {name[:-1]}: changes x and returns it."
    tensor_method(name)(op)
    return op


exp_ = _unary_inplace("exp_", unary.Exp)
log_ = _unary_inplace("log_", unary.Log)
sqrt_ = _unary_inplace("sqrt_", unary.Sqrt)
sin_ = _unary_inplace("sin_", unary.Sin)
cos_ = _unary_inplace("cos_", unary.Cos)
tanh_ = _unary_inplace("tanh_", unary.Tanh)
sigmoid_ = _unary_inplace("sigmoid_", unary.Sigmoid)
abs_ = _unary_inplace("abs_", unary.Abs)
sign_ = _unary_inplace("sign_", unary.Sign)
sinh_ = _unary_inplace("sinh_", _math.Sinh)
tan_ = _unary_inplace("tan_", _math.Tan)
asin_ = _unary_inplace("asin_", _math.Asin)
acos_ = _unary_inplace("acos_", _math.Acos)
atan_ = _unary_inplace("atan_", _math.Atan)
cosh_ = _unary_inplace("cosh_", _math.Cosh)
log1p_ = _unary_inplace("log1p_", _math.Log1p)
expm1_ = _unary_inplace("expm1_", _math.Expm1)
log2_ = _unary_inplace("log2_", _math.Log2)
square_ = _unary_inplace("square_", _math.Square)
rsqrt_ = _unary_inplace("rsqrt_", _math.Rsqrt)
reciprocal_ = _unary_inplace("reciprocal_", _math.Reciprocal)
floor_ = _unary_inplace("floor_", _math.Floor)
ceil_ = _unary_inplace("ceil_", _math.Ceil)
trunc_ = _unary_inplace("trunc_", _math.Trunc)


@tensor_method("round_")
def round_(x, decimals=0):
    def write(d):
        _assign(x.device.xp, d, _math.Round.forward(_NULL, Tensor._make(d, x.device),
                                                      int(decimals)))
    return inplace(x, "round_", write, _math.Round, int(decimals))


def _binary_inplace(name, fn_cls, dunder):
    def op(x, other):
        if isinstance(other, Tensor) and other.device is not x.device:
            raise RuntimeError(f"{name}: expected both tensors on the same device, found "
                               f"{x.device} and {other.device}; move one with .to().")
        if isinstance(other, Tensor):
            _check_broadcasts_to(name, other, x)

        def write(d):
            _assign(x.device.xp, d, fn_cls.forward(_NULL, Tensor._make(d, x.device), other))
        return inplace(x, name, write, fn_cls, other)
    op.__name__ = op.__qualname__ = name
    tensor_method(name, dunder)(op)
    return op


floor_divide_ = _binary_inplace("floor_divide_", _math.FloorDivide, "__ifloordiv__")
remainder_ = _binary_inplace("remainder_", _math.Remainder, "__imod__")


@tensor_method("pow_", "__ipow__")
def pow_(x, exponent):
    """x ** exponent, in place (a number or a tensor exponent)."""
    cls = arithmetic.PowTensor if isinstance(exponent, Tensor) else arithmetic.Pow
    if isinstance(exponent, Tensor) and exponent.device is not x.device:
        raise RuntimeError(f"pow_: expected both tensors on the same device, found {x.device} "
                           f"and {exponent.device}; move one with .to().")
    if isinstance(exponent, Tensor):
        _check_broadcasts_to("pow_", exponent, x)
    elif x._data.dtype.kind in "iu" and isinstance(exponent, int) and \
            not isinstance(exponent, bool):
        fill_value(x._data.dtype, exponent)     # as torch: 300 does not fit a uint8 x

    def write(d):
        out = cls.forward(_NULL, Tensor._make(d, x.device), exponent)
        if d.dtype.kind == "b" and isinstance(exponent, bool):
            out = out.astype(bool)      # bool ** bool stays bool in torch, in place too
        _assign(x.device.xp, d, out)
    return inplace(x, "pow_", write, cls, exponent)
