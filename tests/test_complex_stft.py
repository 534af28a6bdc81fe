"""torch.stft / torch.istft and the window functions against torch: values, shapes, dtypes,
gradients (random complex upstream gradients), warnings and errors."""
import warnings

import numpy as np
import pytest

import labkit
from complex_oracle import check_complex, crand

torch = pytest.importorskip("torch")

CASES = [dict(n_fft=8), dict(n_fft=8, hop_length=3), dict(n_fft=16, win_length=10),
         dict(n_fft=8, center=False), dict(n_fft=8, pad_mode="constant"),
         dict(n_fft=8, pad_mode="replicate"), dict(n_fft=8, pad_mode="circular"),
         dict(n_fft=8, normalized=True), dict(n_fft=8, onesided=False)]


def _win(m, kw, hann):
    n = kw.get("win_length", kw["n_fft"])
    return m.hann_window(n, dtype=m.float64) if hann else m.ones(n, dtype=m.float64)


@pytest.mark.parametrize("hann", [False, True])
@pytest.mark.parametrize("shape", [(40,), (2, 37)], ids=str)
@pytest.mark.parametrize("kw", CASES, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
def test_stft(kw, shape, hann, device):
    x = np.random.default_rng(0).standard_normal(shape)
    f = lambda m: (lambda a: m.stft(a, window=_win(m, kw, hann).to(a.device), return_complex=True,
                                    **kw))
    check_complex(f(labkit), f(torch), [x], device)      # linear: no second derivative


@pytest.mark.parametrize("hann", [False, True])
@pytest.mark.parametrize("kw", [k for k in CASES if "pad_mode" not in k],
                         ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
def test_istft(kw, hann, device):
    if hann and kw.get("center") is False:
        pytest.skip("hann without centring breaks NOLA at the ends: test_istft_nola")
    x = torch.randn(2, 40, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    spec = torch.stft(x, window=_win(torch, kw, hann), return_complex=True, **kw).numpy()
    f = lambda m: (lambda s: m.istft(s, window=_win(m, kw, hann).to(s.device), length=40, **kw))
    check_complex(f(labkit), f(torch), [spec], device)
    if kw.get("onesided") is False:
        g = lambda m: (lambda s: m.istft(s, window=_win(m, kw, hann).to(s.device),
                                         return_complex=True, **kw))
        check_complex(g(labkit), g(torch), [spec], device)


def test_roundtrip_and_complex_input(device):
    x = labkit.randn(3, 50, dtype=labkit.float64, device=device)
    w = labkit.hann_window(16, dtype=labkit.float64, device=device)
    spec = labkit.stft(x, 16, hop_length=4, window=w, return_complex=True)
    back = labkit.istft(spec, 16, hop_length=4, window=w, length=50)
    np.testing.assert_allclose(back.cpu().numpy(), x.cpu().numpy(), atol=1e-12)
    z = crand((30,), 3)
    f = lambda m: (lambda a: m.stft(a, 8, window=m.hann_window(8, dtype=m.float64)
                                    .to(a.device)))
    check_complex(f(labkit), f(torch), [z], device)


def test_return_complex_false_and_warnings():
    x = np.random.default_rng(0).standard_normal(30)
    with pytest.warns(UserWarning, match="A window was not provided"):
        labkit.stft(labkit.tensor(x), 8, return_complex=True)
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        mine = labkit.stft(labkit.tensor(x), 8, window=labkit.ones(8, dtype=labkit.float64),
                           return_complex=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = torch.stft(torch.tensor(x), 8, window=torch.ones(8, dtype=torch.float64),
                         return_complex=False)
    assert tuple(mine.shape) == tuple(ref.shape)
    np.testing.assert_allclose(mine.numpy(), ref.numpy(), atol=1e-12)


ERRORS = [   # (call, words both messages carry)
    (lambda m: m.stft(m.randn(20), 8), "requires the return_complex parameter"),
    (lambda m: m.stft(m.randn(20), 32, center=False, return_complex=True),
     "expected 0 < n_fft < 20, but got n_fft=32"),
    (lambda m: m.stft(m.randn(20), 8, window=m.ones(6), return_complex=True),
     "expected a 1D window tensor of size equal to win_length=8"),
    (lambda m: m.istft(m.randn(5, 11), 8), "complex"),
    (lambda m: m.istft(m.stft(m.randn(40), 8, window=m.hann_window(8), center=False,
                              return_complex=True), 8, window=m.hann_window(8), center=False),
     "window overlap add min"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call, words = ERRORS[case]
        with pytest.raises(RuntimeError, match=words) as t_err:
            call(torch)
        with pytest.raises(RuntimeError, match=words) as err:
            call(labkit)
    assert str(err.value).startswith(("stft", "istft")), (str(t_err.value), str(err.value))


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window"])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 64])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_windows(name, n, periodic, dtype, device):
    mine = getattr(labkit, name)(n, periodic, dtype=getattr(labkit, dtype), device=device)
    ref = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype))
    assert str(mine.dtype)[7:] == str(ref.dtype)[6:] and tuple(mine.shape) == tuple(ref.shape)
    tol = 1e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(mine.cpu().numpy(), ref.numpy(), rtol=tol, atol=tol)


def test_window_errors():
    with pytest.raises(RuntimeError) as t_err:
        torch.hann_window(4, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="hann_window expects floating point"):
        labkit.hann_window(4, dtype=labkit.int64)
    assert "floating point" in str(t_err.value)
