"""Matrix products: mm, matmul / @ (1-D, 2-D and batched, broadcasting batch dimensions)."""
from math import prod

from ..autocast import autocast_op, state as autocast_state
from ..dtype import scalar_type_name
from ..function import Function, binary_op
from ..tensor import Tensor, tensor_method
from .common import as_tensor_like
from .table import Numpy
from . import rules
from .complex import cj


def _check(name, a, b):
    if a._data.ndim == 0 or b._data.ndim == 0:
        raise RuntimeError(f"{name}: both arguments need at least 1 dimension, got shapes "
                           f"{tuple(a.shape)} and {tuple(b.shape)}; use * to scale by a number.")
    k_a = a._data.shape[-1]
    k_b = b._data.shape[-2] if b._data.ndim > 1 else b._data.shape[0]
    if k_a != k_b:
        torch_words = ""      # torch's words for a matrix (or a folded batch) times a matrix
        if b._data.ndim == 2:
            torch_words = (f"mat1 and mat2 shapes cannot be multiplied ({prod(a.shape[:-1])}x"
                           f"{k_a} and {k_b}x{b._data.shape[-1]}); ")
        raise RuntimeError(
            f"{name}: {torch_words}cannot multiply shapes {tuple(a.shape)} and {tuple(b.shape)}: "
            f"the inner "
            f"dimensions {k_a} and {k_b} differ. In a @ b the last dim of a must equal the "
            f"{'first' if b._data.ndim == 1 else 'second-to-last'} dim of b. Check the weight's shape, "
            "or transpose one side (b.T).")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"{name}: expected m1 and m2 to have the same dtype, but got: "
                           f"{scalar_type_name(a, True)} != {scalar_type_name(b, True)} ("
                           f"{a.dtype} and {b.dtype}). Convert one, e.g. b.to(a.dtype).")


class MatMul(Function):
    """a @ b for any ranks; batch dims broadcast (the engine sums the gradient back)."""
    node_name = "BmmBackward0"
    op_name, onnx = "matmul", "MatMul"
    numpy = Numpy("matmul({0}, {1}, {out})", when=lambda node: len(node.outputs[0].shape) > 0)

    @staticmethod
    def forward(ctx, a, b):           # the entry points (mm, matmul, bmm, dot) checked a and b
        x, w = a._data, b._data
        need = ctx.needs_input_grad
        if not need or (need[0] and need[1]):
            ctx.save_for_backward(a, b)
        else:                         # as torch: a only for b's gradient, b only for a's (so
            ctx.save_for_backward(a if need[1] else None, b if need[0] else None)   # a later
            ctx.nd = (x.ndim, w.ndim)                   # in-place change of the other is fine)
        if w.ndim == 2 and x.ndim <= 2 and x.dtype.kind == "f" and x.dtype.itemsize >= 4:
            return x.dot(w)           # the same BLAS call, without the matmul ufunc's 0.6 us
        y = a.device.xp.matmul(x, w)
        return y if y.dtype == x.dtype else y.astype(x.dtype)  # bfloat16: numpy
        #                                             accumulates and returns float32

    @staticmethod
    def backward_arrays(ctx, grad):
        """The same products on arrays, for matrices and batches (numpy hands transposed
        views to BLAS as they are, and copies a stride-0 gradient itself)."""
        x, w = ctx.saved_arrays           # one is None when only the other's gradient is
        nd = ctx.nd if x is None or w is None else (x.ndim, w.ndim)   # wanted (forward)
        dt = (w if x is None else x).dtype
        if nd[0] < 2 or nd[1] < 2 or grad.dtype is not dt or dt.kind == "c":
            return NotImplemented
        need = ctx.needs_input_grad
        if nd == (2, 2) and dt.kind == "f" and dt.itemsize >= 4:   # as forward: dot
            return (grad.dot(w.T) if need[0] else None), (x.T.dot(grad) if need[1] else None)
        xp = ctx._device.xp
        ga = xp.matmul(grad, w.swapaxes(-1, -2)) if need[0] else None
        gb = xp.matmul(x.swapaxes(-1, -2), grad) if need[1] else None
        if ga is not None and ga.dtype != dt:     # bfloat16: numpy returns float32
            ga = ga.astype(dt)
        if gb is not None and gb.dtype != dt:
            gb = gb.astype(dt)
        return ga, gb

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        a = None if a is None else cj(a)     # complex: the gradient is grad @ b^H (conj
        b = None if b is None else cj(b)     # transpose); one side is None when only the
        need = ctx.needs_input_grad          # other's gradient is wanted
        nd_a, nd_b = (a.ndim, b.ndim) if a is not None and b is not None else ctx.nd
        ga = gb = None
        if nd_a == 1 and nd_b == 1:                  # dot product
            ga = grad * b if need[0] else None
            gb = grad * a if need[1] else None
        elif nd_a == 1:                              # (k) @ (..., k, n)
            if need[0]:
                ga = (grad.unsqueeze(-2) @ b.mT).squeeze(-2)
            if need[1]:
                gb = a.unsqueeze(-1) @ grad.unsqueeze(-2)
        elif nd_b == 1:                              # (..., m, k) @ (k)
            if need[0]:
                ga = grad.unsqueeze(-1) @ b.unsqueeze(-2)
            if need[1]:
                gb = (a.mT @ grad.unsqueeze(-1)).squeeze(-1)
        else:
            ga = grad @ b.mT if need[0] else None
            gb = a.mT @ grad if need[1] else None
        return ga, gb

    @staticmethod
    def jvp(args, tangents, out):
        (a, b), (ta, tb) = args, tangents
        return rules.total(None if ta is None else matmul(ta, b),
                           None if tb is None else matmul(a, tb))

    @staticmethod
    def vmap(args, batched):
        (a, b), (ab, bb) = args, batched
        return rules.matmul(a, ab, b, bb)


