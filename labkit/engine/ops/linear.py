"""linear: x @ w.T + b as one op (torch's addmm), the workhorse of nn.Linear.

One node instead of three (transpose, matmul, add) keeps the graph readable and the step fast;
its backward is still written with tensor ops, so it can be differentiated again.
"""
from math import prod

import numpy as _np

from ..autocast import autocast_op, state as autocast_state
from ..dtype import scalar_type_name
from ..function import Function, _call
from ..tensor import Tensor
from .table import Numpy
from . import rules



def _check(x, w, b):
    xd, wd = x._data, w._data
    if (wd.ndim != 2 or xd.ndim == 0 or xd.shape[-1] != wd.shape[1] or xd.dtype != wd.dtype
            or b is not None and (b._data.shape != wd.shape[:1] or b._data.dtype != wd.dtype)):
        raise _error(x, w, b)


def _error(x, w, b):
    if x.dtype != w.dtype:      # torch checks the dtypes first
        return RuntimeError(
            f"linear: mat1 and mat2 must have the same dtype, but got {scalar_type_name(x)} and "
            f"{scalar_type_name(w)} (input {x.dtype}, weight {w.dtype}). Convert the input "
            "(x.to(layer.weight.dtype), e.g. x.float()) or the model (model.double()).")
    if w.ndim != 2 or x.ndim == 0 or x.shape[-1] != w.shape[1]:
        words = "" if w.ndim != 2 or x.ndim == 0 else (   # torch's words: x folded to 2-D
            f" (torch: mat1 and mat2 shapes cannot be multiplied ({prod(x.shape[:-1])}x"
            f"{x.shape[-1]} and {w.shape[1]}x{w.shape[0]}))")
        return RuntimeError(
            f"linear: input of shape {tuple(x.shape)} does not fit a weight of shape "
            f"{tuple(w.shape)} (out_features, in_features): the input's last dim must be "
            f"in_features = {w.shape[1] if w.ndim == 2 else '?'}. Check the layer's "
            f"in_features, or flatten the input first (x.flatten(1), or nn.Flatten()).{words}")
    if b is not None and tuple(b.shape) != (w.shape[0],):
        return RuntimeError(f"linear: bias of shape {tuple(b.shape)} does not match "
                            f"out_features = {w.shape[0]}; it must have shape ({w.shape[0]},).")
    return RuntimeError(
        f"linear: input, weight (and bias) must have the same dtype, got "
        f"{', '.join(str(t.dtype) for t in (x, w, b) if t is not None)}. Convert the input "
        "(x.to(layer.weight.dtype)) or the model (model.double() / model.float()).")


def _linear_numpy(gen, node, name, out):
    """x @ w.T (+ b), as Linear.forward."""
    x, w, b = node.args
    lines = [f"{name} = matmul({gen.arg(x)}, {gen.arg(w)}.T, {out})"]
    if b is not None:
        lines.append(f"add({name}, {gen.arg(b)}, {name})")
    return lines


class Linear(Function):
    node_name = "AddmmBackward0"
    numpy = Numpy(_linear_numpy, calls=("matmul", "add"),
                  when=lambda node: node.args[0].shape is not None and len(node.args[0].shape) >= 1)

    @staticmethod
    def onnx(w, node, out):
        x, wt, b = node.args
        ins = [w.name(x), w.name(wt)] + ([w.name(b)] if b is not None else [])
        if len(x.shape) == 2:
            return w.emit("Gemm", ins, out, transB=1)
        t = out[0] + "_wT"
        w.emit("Transpose", [ins[1]], [t], perm=[1, 0])
        if len(ins) == 2:
            return w.emit("MatMul", [ins[0], t], out)
        w.emit("MatMul", [ins[0], t], [out[0] + "_mm"])
        w.emit("Add", [out[0] + "_mm", ins[2]], out)

    @staticmethod
    def forward(ctx, x, w, b):
        _check(x, w, b)
        ctx.save_for_backward(x, w)
        xd, wd = x._data, w._data
        dt = xd.dtype
        if xd.ndim == 2 and dt.kind == "f" and dt.itemsize >= 4:   # BLAS: float32, float64
            if xd.shape[1] >= 256 and _flipped(xd, wd):   # (w @ x.T).T: the same bits, sooner
                return _flipped_product(xd, wd, b, x.device.xp)
            y = xd.dot(wd.T)                   # the same BLAS call as @, 0.6-2 us sooner
        else:
            y = xd @ wd.T
        if b is not None:
            y += b._data
        return y if y.dtype == x._data.dtype else y.astype(x._data.dtype)   # bfloat16

    @staticmethod
    def backward_arrays(ctx, grad):
        """The same products on arrays."""
        x, w = ctx.saved_arrays
        dt = x.dtype
        if grad.dtype is not dt or dt.kind == "c":     # complex: the Tensor form conjugates
            return NotImplemented
        need = ctx.needs_input_grad
        xp = ctx._device.xp
        if grad.ndim == 2 and dt.kind == "f" and dt.itemsize >= 4:   # a batch of rows, float32
            return ((grad.dot(w) if need[0] else None),               # or 64: as below, written
                    (grad.T.dot(x) if need[1] else None),             # out
                    (_ones_row(xp, grad.shape[0], dt).dot(grad) if need[2] else None))
        mm = _dot if _blas(dt) else xp.matmul    # as MatMul.forward, which the Tensor form calls
        gx = (mm if grad.ndim == 2 else xp.matmul)(grad, w) if need[0] else None
        g = grad if grad.ndim == 2 else grad.reshape(-1, grad.shape[-1])
        gw = mm(g.T, x.reshape(-1, x.shape[-1])) if need[1] else None
        gb = mm(xp.ones(g.shape[0], dt), g) if need[2] else None
        return tuple(None if a is None else a if a.dtype == dt else a.astype(dt)
                     for a in (gx, gw, gb))     # bfloat16: numpy's matmul returns float32

    @staticmethod
    def backward(ctx, grad):
        from .complex import cj
        x, w = ctx.saved_tensors
        x, w = cj(x), cj(w)                    # complex: the other factor's conjugate
        need = ctx.needs_input_grad
        gx = grad.matmul(w) if need[0] else None
        if grad.ndim != 2:                     # a batch of any shape: fold it into rows
            grad = grad.reshape(-1, grad.shape[-1])
            x = x.reshape(-1, x.shape[-1])
        gw = grad.t().mm(x) if need[1] else None
        gb = _ones(grad).matmul(grad) if need[2] else None    # column sums, as one product
        return gx, gw, gb

    @staticmethod
    def jvp(args, tangents, out):
        (x, w, b), (tx, tw, tb) = args, tangents
        return rules.total(None if tx is None else linear(tx, w),
                           None if tw is None else linear(x, tw), rules.fit(tb, out))

    @staticmethod
    def vmap(args, batched):
        (x, w, b), (xb, wb, bb) = args, batched
        if not (wb or bb):                     # a batch of inputs through one layer
            return Linear.apply(x, w, b)
        out = rules.matmul(x, xb, w.transpose(-1, -2), wb)   # a batch of layers (ensembles)
        return out if b is None else out + (rules.lift(b, out.ndim - 1) if bb else b)


