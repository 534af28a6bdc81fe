"""labkit.fft, as torch.fft: discrete Fourier transforms with torch's arguments (n/s, dim,
norm), dtypes (float32 -> complex64, integers as the default float) and gradients.

Every transform here is one of three Functions (engine/ops/complex_fft.py: c2c, r2c, c2r)
after the input is trimmed or zero-padded to the requested sizes with Tensor ops; the
n-dimensional real transforms are r2c on the last dim then c2c on the others (and the reverse).
"""
import numpy as np

from .engine import dtype as _dt
from .engine.creation import _finish
from .engine.defaults import get_default_dtype
from .engine.ops.complex_fft import SWAP, FftC2C, FftC2R, FftR2C, resize
from .engine.ops.layout import roll
from .engine.tensor import Tensor

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


# --- arguments ------------------------------------------------------------------------------

def _norm(norm):
    if norm is None:
        return "backward"
    if norm not in SWAP:
        raise RuntimeError(f'Invalid normalization mode: "{norm}" (labkit.fft takes None, '
                           '"backward", "ortho" or "forward").')
    return norm


def _wrap(x, d):
    nd = x.dim()
    if nd == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions (an FFT "
                         "needs a dimension to transform: x.reshape(1) for one sample).")
    if not -nd <= d < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                         f"{nd - 1}], but got {d})")
    return d % nd


def _points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified: an FFT needs at "
                           "least one sample along each transformed dim.")
    return n


def _plan(x, s, dim):
    """(dims, sizes) as torch resolves fftn's s and dim."""
    if dim is None:
        if s is None:
            dims = tuple(range(x.dim()))
        else:
            if len(s) > x.dim():
                raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                                   f"{x.dim()} dimensions.")
            dims = tuple(range(x.dim() - len(s), x.dim()))
    else:
        dims = tuple(_wrap(x, d) for d in ((dim,) if isinstance(dim, int) else dim))
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"FFT dims must be unique (got dim={dim}).")
        if s is not None and len(s) != len(dims):
            raise RuntimeError(f"When given, dim and shape arguments must have the same length "
                               f"(s={tuple(s)}, dim={tuple(dim)}).")
    if s is None:
        sizes = tuple(x.shape[d] for d in dims)
    else:
        sizes = tuple(x.shape[d] if n == -1 else n for d, n in zip(dims, s))
    for n in sizes:
        _points(n)
    return dims, sizes


def _float_of(x, name):
    """x as a floating tensor (integers and bools as the default float); half refused."""
    k = x._data.dtype.kind
    if k in "iub":
        return x.to(get_default_dtype())
    if x.dtype in (_dt.float16, _dt.bfloat16):
        raise RuntimeError(f"Unsupported dtype {_dt.scalar_type_name(x)} ({name}: labkit's "
                           "FFTs, as torch's on the CPU, take float32 or float64). Convert "
                           "first: x.float().")
    return x


def _complex_of(x, name):
    x = _float_of(x, name)
    return x if x.is_complex() else x.to(x.dtype.to_complex())


def _real_of(x, name):
    if x.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got "
                           f"{_dt.scalar_type_name(x)}. Use labkit.fft.fft for complex "
                           "signals (or pass x.real).")
    return _float_of(x, name)


def _check(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(x).__name__}")


def _resized(x, dims, sizes):
    for d, n in zip(dims, sizes):
        x = resize(x, d, n)
    return x


# --- complex to complex -----------------------------------------------------------------

def _c2c(name, input, s, dim, norm, forward):
    _check(input, name)
    norm = _norm(norm)
    dims, sizes = _plan(input, s, dim)
    x = _resized(_complex_of(input, name), dims, sizes)
    return FftC2C.apply(x, dims, norm, forward)


def _one(n):
    return None if n is None else (_points(n),)


def fft(input, n=None, dim=-1, norm=None):
    """The 1-D discrete Fourier transform along dim (zero-padded or trimmed to n)."""
    return _c2c("fft", input, _one(n), dim, norm, True)


def ifft(input, n=None, dim=-1, norm=None):
    """The inverse of fft (1/n by default)."""
    return _c2c("ifft", input, _one(n), dim, norm, False)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    return _c2c("fft2", input, s, dim, norm, True)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    return _c2c("ifft2", input, s, dim, norm, False)


def fftn(input, s=None, dim=None, norm=None):
    """The N-D transform over dim (all dims, or the last len(s) when only s is given)."""
    return _c2c("fftn", input, s, dim, norm, True)


