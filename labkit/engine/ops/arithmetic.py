"""+ - * / ** and negation, with broadcasting (undone in backward by the engine's sum_to)."""
import cmath
import math

import numpy as np

from ..promotion import fill_value, python_number, result_type
from ..function import Function, _call, binary_op, unary_op
from ..creation import zeros_like
from ..tensor import Tensor, tensor_method
from .common import float_operands, operands
from .table import Numpy
from . import rules
from .complex import cj


def _check_bool(name, *xs):
    for x in xs:
        if (isinstance(x, Tensor) and x._data.dtype.kind == "b") or isinstance(x, bool):
            raise RuntimeError(
                f"{name}: not supported on bool tensors. To invert a mask use ~mask or "
                "mask.logical_not(); to do arithmetic, convert first with mask.float().")


def _same_kind(grad, x):
    """x (None, a number or an array) times grad computes on arrays as torch would."""
    return x is None or (x.dtype is grad.dtype if type(x) is type(grad)
                         else type(x) in (float, int) and grad.dtype.kind == "f")

class Add(Function):
    node_name = "AddBackward0"
    arity, elementwise = 2, True
    number_edges = True        # next_functions: (None, 0) for a number, as torch
    forward_on_arrays = True
    numpy, cuda, onnx = Numpy("add({0}, {1}, {out})"), "({0} + {1})", "Add"

    @staticmethod
    def forward(ctx, a, b):
        x = a._data                            # a is a tensor: __radd__ swaps
        if isinstance(b, Tensor):
            if x.dtype is b._data.dtype:       # the hot path: no promotion to look up
                return x + b._data
        elif type(b) is float and x.dtype.kind == "f":
            return x + b
        x, y = operands(a, b)
        return x + y

    @staticmethod
    def backward(ctx, grad):
        return grad, grad

    @staticmethod
    def backward_arrays(ctx, grad):
        return grad, grad

    @staticmethod
    def jvp(args, tangents, out):
        return rules.fit(rules.total(*tangents), out)

    vmap = classmethod(rules.elementwise)


class Sub(Function):
    node_name = "SubBackward0"
    arity, elementwise = 2, True
    number_edges = True        # next_functions: (None, 0) for a number, as torch
    forward_on_arrays = True
    numpy, cuda, onnx = Numpy("subtract({0}, {1}, {out})"), "({0} - {1})", "Sub"

    @staticmethod
    def forward(ctx, a, b):
        if isinstance(b, Tensor) and isinstance(a, Tensor):
            x, y = a._data, b._data
            if x.dtype is y.dtype and x.dtype.kind == "f":
                return x - y                   # the hot path: no bools, nothing to promote
        _check_bool("sub", a, b)
        x, y = operands(a, b)
        return x - y

    @staticmethod
    def backward(ctx, grad):
        return grad, (-grad if ctx.needs_input_grad[1] else None)

    @staticmethod
    def backward_arrays(ctx, grad):
        return grad, (-grad if ctx.needs_input_grad[1] else None)

    @staticmethod
    def jvp(args, tangents, out):
        ta, tb = tangents
        return rules.fit(rules.total(ta, None if tb is None else -tb), out)

    vmap = classmethod(rules.elementwise)


class Mul(Function):
    node_name = "MulBackward0"
    arity, elementwise = 2, True
    number_edges = True        # next_functions: (None, 0) for a number, as torch
    forward_on_arrays = True
    numpy, cuda, onnx = Numpy("multiply({0}, {1}, {out})"), "({0} * {1})", "Mul"

    @staticmethod
    def forward(ctx, a, b):
        need = ctx.needs_input_grad        # save only what the wanted gradients read
        if need:
            ctx.save_for_backward(b if need[0] else None, a if need[1] else None)
        x = a._data                            # a is a tensor: __rmul__ swaps
        if isinstance(b, Tensor):
            if x.dtype is b._data.dtype:       # the hot path: no promotion to look up
                return x * b._data
        elif type(b) is float and x.dtype.kind == "f":
            return x * b
        x, y = operands(a, b)
        return x * y

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (grad * cj(b) if need[0] else None), (grad * cj(a) if need[1] else None)

    @staticmethod
    def backward_arrays(ctx, grad):
        """The products on arrays, where numpy's result dtype is torch's: the other factor has
        the gradient's dtype, or is a Python number and the gradient is floating point."""
        b, a = ctx.saved_arrays
        need = ctx.needs_input_grad
        if not (_same_kind(grad, b) and _same_kind(grad, a)) or grad.dtype.kind == "c":
            return NotImplemented
        return (grad * b if need[0] else None), (grad * a if need[1] else None)

    @staticmethod
    def jvp(args, tangents, out):
        (a, b), (ta, tb) = args, tangents
        return rules.fit(rules.total(rules.times(ta, b), rules.times(tb, a)), out)

    vmap = classmethod(rules.elementwise)


