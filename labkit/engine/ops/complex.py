"""Complex tensors: .real / .imag (views), view_as_real / view_as_complex (views), conj,
torch.complex, torch.polar, angle, sgn.

Gradients follow torch's convention: for a real loss L of a complex z, z.grad is the conjugate
Wirtinger derivative, dL/d(re z) + i dL/d(im z). So a holomorphic f passes grad * conj(f'(z))
back (the formulas in arithmetic.py, unary.py ... take conj of the other factor: `cj` below,
which is the tensor itself for real dtypes), and a real input that met a complex gradient keeps
its real part.
"""
import warnings

from .. import dtype as _dt
from ..function import Function
from ..tensor import Tensor, tensor_method
from .complex_guard import allow
from .shape import _as_view
from .introspect import storage_offset


def cj(x):
    """conj(x) for a complex tensor or number; anything else as it is (no cost for reals)."""
    if isinstance(x, Tensor):
        return Conj.apply(x) if x._data.dtype.kind == "c" else x
    return x.conjugate() if type(x) is complex else x


def _real_dtype(np_dtype):
    return np_dtype.type(0).real.dtype


def discard_imag(arr):
    """A complex array cast to a real dtype: torch keeps the real part, with its warning."""
    warnings.warn("Casting complex values to real discards the imaginary part", UserWarning,
                  stacklevel=4)
    return arr.real


# --- real and imag: views of one part -----------------------------------------------------

class Real(Function):
    """z.real: a real view of the real parts (writes show in z)."""
    node_name = "RealBackward0"
    op_name = "real"
    complex_ok = True

    @staticmethod
    def forward(ctx, x):
        ctx.dtype = x.dtype
        return x._data.real

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx.dtype)                      # d/dz of re z: 1 (+ 0i)

    @staticmethod
    def put_back(parent, new):
        return complex_(new, Imag.apply(parent))


class Imag(Function):
    """z.imag: a real view of the imaginary parts (writes show in z)."""
    node_name = "ImagBackward0"
    op_name = "imag"
    complex_ok = True

    @staticmethod
    def forward(ctx, x):
        return x._data.imag

    @staticmethod
    def backward(ctx, grad):
        return complex_(grad.new_zeros(()).expand(grad.shape), grad)    # i * grad

    @staticmethod
    def put_back(parent, new):
        return complex_(Real.apply(parent), new)


def _refuse_real(name, x):
    if x._data.dtype.kind != "c":
        raise RuntimeError(f"{name} is not implemented for tensors with non-complex dtypes "
                           f"(this one is {x.dtype}). Make it complex first: "
                           "x.to(labkit.complex64), or labkit.complex(x, labkit.zeros_like(x)).")


def _real(x):
    if x._data.dtype.kind != "c":
        return x                                       # torch: a real tensor is its own .real
    return _as_view(Real.apply(x), x, Real)


def _imag(x):
    _refuse_real("imag", x)
    return _as_view(Imag.apply(x), x, Imag)


def _set_part(get):
    def setter(x, value):
        from .inplace import copy_
        copy_(get(x), value)
    return setter


Tensor.real = property(_real, _set_part(_real), doc="The real parts (a view; real: self).")
Tensor.imag = property(_imag, _set_part(_imag), doc="The imaginary parts (a view).")


def real(input):
    return _real(input)


def imag(input):
    return _imag(input)


# --- view_as_real / view_as_complex ---------------------------------------------------------

class ViewAsReal(Function):
    node_name = "ViewAsRealBackward0"
    op_name = "view_as_real"
    complex_ok = True

    @staticmethod
    def forward(ctx, x):
        a = x._data
        half = a.itemsize // 2
        return x.device.xp.lib.stride_tricks.as_strided(
            a.real, a.shape + (2,), a.strides + (half,))

    @staticmethod
    def backward(ctx, grad):
        return view_as_complex(grad.contiguous())

    @staticmethod
    def put_back(parent, new):
        return view_as_complex(new.contiguous())


class ViewAsComplex(Function):
    node_name = "ViewAsComplexBackward0"
    op_name = "view_as_complex"
    complex_ok = True

    @staticmethod
    def forward(ctx, x):
        a = x._data
        dt = _dt.from_np(a.dtype).to_complex().np
        if a.size == 0:                   # nothing to share (numpy's strides may be 0)
            return x.device.xp.empty(a.shape[:-1], dt)
        return a.view(dt)[..., 0]

    @staticmethod
    def backward(ctx, grad):
        return view_as_real(grad)

    @staticmethod
    def put_back(parent, new):
        return view_as_real(new)


def view_as_real(input):
    """A real view (..., 2) of a complex tensor: [..., 0] the real, [..., 1] the imaginary
    parts."""
    if input._data.dtype.kind != "c":
        raise RuntimeError(f"view_as_real is only supported for complex tensors, but got a "
                           f"tensor of scalar type: {_dt.scalar_type_name(input)}. It reads "
                           "complex numbers as pairs of reals; a real tensor has no pairs.")
    return _as_view(ViewAsReal.apply(input), input, ViewAsReal)


