"""torch.hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window: the
tapers a short-time Fourier transform multiplies each frame by. periodic=True (the default)
gives the window for spectral analysis: the symmetric window of length N + 1 without its last
point, so that frames overlap-add to a constant."""
import math

import numpy as np

from ..creation import tensor
from ..defaults import get_default_dtype
from .. import dtype as _dt


def _window(name, n, periodic, dtype, device, requires_grad, fill):
    if n < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={n}")
    dtype = dtype or get_default_dtype()
    if not _dt.to_np(dtype).kind in "fV":
        raise RuntimeError(f"{name} expects floating point dtypes, got {dtype}: pass "
                           "dtype=labkit.float32 or float64.")
    if n <= 1:
        values = np.ones(n)
    else:
        m = n + 1 if periodic else n
        values = fill(np.arange(m, dtype=np.float64), m)[:n]
    return tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)


def _generalized_cosine(alpha, beta):
    return lambda i, m: alpha - beta * np.cos(i * (2 * math.pi / (m - 1)))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """alpha - beta cos(2 pi n / (N - 1))."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   _generalized_cosine(alpha, beta))


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """sin^2(pi n / (N - 1)): a Hamming window with alpha = beta = 0.5 (zero at both ends)."""
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   _generalized_cosine(0.5, 0.5))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1)): lower side lobes."""
    def fill(i, m):
        w = i * (math.pi / (m - 1))
        return 0.08 * np.cos(4 * w) - 0.5 * np.cos(2 * w) + 0.42
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   fill)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The triangle 1 - |2n / (N - 1) - 1|."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda i, m: 1 - np.abs(i * (2 / (m - 1)) - 1))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta): beta trades main-lobe width for
    side-lobe height."""
    def fill(i, m):
        return np.i0(beta * np.sqrt(np.clip(1 - (i * (2 / (m - 1)) - 1) ** 2, 0, None))) \
            / np.i0(beta)
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, fill)