class Div(Function):
    node_name = "DivBackward0"
    arity, elementwise = 2, True
    number_edges = True        # next_functions: (None, 0) for a number, as torch
    forward_on_arrays = True
    numpy, cuda, onnx = Numpy("true_divide({0}, {1}, {out})"), "({0} / {1})", "Div"

    @staticmethod
    def forward(ctx, a, b):
        need = ctx.needs_input_grad        # d/da needs only b; d/db needs both
        if need:
            ctx.save_for_backward(a if need[1] else None, b)
        x, y = float_operands(a, b)
        if not isinstance(b, Tensor) and not b and hasattr(a.device.xp, "errstate"):
            with a.device.xp.errstate(divide="ignore", invalid="ignore"):   # torch: no warning
                return x / y
        return x / y

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need = ctx.needs_input_grad
        ga = grad / cj(b) if need[0] else None
        gb = -grad * cj(a / (b * b)) if need[1] else None
        return ga, gb

    @staticmethod
    def jvp(args, tangents, out):
        (a, b), (ta, tb) = args, tangents     # (ta - out * tb) / b
        t = rules.total(ta, None if tb is None else -tb * out)
        return None if t is None else rules.fit(t / b, out)

    vmap = classmethod(rules.elementwise)


class Neg(Function):
    node_name = "NegBackward0"
    arity, elementwise = 1, True
    numpy, cuda, onnx = Numpy("negative({0}, {out})"), "(-{0})", "Neg"

    @staticmethod
    def forward(ctx, a):
        _check_bool("neg", a)
        return -a._data

    @staticmethod
    def backward(ctx, grad):
        return -grad

    jvp = classmethod(rules.same_op)
    vmap = classmethod(rules.elementwise)


# x ** p for the exponents numpy's ndarray.__pow__ computes with a faster ufunc (same bits)
POW_FAST = {2: "square", 0.5: "sqrt", 1: "positive", -1: "reciprocal"}


def _pow_numpy(gen, node, name, out):
    x, p = gen.arg(node.args[0]), node.args[1]
    if p in POW_FAST and not isinstance(p, bool):
        return [f"{name} = {POW_FAST[p]}({x}, {out})"]
    return [f"{name} = power({x}, {gen.lit(p)}, {out})"]


class Pow(Function):
    """x ** p for a Python number p."""
    node_name = "PowBackward0"
    arity, elementwise = 2, True
    numpy = Numpy(_pow_numpy, when=lambda node: node.args[1] != -0.5,
                  calls=("power",) + tuple(POW_FAST.values()))

    @staticmethod
    def cuda(ops, node, ctype):
        if POW_FAST.get(node.args[1]) == "square":
            return f"({ops[0]} * {ops[0]})"
        if node.args[1] in (0.5, -0.5):       # as the forward: sqrt, not IEEE pow
            return f"{'sqrt' if node.args[1] > 0 else 'rsqrt'}({ops[0]})"
        return f"pow({ops[0]}, {ops[1]})"

    @staticmethod
    def onnx(w, node, out):
        x, p = node.args
        w.emit("Pow", [w.name(x), w.const(p, w.ref(node).dtype)], out)

    @staticmethod
    def forward(ctx, a, p):
        ctx.save_for_backward(a)
        ctx.p = p
        if p == 2 and type(p) is int and a._data.dtype.kind == "f":
            return a.device.xp.square(a._data)   # what ndarray ** 2 calls (the same bits)
        x, y = operands(a, p)
        if x.dtype.kind in "iub":
            if not isinstance(p, (bool, float)) and p < 0:
                raise RuntimeError(
                    f"pow: integers to negative integer powers are not allowed ({a.dtype} tensor "
                    f"** {p}). Make the tensor float first: x.float() ** {p}.")
            if x.dtype.kind == "b":
                x = x.astype("int64")
        elif p in (0.5, -0.5) and x.dtype != "float16" and not isinstance(p, bool):
            # as torch's kernels (but float16's): sqrt and 1 / sqrt, not IEEE pow, so
            # (-0.) ** -0.5 is -inf and (-inf) ** 0.5 is nan (IEEE pow: +inf for both)
            xp = a.device.xp
            return xp.sqrt(x) if p > 0 else xp.reciprocal(xp.sqrt(x))
        return x ** y

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        p = ctx.p
        if p == 0:
            return zeros_like(grad), None
        return grad * cj(p * a ** (p - 1)), None

    @staticmethod
    def backward_arrays(ctx, grad):
        """x ** 2 (a loss's square): torch's grad * (2 * x), bit for bit, on the arrays."""
        if ctx.p != 2:
            return NotImplemented
        (x,) = ctx.saved_arrays
        if x.dtype is not grad.dtype or x.dtype.kind == "c":
            return NotImplemented
        d = x * _two(x)
        if d.ndim:
            d *= grad
            return d, None
        return d * grad, None                  # (0-d: numpy gives a scalar; the engine fits it)

    @staticmethod
    def jvp(args, tangents, out):
        (a, p), t = args, tangents[0]
        return rules.times(t, 0 if p == 0 else p * a ** (p - 1))

    vmap = classmethod(rules.elementwise)


