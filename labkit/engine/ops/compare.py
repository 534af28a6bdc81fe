"""Comparisons and logic: they give bool tensors and are not differentiable."""
from ..function import Function
from ..tensor import Tensor, tensor_method
from .common import data, operands
from . import rules


def _compare(name, ufunc_name):
    class Compare(Function):
        op_name = name

        @staticmethod
        def forward(ctx, a, b):
            x, y = operands(a, b)
            return getattr(a.device.xp if isinstance(a, Tensor) else b.device.xp, ufunc_name)(x, y)

        vmap = classmethod(rules.elementwise)
    Compare.__name__ = Compare.__qualname__ = name.capitalize()
    return Compare


def _bind(name, dunder, ufunc_name, reflected=None):
    cls = _compare(name, ufunc_name)

    def op(a, b):
        return cls.apply(a, b)
    op.__name__ = name
    op.__doc__ = f"Elementwise {name}: a bool tensor."
    tensor_method(name, dunder)(op)
    if reflected:
        setattr(Tensor, reflected, op)
    return op


eq = _bind("eq", "__eq__", "equal")
ne = _bind("ne", "__ne__", "not_equal")
lt = _bind("lt", "__lt__", "less")
le = _bind("le", "__le__", "less_equal")
gt = _bind("gt", "__gt__", "greater")
ge = _bind("ge", "__ge__", "greater_equal")
logical_and = _bind("logical_and", "__and__", "logical_and", "__rand__")
logical_or = _bind("logical_or", "__or__", "logical_or", "__ror__")
logical_xor = _bind("logical_xor", "__xor__", "logical_xor", "__rxor__")


class Not(Function):
    @staticmethod
    def forward(ctx, a):
        if a._data.dtype.kind != "b":
            raise TypeError(f"~ (logical not) needs a bool tensor, got {a.dtype}; "
                            "compare first, e.g. ~(x > 0).")
        return ~a._data


@tensor_method("logical_not", "__invert__")
def logical_not(a):
    return Not.apply(a)


class _Test(Function):
    fn = None

    @classmethod
    def forward(cls, ctx, a):
        return getattr(a.device.xp, cls.fn)(a._data)


class IsNan(_Test):
    fn = "isnan"


class IsInf(_Test):
    fn = "isinf"


class IsFinite(_Test):
    fn = "isfinite"


@tensor_method("isnan")
def isnan(a):
    return IsNan.apply(a)


@tensor_method("isinf")
def isinf(a):
    return IsInf.apply(a)


@tensor_method("isfinite")
def isfinite(a):
    return IsFinite.apply(a)


class Any(Function):
    """Whether any element (along dim) is nonzero: an op, so a tracer sees it."""
    fn = "any"

    @classmethod
    def forward(cls, ctx, a, dim, keepdim):
        return a.device.xp.asarray(getattr(a._data, cls.fn)(axis=dim, keepdims=keepdim))


class All(Any):
    fn = "all"


@tensor_method("any")
def any(a, dim=None, keepdim=False):
    return Any.apply(a, dim, keepdim)


@tensor_method("all")
def all(a, dim=None, keepdim=False):
    return All.apply(a, dim, keepdim)


@tensor_method("allclose")
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when |a - b| <= atol + rtol * |b| everywhere (a Python bool)."""
    return bool(a.device.xp.allclose(a._data, data(b), rtol=rtol, atol=atol, equal_nan=equal_nan))


@tensor_method("equal")
def equal(a, b):
    """True when both have the same shape and the same values."""
    return tuple(a.shape) == tuple(b.shape) and bool((a._data == b._data).all())