class Mm(MatMul):
    node_name = "MmBackward0"
    op_name = "mm"


class Mv(MatMul):
    node_name = "MvBackward0"
    op_name = "mv"


class Dot(MatMul):
    node_name = "DotBackward0"
    op_name = "dot"


_mm = binary_op(Mm)   # Mm.apply for exactly two tensors (checks the device, skips the arg loop)


@autocast_op("mm")
def mm(input, mat2):
    """Matrix product of two 2-D tensors."""
    return _mm_checked(input, mat2)


@tensor_method("mm")
def _mm_method(input, mat2):
    """Tensor.mm: mm without its two wrappers, autocast's (checked here) and the keyword
    translation (input and mat2 are torch's own names): about 0.4 us of the 2 W1 calls."""
    if autocast_state.dtypes:
        return mm(input, mat2)
    return _mm_checked(input, mat2)


_mm_method.__wrapped_torch_keywords__ = True
_mm_method.__name__ = _mm_method.__qualname__ = "mm"


def _mm_checked(a, b):
    if not isinstance(b, Tensor):
        b = as_tensor_like(b, a)
    x, w = a._data, b._data
    if x.ndim != 2 or w.ndim != 2 or x.shape[1] != w.shape[0] or x.dtype != w.dtype:
        if x.ndim != 2 or w.ndim != 2:
            raise RuntimeError(f"mm: both arguments must be 2-D matrices, got shapes "
                               f"{tuple(a.shape)} and {tuple(b.shape)}. Use matmul (or @) for "
                               "vectors and batches.")
        _check("mm", a, b)
    return _mm(a, b)


@tensor_method("matmul", "__matmul__")
@autocast_op("matmul")
def matmul(a, b):
    """a @ b: dot (1-D, 1-D), mv (2-D, 1-D), mm (2-D, 2-D), or batched with broadcasting."""
    if not isinstance(b, Tensor):
        b = as_tensor_like(b, a)
    _check("matmul", a, b)
    na, nb = a._data.ndim, b._data.ndim
    if na == 2 and nb == 2:
        return _mm(a, b)
    if na == 1 and nb == 1:
        return Dot.apply(a, b)
    if na == 2 and nb == 1:
        return Mv.apply(a, b)
    return MatMul.apply(a, b)


@tensor_method("__rmatmul__")
def _rmatmul(a, b):
    return matmul(as_tensor_like(b, a), a)