_TWOS = {}   # dtype -> a 0-d numpy array holding 2


def _two(arr):
    """2 for 2 * arr as numpy multiplies by it fastest: a 0-d array of arr's dtype (a Python
    int costs the ufunc about 0.3 us to convert; the same bits)."""
    if type(arr) is not np.ndarray or arr.dtype.kind != "f":
        return 2
    t = _TWOS.get(arr.dtype)
    if t is None:
        t = _TWOS[arr.dtype] = np.full((), 2, arr.dtype)
    return t


class PowTensor(Function):
    """a ** b where the exponent is a tensor (a may be a Python number)."""
    node_name = "PowBackward1"
    op_name = "pow"

    @staticmethod
    def forward(ctx, a, b):
        xp = (a if isinstance(a, Tensor) else b).device.xp
        x, y = operands(a, b)
        if x.dtype.kind == "b" if isinstance(a, Tensor) else y.dtype.kind == "b":
            raise NotImplementedError(
                "pow: not implemented for bool ** bool (as in torch). Convert first, "
                "e.g. x.long() ** y.")
        out = xp.asarray(_int_pow(xp, x, y) if y.dtype.kind in "iu" else x ** y)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        """As torch: d/da is 0 where b == 0, and d/db is 0 where a == 0 and b >= 0 (0 ** b is
        constant there), instead of the nan that 0 * inf would give."""
        from .select import where
        a, b, out = ctx.saved_tensors
        need = ctx.needs_input_grad
        ga = gb = None
        if need[0]:
            b0 = b == 0
            ga = where(b0, 0.0, grad * cj(b * a ** where(b0, 1.0, b - 1)))
        if need[1]:
            cplx = out._data.dtype.kind == "c"      # log of the base in the result's dtype
            if isinstance(b, Tensor) and b._data.dtype.kind == "c":
                nonneg = (b.real >= 0) & (b.imag == 0)
            else:
                nonneg = b >= 0
            if isinstance(a, Tensor):
                flat = (a == 0) & nonneg
                a = a.to(out.dtype) if cplx else a
                log_a = where(flat, 0.0, where(flat, 1.0, a).log())
            elif a == 0:
                log_a = where(nonneg, 0.0, -math.inf)
            elif cplx:
                log_a = cmath.log(a)
            else:
                log_a = math.log(a) if a > 0 else math.nan
            gb = grad * cj(out * log_a)
        return ga, gb

    @staticmethod
    def jvp(args, tangents, out):
        (a, b), (ta, tb) = args, tangents
        tb_part = None
        if tb is not None:
            tb_part = tb * out * (a.log() if isinstance(a, Tensor) else math.log(a))
        return rules.fit(rules.total(rules.times(ta, b * a ** (b - 1)), tb_part), out)

    vmap = classmethod(rules.elementwise)


def _int_pow(xp, x, y):
    """Integer powers as torch computes them: a negative exponent gives 1 for base 1, +-1 for
    base -1 and 0 otherwise (numpy refuses negative integer powers outright)."""
    neg = y < 0
    if not neg.any():
        return x ** y
    odd = (y % 2) != 0
    special = xp.where(x == 1, 1, xp.where(x == -1, xp.where(odd, -1, 1), 0)).astype(y.dtype)
    return xp.where(neg, special, x ** xp.where(neg, 0, y))


tensor_method("__add__", "__radd__")(binary_op(Add))
tensor_method("__sub__")(binary_op(Sub))
tensor_method("__mul__", "__rmul__")(binary_op(Mul))
tensor_method("__truediv__")(binary_op(Div))
neg = tensor_method("__neg__", "neg")(unary_op(Neg))