def ifftn(input, s=None, dim=None, norm=None):
    return _c2c("ifftn", input, s, dim, norm, False)


# --- real signals ---------------------------------------------------------------------------

def _r2c(name, input, s, dim, norm):
    _check(input, name)
    norm = _norm(norm)
    dims, sizes = _plan(input, s, dim)
    x = _resized(_real_of(input, name), dims, sizes)
    if not dims:
        return x.to(x.dtype.to_complex())
    out = FftR2C.apply(x, dims[-1], norm)
    return FftC2C.apply(out, dims[:-1], norm, True) if len(dims) > 1 else out


def _c2r(name, input, s, dim, norm):
    _check(input, name)
    norm = _norm(norm)
    y = _complex_of(input, name)
    if s is None:         # the last dim's length: 2 (m - 1) from its m bins
        dims, sizes = _plan(input, None, dim)
        if not dims:
            raise RuntimeError(f"{name}: no dims to transform (input of shape "
                               f"{tuple(input.shape)}).")
        sizes = sizes[:-1] + (_points(2 * (input.shape[dims[-1]] - 1)),)
    else:
        dims, sizes = _plan(input, s, dim)
        if s and s[-1] == -1:
            sizes = sizes[:-1] + (_points(2 * (input.shape[dims[-1]] - 1)),)
    n = sizes[-1]
    y = _resized(y, dims, sizes[:-1] + (n // 2 + 1,))
    if len(dims) > 1:
        y = FftC2C.apply(y, dims[:-1], norm, False)
    return FftC2R.apply(y, dims[-1], norm, n)


def rfft(input, n=None, dim=-1, norm=None):
    """The n//2 + 1 non-redundant bins of a real signal's transform along dim."""
    return _r2c("rfft", input, _one(n), (dim,) if isinstance(dim, int) else dim, norm)


def irfft(input, n=None, dim=-1, norm=None):
    """n real samples (default 2 (m - 1)) from m onesided bins: the inverse of rfft."""
    return _c2r("irfft", input, _one(n), (dim,) if isinstance(dim, int) else dim, norm)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    return _r2c("rfft2", input, s, dim, norm)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    return _c2r("irfft2", input, s, dim, norm)


def rfftn(input, s=None, dim=None, norm=None):
    return _r2c("rfftn", input, s, dim, norm)


def irfftn(input, s=None, dim=None, norm=None):
    return _c2r("irfftn", input, s, dim, norm)


def hfft(input, n=None, dim=-1, norm=None):
    """The real transform of a signal with a Hermitian-symmetric half (as torch: irfft of the
    conjugate with the opposite normalization)."""
    return irfft(input.conj() if isinstance(input, Tensor) else input, n, dim,
                 SWAP[_norm(norm)])


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of hfft: the conjugate of rfft with the opposite normalization."""
    _check(input, "ihfft")
    _real_of(input, "ihfft")
    return rfft(input, n, dim, SWAP[_norm(norm)]).conj()


# --- helpers -------------------------------------------------------------------------------

def _freq_dtype(name, dtype):
    dt = dtype if dtype is not None else get_default_dtype()
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype (got {dt}).")
    return dt


def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The sample frequencies of fft(x) for n samples d apart: [0, 1, ..., -1] / (d n)."""
    dt = _freq_dtype("fftfreq", dtype)
    arr = np.arange(n, dtype=np.float64)
    arr[(n + 1) // 2:] -= n
    out = arr.astype(dt.np) * dt.np.type(1.0 / (n * d))
    return _finish(np.asarray(out, dt.np), None, device, requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The sample frequencies of rfft(x): [0, 1, ..., n // 2] / (d n)."""
    dt = _freq_dtype("rfftfreq", dtype)
    out = np.arange(n // 2 + 1, dtype=dt.np) * dt.np.type(1.0 / (n * d))
    return _finish(np.asarray(out, dt.np), None, device, requires_grad)


def _shift(input, dim, half):
    dims = tuple(range(input.dim())) if dim is None else \
        ((dim,) if isinstance(dim, int) else tuple(dim))
    if not dims:
        return input
    dims = tuple(_wrap(input, d) for d in dims)
    return roll(input, tuple(half(input.shape[d]) for d in dims), dims)


def fftshift(input, dim=None):
    """The zero-frequency bin moved to the centre (a roll by n // 2 on each dim)."""
    return _shift(input, dim, lambda n: n // 2)


def ifftshift(input, dim=None):
    """The inverse of fftshift (a roll by -(n // 2))."""
    return _shift(input, dim, lambda n: (n + 1) // 2)
