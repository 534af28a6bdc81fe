"""torch.stft and torch.istft, composed of Tensor ops (padding and framing by indexing, the
window a product, the transforms labkit.fft's, overlap-add an index_add), so both are
differentiable to any order and run on every device. torch's arguments, defaults, shapes
((batch,) freq, frames), warnings and errors."""
import warnings

from ..tensor import Tensor
from .complex_fft import FftC2C, FftC2R, FftR2C


def _last(x):
    return x.dim() - 1


def _spectra(frames, onesided, norm):
    """The transform of each frame (the last dim)."""
    if onesided:
        return FftR2C.apply(frames, _last(frames), norm)
    if not frames.is_complex():
        frames = frames.to(frames.dtype.to_complex())
    return FftC2C.apply(frames, (_last(frames),), norm, True)


def _signals(spec, n_fft, onesided, norm):
    """The frames back from their spectra (the last dim)."""
    if onesided:
        return FftC2R.apply(spec, _last(spec), norm, n_fft)
    return FftC2C.apply(spec, (_last(spec),), norm, False)


def _arange(n, device):
    from ..creation import arange
    return arange(n, device=device)


def _pad_index(n, p, mode, device):
    """Indices into a signal of length n that pad it by p on each side."""
    from ..creation import tensor
    import numpy as np
    i = np.arange(-p, n + p)
    if mode == "reflect":
        if p >= n:
            raise RuntimeError(f"stft: padding size {p} must be less than the input length {n} "
                               "with pad_mode='reflect' (use a shorter n_fft or center=False).")
        i = np.abs(i)
        i = np.where(i > n - 1, 2 * (n - 1) - i, i)
    elif mode == "replicate":
        i = np.clip(i, 0, n - 1)
    elif mode == "circular":
        i = i % n
    else:
        raise RuntimeError(f"stft: pad_mode must be 'constant', 'reflect', 'replicate' or "
                           f"'circular', got {mode!r}.")
    return tensor(i, device=device)


def _padded(x, p, mode):
    if mode == "constant":
        from ..creation import zeros
        from .join import cat
        z = zeros((*x.shape[:-1], p), dtype=x.dtype, device=x.device)
        return cat([z, x, z], -1)
    return x[..., _pad_index(x.shape[-1], p, mode, x.device)]


def _window(name, window, n_fft, win_length, x, note):
    if window is None:
        warnings.warn(f"A window was not provided. A rectangular window will be applied{note}"
                      f"To suppress this warning and use a rectangular window, explicitly set "
                      f"`window=torch.ones(n_fft, device=<device>)`.", UserWarning, stacklevel=3)
        from ..creation import ones
        window = ones(win_length, dtype=x.dtype.to_real(), device=x.device)
    elif window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{name}: expected a 1D window tensor of size equal to win_length="
                           f"{win_length}, but got window with size {list(window.shape)}")
    if win_length < n_fft:                        # centred in the frame, zeros around
        from ..creation import zeros
        from .join import cat
        left = (n_fft - win_length) // 2
        window = cat([zeros(left, dtype=window.dtype, device=window.device), window,
                      zeros(n_fft - win_length - left, dtype=window.dtype,
                            device=window.device)])
    return window