def number_operand(a):
    """torch.add(1.5, 2.5): a Python number as the first operand becomes a 0-d tensor of its
    default dtype (float32, int64, bool), as torch's argument parser wraps it."""
    if type(a) in (bool, int, float, complex):
        from ..creation import tensor
        return tensor(a)
    return a


@tensor_method("add")
def add(a, b, alpha=1):
    """a + alpha * b, broadcasting; alpha scales b in the result dtype (as torch: int16 + 2 *
    uint8 does not wrap around in uint8)."""
    a = number_operand(a)
    if alpha != 1:
        b = _scaled("add", a, b, alpha)
    return Add.apply(a, b)


@tensor_method("sub")
def sub(a, b, alpha=1):
    a = number_operand(a)
    if alpha != 1:
        _check_bool("sub", a, b)          # (before b is scaled into the result dtype)
        b = _scaled("sub", a, b, alpha)
    return Sub.apply(a, b)


def _scaled(name, a, b, alpha):
    alpha = python_number(alpha)
    dt = result_type(a, b)
    if isinstance(alpha, complex) and not dt.is_complex:
        raise RuntimeError(f"{name}: For non-complex input tensors, argument alpha must not be "
                           f"a complex number (got {alpha}, result {dt}). Make an input "
                           "complex first: x.to(labkit.complex64).")
    if not (dt.is_floating_point or dt.is_complex) and isinstance(alpha, float):
        raise RuntimeError(f"{name}: for integral input tensors ({dt}), argument alpha must not "
                           f"be a floating point number (got {alpha}). Convert first: x.float().")
    kind = dt.np.kind
    if isinstance(b, Tensor):             # alpha as a number of the result's kind (bool stays)
        return (b if b.dtype == dt else b.to(dt)) * (bool(alpha) if kind == "b" else alpha)
    return bool(b * alpha) if kind == "b" else int(b * alpha) if kind in "iu" else b * alpha


class RSub(Sub):
    """number - tensor (torch's rsub)."""
    node_name = "RsubBackward1"
    op_name = "rsub"
    number_edges = False       # torch's rsub takes the number as a Scalar


@tensor_method("__rsub__")
def rsub(a, b):
    return RSub.apply(b, a)


@tensor_method("mul")
def mul(a, b):
    return Mul.apply(number_operand(a), b)


@tensor_method("div", "divide")
def div(a, b, *, rounding_mode=None):
    a = number_operand(a)
    if rounding_mode is not None:
        from .rounding_div import div_rounded
        return div_rounded(a, b, rounding_mode)
    return Div.apply(a, b)


@tensor_method("__rtruediv__")
def rdiv(a, b):
    """number / a, as torch computes it: a.reciprocal() * number (its rounding in float16 and
    bfloat16, its graph MulBackward0 <- ReciprocalBackward0, which saves 1 / a, not a)."""
    return a.reciprocal() * b


@tensor_method("__pos__")
def _pos(a):
    return a


@tensor_method("pow", "__pow__")
def _pow_method(input, exponent):
    """Tensor.pow and **: a number exponent of a float tensor (x ** 2, a loss) goes straight
    to the op, without the keyword translation that the methods get (exponent is torch's own
    name) or pow()'s integer checks."""
    if (type(exponent) is int or type(exponent) is float) and input._data.dtype.kind == "f":
        return _call(Pow, (input, exponent), input.device, input._rg)
    return pow(input, exponent)


_pow_method.__wrapped_torch_keywords__ = True
_pow_method.__name__ = _pow_method.__qualname__ = "pow"


def pow(a, p):
    """a ** p; p a Python number (PowBackward0) or a tensor (PowBackward1)."""
    if isinstance(p, Tensor):
        return PowTensor.apply(a, p)
    if isinstance(a, Tensor) and a._data.dtype.kind in "iu" and type(p) is int:
        fill_value(a._data.dtype, p)   # as torch: an int exponent must fit x's integer dtype
    if isinstance(a, Tensor) and a._data.dtype.kind == "b" and isinstance(p, bool):
        return Pow.apply(a, p).bool()  # bool ** bool stays bool in torch
    return Pow.apply(a, p)


class RPow(PowTensor):
    """number ** tensor."""
    node_name = "PowBackward2"
    op_name = "rpow"


@tensor_method("__rpow__")
def rpow(a, base):
    return RPow.apply(base, a)
