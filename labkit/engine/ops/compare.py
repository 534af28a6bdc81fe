"""Comparisons and logic: they give bool tensors and are not differentiable."""
import numpy as np

from ..dtype import from_np
from ..function import Function
from ..promotion import cast_all
from ..tensor import Tensor, tensor_method
from .common import data, operands, require_tensor
from .table import Numpy
from . import rules


class _Compare(Function):
    """a <op> b elementwise: a bool tensor (either side may be a Python number)."""
    ufunc = None
    arity, elementwise = 2, True

    @classmethod
    def forward(cls, ctx, a, b):
        x, y = operands(a, b)
        return getattr(a.device.xp if isinstance(a, Tensor) else b.device.xp, cls.ufunc)(x, y)

    vmap = classmethod(rules.elementwise)


class Eq(_Compare):
    op_name, ufunc = "eq", "equal"
    numpy, cuda, onnx = Numpy("equal({0}, {1}, {out})"), "({0} == {1})", "Equal"


class Ne(_Compare):
    op_name, ufunc = "ne", "not_equal"
    numpy, cuda = Numpy("not_equal({0}, {1}, {out})"), "({0} != {1})"


class Lt(_Compare):
    op_name, ufunc = "lt", "less"
    numpy, cuda, onnx = Numpy("less({0}, {1}, {out})"), "({0} < {1})", "Less"


class Le(_Compare):
    op_name, ufunc = "le", "less_equal"
    numpy, cuda, onnx = Numpy("less_equal({0}, {1}, {out})"), "({0} <= {1})", "LessOrEqual"


class Gt(_Compare):
    op_name, ufunc = "gt", "greater"
    numpy, cuda, onnx = Numpy("greater({0}, {1}, {out})"), "({0} > {1})", "Greater"


class Ge(_Compare):
    op_name, ufunc = "ge", "greater_equal"
    numpy, cuda, onnx = Numpy("greater_equal({0}, {1}, {out})"), "({0} >= {1})", "GreaterOrEqual"


class LogicalAnd(_Compare):
    op_name, ufunc = "logical_and", "logical_and"
    numpy, cuda, onnx = Numpy("logical_and({0}, {1}, {out})"), "({0} && {1})", "And"


class LogicalOr(_Compare):
    op_name, ufunc = "logical_or", "logical_or"
    numpy, cuda, onnx = Numpy("logical_or({0}, {1}, {out})"), "({0} || {1})", "Or"


class LogicalXor(_Compare):
    op_name, ufunc = "logical_xor", "logical_xor"
    numpy, cuda, onnx = Numpy("logical_xor({0}, {1}, {out})"), "(!{0} != !{1})", "Xor"


_COMPARABLE = (Tensor, int, float, complex, np.generic)   # not arrays: torch: TypeError


def _no_order(name):
    raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'ComplexFloat': complex "
                              "numbers have no order. Compare the real parts (or abs()) instead.")


def _bind(cls, dunder=None):
    ordered = cls.ufunc not in ("equal", "not_equal") and not cls.op_name.startswith("logical")

    def op(a, b):
        if cls.op_name.startswith("logical"):
            require_tensor(cls.op_name, b)
        if ordered and type(b) is complex:
            _no_order(cls.op_name)
        return cls.apply(a, b)

    def compare(a, b):
        """As torch's: NotImplemented for anything else, so x == None is False, not a tensor,
        and x < 'a' is Python's TypeError. A complex number compares for == and != only."""
        if ordered and type(b) is complex:
            _no_order(cls.op_name)
        return cls.apply(a, b) if isinstance(b, _COMPARABLE) else NotImplemented
    op.__name__ = cls.op_name
    op.__doc__ = f"Elementwise {cls.op_name}: a bool tensor."
    tensor_method(cls.op_name)(op)
    if dunder:
        tensor_method(dunder)(compare)
    return op


eq = _bind(Eq, "__eq__")
ne = _bind(Ne, "__ne__")
lt = _bind(Lt, "__lt__")
le = _bind(Le, "__le__")
gt = _bind(Gt, "__gt__")
ge = _bind(Ge, "__ge__")
logical_and = _bind(LogicalAnd)
logical_or = _bind(LogicalOr)
logical_xor = _bind(LogicalXor)


class _Bitwise(Function):
    """a & b, a | b, a ^ b, a << b, a >> b: bitwise on integers (logical on bools) in torch's
    result dtype (int8 & 300 wraps 300 to 44 first, bool & 2 is int64); not for floats."""
    arity, elementwise = 2, True

    @classmethod
    def forward(cls, ctx, a, b):
        dt, (x, y) = cast_all(a, b)
        if dt.kind not in "biu" or (dt.kind == "b" and cls.ufunc.endswith("shift")):
            name = from_np(dt if dt.kind != "b" else np.dtype("int64"))
            raise NotImplementedError(
                f"{cls.op_name}: not implemented for {name} operands (as in torch: "
                f"{cls.dunder} works on integer and bool tensors only). Convert first, e.g. "
                "x.long(), or use logical_and/logical_or/logical_xor for a truth value.")
        xp = (a if isinstance(a, Tensor) else b).device.xp
        out = xp.asarray(getattr(xp, cls.ufunc)(x, y))
        return out if out.dtype == dt else out.astype(dt)

    vmap = classmethod(rules.elementwise)


