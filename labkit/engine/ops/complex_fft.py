"""The three discrete Fourier transforms torch.fft is built from, each a Function whose
backward is the adjoint transform (labkit.fft composes them, with zero-padding and trimming
done by Tensor ops, so their gradients come for free):

- c2c: complex to complex over some dims, forward (e^{-2 pi i jk/n}) or inverse;
- r2c: real to the n//2 + 1 non-redundant bins of its spectrum, over one dim (rfft);
- c2r: those bins back to n real samples (irfft).

Normalization (torch's norm=): "backward" scales only the inverse by 1/n, "forward" only the
forward transform, "ortho" both by 1/sqrt(n). The adjoint of a transform with one mode is the
opposite transform with the swapped mode ("backward" <-> "forward", "ortho" stays), which is
how each backward below is written. Gradients are torch's conjugate Wirtinger ones.
"""
import numpy as np

from .. import dtype as _dt
from ..function import Function
from .complex import Real

SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _transform(xp, a, name, **kw):
    return getattr(xp.fft, name)(a, **kw)          # numpy.fft or cupy.fft (cuFFT)


class FftC2C(Function):
    node_name = "FftC2CBackward0"
    op_name = "fft_c2c"
    complex_ok = True

    @staticmethod
    def forward(ctx, x, dims, norm, forward):
        ctx.dims, ctx.norm, ctx.fwd = dims, norm, forward
        a = x._data
        if not dims:
            return a.copy()
        out = _transform(x.device.xp, a, "fftn" if forward else "ifftn", axes=dims, norm=norm)
        return out.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return FftC2C.apply(grad, ctx.dims, SWAP[ctx.norm], not ctx.fwd), None, None, None


class FftR2C(Function):
    """The onesided spectrum of a real signal along one dim."""
    node_name = "FftR2CBackward0"
    op_name = "fft_r2c"
    complex_ok = True

    @staticmethod
    def forward(ctx, x, dim, norm):
        a = x._data
        ctx.dim, ctx.norm, ctx.n = dim, norm, a.shape[dim]
        out = _transform(x.device.xp, a, "rfft", axis=dim, norm=norm)
        return out.astype(_dt.from_np(a.dtype).to_complex().np, copy=False)

    @staticmethod
    def backward(ctx, grad):
        """The full spectrum's adjoint on the bins kept (the rest zero), real part: torch's
        fft_r2c_backward."""
        full = resize(grad, ctx.dim, ctx.n)
        return Real.apply(FftC2C.apply(full, (ctx.dim,), SWAP[ctx.norm], False)), None, None


class FftC2R(Function):
    """n real samples from the n//2 + 1 bins of a Hermitian spectrum along one dim (the
    imaginary parts of bin 0, and of bin n/2 for even n, are ignored, as torch)."""
    node_name = "FftC2RBackward0"
    op_name = "fft_c2r"
    complex_ok = True

    @staticmethod
    def forward(ctx, y, dim, norm, n):
        ctx.dim, ctx.norm, ctx.n = dim, norm, n
        a = y._data
        out = _transform(y.device.xp, a, "irfft", n=n, axis=dim, norm=norm)
        return out.astype(_dt.from_np(a.dtype).to_real().np, copy=False)

    @staticmethod
    def backward(ctx, grad):
        """r2c of the gradient, the bins that stand for two (k and n - k) doubled: torch's
        fft_c2r_backward."""
        g = FftR2C.apply(grad, ctx.dim, SWAP[ctx.norm])
        m = g.shape[ctx.dim]
        double = ctx.n - m
        if double > 0:
            scale = np.ones(m, _dt.from_np(grad._data.dtype).np)
            scale[1:1 + double] = 2
            shape = [1] * g.dim()
            shape[ctx.dim] = m
            from ..creation import tensor
            g = g * tensor(scale.reshape(shape), device=grad.device)
        return g, None, None, None


def resize(x, dim, n):
    """x trimmed or zero-padded at the end of dim to length n (Tensor ops: differentiable)."""
    have = x.shape[dim]
    if have == n:
        return x
    if have > n:
        return x.narrow(dim, 0, n)
    from ..creation import zeros
    from .join import cat
    shape = list(x.shape)
    shape[dim] = n - have
    return cat([x, zeros(shape, dtype=x.dtype, device=x.device)], dim)