def _sizes(name, n_fft, hop_length, win_length):
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if hop <= 0:
        raise RuntimeError(f"{name}: expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"{name}: expected 0 < win_length <= n_fft, but got win_length={win}")
    return hop, win


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None):
    """Short-time Fourier transform: the spectra of windowed frames n_fft long, hop apart."""
    if not isinstance(input, Tensor):
        raise TypeError(f"stft(): argument 'input' must be Tensor, not {type(input).__name__}")
    if return_complex is None:
        if not (input.is_complex() or (window is not None and window.is_complex())):
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in a "
                               "future PyTorch release.")
        return_complex = True
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch "
                      "release, stft will return complex tensors for all inputs, and "
                      "return_complex=False will raise an error.\nNote: you can still call "
                      "torch.view_as_real on the complex output to recover the old return "
                      "format.", UserWarning, stacklevel=2)
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, got {input.dim()}D "
                           f"(shape {tuple(input.shape)}).")
    hop, win = _sizes("stft", n_fft, hop_length, win_length)
    x = input
    if not (x.is_floating_point() or x.is_complex()):
        from ..defaults import get_default_dtype
        x = x.to(get_default_dtype())
    if center:
        x = _padded(x, n_fft // 2, pad_mode)
    length = x.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft} "
                           "(the frames must fit in the signal).")
    w = _window("stft", window, n_fft, win, x, ", which is known to cause spectral leakage. "
                "Other windows such as torch.hann_window or torch.hamming_window are "
                "recommended to reduce spectral leakage.")
    n_frames = 1 + (length - n_fft) // hop
    idx = _arange(n_frames, x.device).unsqueeze(1) * hop + _arange(n_fft, x.device)
    frames = x[..., idx] * w                               # (..., frames, n_fft)
    complex_in = x.is_complex() or w.is_complex()
    if onesided is None:
        onesided = not complex_in
    if onesided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spec = _spectra(frames, onesided, norm)
    spec = spec.transpose(-1, -2)
    if not return_complex:
        from .complex import view_as_real
        return view_as_real(spec.contiguous())
    return spec


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of stft: inverse transforms of the frames, windowed, overlap-added, and
    divided by the overlap-added squared window."""
    if not isinstance(input, Tensor) or not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex "
                           f"dtype, got shape {tuple(input.shape)}.")
    hop, win = _sizes("istft", n_fft, hop_length, win_length)
    if onesided is None:
        onesided = input.shape[-2] != n_fft
    expect = n_fft // 2 + 1 if onesided else n_fft
    if input.shape[-2] != expect:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the "
                           f"input tensor to match n_fft / 2 + 1 when onesided=True, but got "
                           f"{input.shape[-2]}" if onesided else
                           f"istft: expected the frequency dimension to match n_fft={n_fft} "
                           f"when onesided=False, but got {input.shape[-2]}")
    if onesided and return_complex:
        raise RuntimeError("cannot have onesided output if window or input is complex")
    w = _window("istft", window, n_fft, win, input, ".Please provide the same window used by "
                "stft to make the inversion lossless.")
    spec = input.transpose(-1, -2)                            # (..., frames, freq)
    norm = "ortho" if normalized else "backward"
    if not return_complex:      # as torch: a real output reads the spectrum as Hermitian (c2r)
        spec = spec.narrow(-1, 0, n_fft // 2 + 1)
    frames = _signals(spec.contiguous(), n_fft, not return_complex, norm)
    frames = frames * w
    n_frames = frames.shape[-2]
    total = n_fft + hop * (n_frames - 1)
    idx = (_arange(n_frames, input.device).unsqueeze(1) * hop + _arange(n_fft, input.device))
    from ..creation import zeros
    y = zeros((*frames.shape[:-2], total), dtype=frames.dtype, device=frames.device)
    y = y.index_add(-1, idx.reshape(-1), frames.reshape(*frames.shape[:-2], -1))
    wsq = (w.abs() ** 2 if w.is_complex() else w * w).detach()
    env = zeros(total, dtype=wsq.dtype, device=wsq.device).index_add(
        0, idx.reshape(-1), wsq.expand(n_frames, n_fft).reshape(-1))
    start = n_fft // 2 if center else 0
    end = total - n_fft // 2 if center else total
    if length is not None:
        end = start + length
    y, env = y[..., start:min(end, total)], env[start:min(end, total)]
    if bool((env.abs() < 1e-11).any()):
        raise RuntimeError("istft: window overlap add min: the squared window sums to (nearly) "
                           "zero somewhere, so the signal cannot be recovered there (NOLA "
                           "condition). Use a window and hop that overlap, e.g. hann_window "
                           "with hop = n_fft // 4.")
    y = y / env
    if length is not None and end > total:
        from .join import cat
        y = cat([y, zeros((*y.shape[:-1], end - total), dtype=y.dtype, device=y.device)], -1)
    return y


Tensor.stft = stft
Tensor.istft = istft