def view_as_complex(input):
    """A complex view of a real tensor whose last dimension (size 2, stride 1) holds the
    (real, imaginary) pairs: torch's layout rules, since no data is copied."""
    a = input._data
    name = _dt.scalar_type_name(input)
    if a.dtype.kind != "f" or a.dtype.itemsize not in (4, 8):
        half = " (torch's complex32 view of a half tensor does not exist in labkit)" \
            if a.dtype.kind in "fV" else ""
        raise RuntimeError(f"view_as_complex is only supported for float and double tensors, "
                           f"but got a tensor of scalar type: {name}{half}. Convert first: "
                           "x.float().")
    if a.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions (view_as_complex got "
                           "a 0-d tensor). Give it a last dimension of size 2 holding "
                           "(real, imaginary).")
    if a.shape[-1] != 2:
        raise RuntimeError(f"Tensor must have a last dimension of size 2 (view_as_complex got "
                           f"shape {tuple(a.shape)}). Reshape so pairs sit last: "
                           "x.reshape(*x.shape[:-1], -1, 2).")
    item = a.itemsize
    if a.size == 0:
        return _as_view(ViewAsComplex.apply(input), input, ViewAsComplex)
    if a.strides[-1] != item:
        raise RuntimeError("Tensor must have a last dimension with stride 1 (view_as_complex "
                           f"got strides {tuple(s // item for s in a.strides)}): the pairs must "
                           "lie side by side in memory. Call .contiguous() first.")
    if any((s // item) % 2 for s in a.strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension "
                           f"(view_as_complex got strides {tuple(s // item for s in a.strides)}). "
                           "Call .contiguous() first.")
    if storage_offset(input) % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2 (view_as_complex "
                           f"got {storage_offset(input)}). Call .contiguous() first.")
    return _as_view(ViewAsComplex.apply(input), input, ViewAsComplex)


# --- conj --------------------------------------------------------------------------------

class Conj(Function):
    """The complex conjugate (a copy: torch's conj is a lazy view with a conj bit; labkit
    computes it at once, and answers is_conj() as torch does for the tensor conj() made)."""
    node_name = "ConjBackward0"
    op_name = "conj"
    complex_ok = True

    @staticmethod
    def forward(ctx, x):
        return x.device.xp.conj(x._data)

    @staticmethod
    def backward(ctx, grad):
        return cj(grad)


@tensor_method("conj")
def conj(input):
    """The complex conjugate; a real tensor is returned as it is (as torch)."""
    if input._data.dtype.kind != "c":
        return input
    out = Conj.apply(input)
    out._is_conj = True
    return out


@tensor_method("conj_physical")
def conj_physical(input):
    return Conj.apply(input) if input._data.dtype.kind == "c" else input


@tensor_method("resolve_conj", "resolve_neg")
def resolve_conj(input):
    """torch materializes a lazy conj here; labkit's conj is already computed."""
    if getattr(input, "_is_conj", False):
        out = input.detach() if input.grad_fn is None and not input._rg else input.view_as(input)
        out._is_conj = False
        return out
    return input


@tensor_method("is_conj")
def is_conj(input):
    return getattr(input, "_is_conj", False)


@tensor_method("is_neg")
def is_neg(input):
    return False


# --- complex(re, im), polar(abs, angle) ---------------------------------------------------

def _parts_check(name, a, b, first, second):
    for t in (a, b):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument '{first if t is a else second}' must be "
                            f"Tensor, not {type(t).__name__}")
    da, db = a._data.dtype, b._data.dtype
    if da.kind != "f" or da.itemsize not in (4, 8):
        raise RuntimeError(f"{name}: Expected both inputs to be Half, Float or Double tensors "
                           f"but got {_dt.scalar_type_name(a)} and {_dt.scalar_type_name(b)}. "
                           "Convert first: x.float().")
    if da != db:
        raise RuntimeError(f"{name}: Expected object of scalar type {_dt.scalar_type_name(a)} "
                           f"but got scalar type {_dt.scalar_type_name(b)} for second argument "
                           f"({a.dtype} and {b.dtype}). Convert one: b.to(a.dtype).")


class Complex(Function):
    """re + i im, broadcasting the two."""
    node_name = "ComplexBackward0"
    op_name = "complex"
    complex_ok = True

    @staticmethod
    def forward(ctx, re, im):
        xp = re.device.xp
        a, b = re._data, im._data
        out = xp.empty(xp.broadcast_shapes(a.shape, b.shape),
                       _dt.from_np(a.dtype).to_complex().np)
        out.real[...], out.imag[...] = a, b          # views: writes land in out
        return out

    @staticmethod
    def backward(ctx, grad):
        need = ctx.needs_input_grad
        return (Real.apply(grad) if need[0] else None), (Imag.apply(grad) if need[1] else None)


def complex_(real, imag):
    """torch.complex: the complex tensor real + i imag (both float or both double)."""
    _parts_check("complex", real, imag, "real", "imag")
    return Complex.apply(real, imag)