class BitwiseAnd(_Bitwise):
    op_name, ufunc, dunder = "bitwise_and", "bitwise_and", "&"
    cuda = "({0} & {1})"


class BitwiseOr(_Bitwise):
    op_name, ufunc, dunder = "bitwise_or", "bitwise_or", "|"
    cuda = "({0} | {1})"


class BitwiseXor(_Bitwise):
    op_name, ufunc, dunder = "bitwise_xor", "bitwise_xor", "^"
    cuda = "({0} ^ {1})"


class BitwiseLeftShift(_Bitwise):
    op_name, ufunc, dunder = "bitwise_left_shift", "left_shift", "<<"
    cuda = "({0} << {1})"


class BitwiseRightShift(_Bitwise):
    op_name, ufunc, dunder = "bitwise_right_shift", "right_shift", ">>"
    cuda = "({0} >> {1})"


def _bind_bitwise(cls, dunder, reflected):
    def op(a, b):
        return cls.apply(a, b)

    def rop(a, b):
        return cls.apply(b, a)
    op.__name__ = cls.op_name
    op.__doc__ = f"Elementwise {cls.dunder}: bitwise on integers, logical on bools."
    tensor_method(cls.op_name, dunder)(op)
    tensor_method(reflected)(rop)
    return op


bitwise_and = _bind_bitwise(BitwiseAnd, "__and__", "__rand__")
bitwise_or = _bind_bitwise(BitwiseOr, "__or__", "__ror__")
bitwise_xor = _bind_bitwise(BitwiseXor, "__xor__", "__rxor__")
bitwise_left_shift = _bind_bitwise(BitwiseLeftShift, "__lshift__", "__rlshift__")
bitwise_right_shift = _bind_bitwise(BitwiseRightShift, "__rshift__", "__rrshift__")


class BitwiseNot(Function):
    op_name, arity, elementwise = "bitwise_not", 1, True
    numpy = Numpy("invert({0}, {out})")

    @staticmethod
    def cuda(operands, node, ctype):
        return f"(!{operands[0]})" if ctype == "bool" else f"(~{operands[0]})"

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype.kind not in "biu":
            raise NotImplementedError(f"bitwise_not: not implemented for {a.dtype} (as in "
                                      "torch); it works on integer and bool tensors.")
        return ~a._data


@tensor_method("bitwise_not")
def bitwise_not(a):
    return BitwiseNot.apply(a)


@tensor_method("__invert__")
def _invert(a):
    """~x: logical not of a bool tensor, bitwise not of an integer one."""
    if a._data.dtype.kind not in "biu":
        raise TypeError(f"~ (operator.invert) is only implemented on integer and bool tensors, "
                        f"got {a.dtype}; for a mask use ~(x > 0) or x.logical_not().")
    return BitwiseNot.apply(a)


class LogicalNot(Function):
    op_name, arity, elementwise = "logical_not", 1, True
    numpy, cuda, onnx = Numpy("logical_not({0}, {out})"), "(!{0})", "Not"

    @staticmethod
    def forward(ctx, a):
        return a.device.xp.logical_not(a._data)


@tensor_method("logical_not")
def logical_not(a):
    return LogicalNot.apply(a)


class _Test(Function):
    fn = None
    arity, elementwise = 1, True

    @classmethod
    def forward(cls, ctx, a):
        return getattr(a.device.xp, cls.fn)(a._data)

    vmap = classmethod(rules.elementwise)


class IsNan(_Test):
    fn = "isnan"
    numpy, cuda = Numpy("isnan({0}, {out})"), "isnan({0})"


class IsInf(_Test):
    fn = "isinf"
    numpy, cuda = Numpy("isinf({0}, {out})"), "isinf({0})"


class IsFinite(_Test):
    fn = "isfinite"
    numpy, cuda = Numpy("isfinite({0}, {out})"), "isfinite({0})"


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
        from .reduce import _dims
        # as torch: dim=() reduces nothing here; a uint8 input gives uint8 (0 or 1)
        dims = _dims(dim, a._data.ndim, empty_is_all=False) if dim is not None else None
        out = a.device.xp.asarray(getattr(a._data, cls.fn)(axis=dims, keepdims=keepdim))
        return out.astype(a._data.dtype) if a._data.dtype.kind == "u" else out


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
    if isinstance(b, Tensor) and b._data.dtype != a._data.dtype:
        raise RuntimeError(f"allclose: {a.dtype} did not match {b.dtype} (torch compares only "
                           f"equal dtypes). Convert one first: a.allclose(b.to(a.dtype)).")
    return bool(a.device.xp.allclose(a._data, data(b), rtol=rtol, atol=atol, equal_nan=equal_nan))


@tensor_method("equal")
def equal(a, b):
    """True when both have the same shape and the same values."""
    return tuple(a.shape) == tuple(b.shape) and bool((a._data == b._data).all())
