"""What the JIT knows about each engine op: its printed name, whether it is elementwise (so it
can join a fused group), and, for the common ones, the numpy call that computes it on arrays.

An op without an entry still works: the executor calls its Function's forward on light
stand-ins (see runtime.forward_caller). An entry only makes it faster, and fusable.
"""
import re

from ..engine.function import Function
from ..engine.ops import (activation, arithmetic, compare, convert, inplace, linalg, linear,
                          reduce, select, shape, unary)


def snake(name):
    """'CrossEntropy' -> 'cross_entropy'."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.lstrip("_")).lower()


_NAMES = {
    arithmetic.Rsub: "rsub", arithmetic.PowTensor: "pow", arithmetic.RPow: "rpow",
    unary.ClampMin: "clamp_min", unary.ClampMax: "clamp_max", unary.TanhGrad: "tanh_backward",
    unary.SigmoidGrad: "sigmoid_backward", reduce.SumAll: "sum", reduce.MeanAll: "mean",
    reduce.MaxAll: "max", reduce.MinAll: "min", shape.SqueezeDim: "squeeze",
    shape.SqueezeDims: "squeeze", convert.ToCopy: "to", inplace._Fill: "fill_",
    linalg.MatMul: "matmul",
    inplace._Copy: "copy_", shape.Reshape: "reshape",
}


def kind_of(cls):
    """The name a node of this Function prints with."""
    name = _NAMES.get(cls)
    if name is None:
        name = getattr(cls, "op_name", None) or snake(cls.__name__)
    return name


# numpy ufunc computing each elementwise op, applied to the args in order
UFUNCS = {
    arithmetic.Add: "add", arithmetic.Sub: "subtract", arithmetic.Rsub: "subtract",
    arithmetic.Mul: "multiply", arithmetic.Div: "true_divide", arithmetic.Neg: "negative",
    unary.Exp: "exp", unary.Log: "log", unary.Sqrt: "sqrt", unary.Sin: "sin", unary.Cos: "cos",
    unary.Tanh: "tanh", unary.Abs: "absolute", unary.Sign: "sign",
    select.Maximum: "maximum", select.Minimum: "minimum", compare.Not: "logical_not",
    compare.IsNan: "isnan", compare.IsInf: "isinf", compare.IsFinite: "isfinite",
}


def _class_of(op):
    """The Function class a compare op (a closure made by compare._bind) applies."""
    return next(c.cell_contents for c in op.__closure__ if isinstance(c.cell_contents, type))


for _name, _ufunc in [("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                      ("gt", "greater"), ("ge", "greater_equal"), ("logical_and", "logical_and"),
                      ("logical_or", "logical_or"), ("logical_xor", "logical_xor")]:
    UFUNCS[_class_of(getattr(compare, _name))] = _ufunc

# x ** p for the exponents numpy's ndarray.__pow__ computes with a faster ufunc (same bits)
POW_FAST = {2: "square", 0.5: "sqrt", 1: "positive", -1: "reciprocal"}

ELEMENTWISE = set(UFUNCS) | {arithmetic.Pow, unary.Relu, unary.ClampMin, unary.ClampMax,
                             unary.Clamp, unary.TanhGrad, unary.SigmoidGrad, unary.Sigmoid,
                             activation.LeakyRelu, select.Where}

MATMUL = {linalg.Mm, linalg.MatMul, linalg.Mv}
LINEAR = linear.Linear


class TanhDeriv(Function):
    """1 - y**2, tanh's derivative from its output y: what tanh_backward multiplies by."""

    @staticmethod
    def forward(ctx, y):
        d = y._data
        return 1 - d * d


class SigmoidDeriv(Function):
    """y (1 - y), sigmoid's derivative from its output y (in the engine's order)."""

    @staticmethod
    def forward(ctx, y):
        d = y._data
        return d * (1 - d)


DERIVS = {unary.TanhGrad: TanhDeriv, unary.SigmoidGrad: SigmoidDeriv}