class Polar(Function):
    """abs * (cos(angle) + i sin(angle))."""
    node_name = "PolarBackward0"
    op_name = "polar"
    complex_ok = True

    @staticmethod
    def forward(ctx, r, theta):
        ctx.save_for_backward(r, theta)
        xp = r.device.xp
        a, t = r._data, theta._data
        out = xp.empty(xp.broadcast_shapes(a.shape, t.shape),
                       _dt.from_np(a.dtype).to_complex().np)
        out.real[...], out.imag[...] = a * xp.cos(t), a * xp.sin(t)
        return out

    @staticmethod
    def backward(ctx, grad):
        """d out/d r = e^{i t}, d out/d t = i r e^{i t}; a real input takes Re(g conj(d))."""
        r, t = ctx.saved_tensors
        gr, gi, c, s = Real.apply(grad), Imag.apply(grad), t.cos(), t.sin()
        need = ctx.needs_input_grad
        return (gr * c + gi * s if need[0] else None), \
            (r * (gi * c - gr * s) if need[1] else None)


def polar(abs, angle):
    """The complex tensor with magnitudes abs and phases angle (radians)."""
    _parts_check("polar", abs, angle, "abs", "angle")
    return Polar.apply(abs, angle)


# --- angle, sgn ----------------------------------------------------------------------------

class Angle(Function):
    """The phase of each element, atan2(im, re); for reals 0 or pi (nan stays nan)."""
    node_name = "AngleBackward0"
    op_name = "angle"
    complex_ok = True

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        xp = x.device.xp
        a = x._data
        if a.dtype.kind == "c":
            return xp.angle(a)
        if a.dtype.kind not in "fV":
            a = a.astype(_dt.to_np(_default_float()))
        return xp.where(a < 0, a.dtype.type(3.141592653589793), xp.zeros((), a.dtype)) + a * 0

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if x._data.dtype.kind != "c":
            return grad * 0
        return grad * _safe_div(x * 1j, x.abs().square())      # i z / |z|^2, 0 at z = 0


def _default_float():
    from ..defaults import get_default_dtype
    return get_default_dtype()


def _safe_div(num, den):
    """num / den, and 0 where den is 0 (torch's gradients at z = 0)."""
    from .select import where
    zero = den == 0
    return where(zero, 0, num / where(zero, 1, den))


@tensor_method("angle")
def angle(input):
    if input._data.dtype.kind == "b":
        raise RuntimeError("angle: not implemented for 'Bool' tensors (as in torch). "
                           "Convert first: x.float().")
    return Angle.apply(input)


def complex_sgn(z):
    """z / |z|, 0 at 0 (torch.sgn of a complex tensor)."""
    return _safe_div(z, z.abs())


@tensor_method("__complex__")
def _complex_scalar(input):
    """complex(x) of a one-element tensor (real or complex), as torch."""
    return complex(input._scalar("complex"))


@tensor_method("cfloat")
def cfloat(input):
    return input.to(_dt.complex64)


@tensor_method("cdouble")
def cdouble(input):
    return input.to(_dt.complex128)


def allow_dtype_agnostic():
    """Mark the ops of other files that compute complex values and gradients as torch does
    (ops/__init__.py calls this once every op module is loaded)."""
    from . import (arithmetic, compare, convert, diag, einsum, find, gather, index, inplace,
                   join, layout, linalg, linear, math, reduce, resample, scan, select, shape,
                   tri, unary)
    allow(arithmetic.Add, arithmetic.Sub, arithmetic.Mul, arithmetic.Div, arithmetic.Neg,
          arithmetic.Pow, arithmetic.PowTensor,
          compare.Eq, compare.Ne, compare.IsFinite, compare.IsInf, compare.IsNan,
          compare.LogicalAnd, compare.LogicalOr, compare.LogicalXor, compare.LogicalNot,
          compare.All, compare.Any,
          convert.ToCopy, convert.PinMemory, diag.Diagonal, diag.DiagonalScatter,
          einsum.Einsum, linear.Linear, resample.Pad,
          find.IsClose, find.Nonzero, find.CountNonzero,
          gather.Gather, gather.IndexSelect, gather.Scatter, gather.ScatterAdd,
          gather.IndexAddNew, gather.ScatterAddNew,
          index.Index, index.IndexAdd, index.IndexPut, index.Select, index.Slice,
          inplace._Copy, inplace._Fill, join.Cat, join.Split, join.Stack,
          layout.Flip, layout.Repeat, layout.Roll, linalg.MatMul,
          reduce.Sum, reduce.Mean, reduce.Var, reduce.Std, scan.CumSum, select.Where,
          shape.Clone, shape.Expand, shape.Permute, shape.Reshape, shape.Squeeze,
          shape.SqueezeDim, shape.SqueezeDims, shape.Transpose, shape.Unsqueeze,
          tri.Tril, tri.Triu,
          unary.Exp, unary.Log, unary.Sqrt, unary.Sin, unary.Cos, unary.Tanh, unary.Sigmoid,
          unary.Abs, math.Reciprocal, math.Square, math.Rsqrt, math.Sinh, math.Cosh,
          math.Tan, math.Log10, math.Log2, math.Log1p, math.Expm1)