def _flipped(xd, wd):
    """Whether x @ w.T is computed sooner as (w @ x.T).T, then copied to row-major order.
    OpenBLAS (sgemm, as numpy ships it) multiplies a row-major x by a transposed w slowly
    when the batch is small and the layer wide: 64x1000 @ (100x1000).T takes about 175 us,
    (100x1000 @ (64x1000).T).T 158 (then 2 us to reorder), as x @ w for w stored (in, out)
    takes 139. The rule is this machine's measurement (benchmarks/w1_nn.py), kept to
    float32, where the two products give the same bits (checked on 300 random shapes with
    1 and 2 threads: float64's dgemm kernels round differently, and results must not change
    with the route taken)."""
    n, k = xd.shape
    m = wd.shape[0]
    return (xd.dtype.itemsize == 4 and 16 <= n <= 64 and k >= 256 and m >= 100
            and type(xd) is _np.ndarray and xd.flags.c_contiguous and wd.flags.c_contiguous)


def _flipped_product(xd, wd, b, xp):
    y = xp.empty((xd.shape[0], wd.shape[0]), xd.dtype)
    if b is None:
        xp.copyto(y, wd.dot(xd.T).T)
    else:
        xp.add(wd.dot(xd.T).T, b._data, out=y)   # the bias added while reordering
    return y


def _blas(dt):
    """float32 and float64: ndarray.dot makes matmul's BLAS call without the ufunc's overhead."""
    return dt.kind == "f" and dt.itemsize >= 4


def _dot(a, b):
    return a.dot(b)


_ONES = {}   # (n, dtype) -> a read-only row of n ones (numpy), for the bias gradient


def _ones_row(xp, n, dt):
    """n ones of dtype dt: the bias gradient is ones @ grad (column sums, as one product);
    numpy's row is made once per batch size (0.4 us a call otherwise)."""
    if xp is not _np:
        return xp.ones(n, dt)
    row = _ONES.get((n, dt))
    if row is None:
        if len(_ONES) > 64:
            _ONES.clear()
        row = _ONES[n, dt] = _np.ones(n, dt)
        row.flags.writeable = False
    return row


def _ones(grad):
    return Tensor._make(grad.device.xp.ones(grad._data.shape[0], grad._data.dtype), grad.device)


def linear_layer(input, weight, bias):
    """linear as nn.Linear calls it (its parameters are tensors): autocast checked inline and
    apply's argument scan written out, about 0.5 us less per layer."""
    if autocast_state.dtypes or not isinstance(input, Tensor):
        return linear(input, weight, bias)
    device = input.device
    if weight.device is not device or (bias is not None and bias.device is not device):
        return Linear.apply(input, weight, bias)    # it names both devices
    return _call(Linear, (input, weight, bias), device,
                 input._rg or weight._rg or (bias is not None and bias._rg))


@autocast_op("linear")
def linear(input, weight, bias=None):
    """input @ weight.T + bias (weight has shape (out_features, in_features))."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError(f"linear: expected tensors for input and weight, got "
                        f"{type(input).__name__} and {type(weight).__name__}.")
    if weight.ndim == 1:        # torch: a dot product (matmul); a 0-d bias, not for a 2-D input
        if bias is not None and (input.ndim == 2 or bias.ndim != 0):      # (torch's addmm)
            raise RuntimeError(f"linear: mat2 must be a matrix, got 1-D tensor (a weight of "
                               f"shape {tuple(weight.shape)} with a bias, for an input of shape "
                               f"{tuple(input.shape)}); give the weight shape (out, in).")
        out = input @ weight
        return out if bias is None else out + bias
    return Linear.apply(input, weight, bias)
