"""labkit.fft against torch.fft: values, dtypes, shapes for every transform, n/s (padding and
trimming), dim, the three norms; gradients for random upstream gradients (the adjoint
transforms; rfft/irfft's halving and doubling of the bins that stand for two) and second
derivatives; torch's errors; fftfreq/rfftfreq/fftshift."""
import numpy as np
import pytest

import labkit
from complex_oracle import check_complex, crand

torch = pytest.importorskip("torch")

NORMS = [None, "backward", "ortho", "forward"]


def _real(shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _pair(name):
    return getattr(labkit.fft, name), getattr(torch.fft, name)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 1, 5, 8, 13])
@pytest.mark.parametrize("name", ["fft", "ifft"])
@pytest.mark.parametrize("kind", ["real", "complex"])
def test_c2c_1d(name, n, norm, kind, device):
    x = _real((3, 8), 1) if kind == "real" else crand((3, 8), 1)
    f_lk, f_t = _pair(name)
    check_complex(lambda a: f_lk(a, n=n, norm=norm), lambda a: f_t(a, n=n, norm=norm), [x],
                  device, second=True)


@pytest.mark.parametrize("dim", [0, 1, -3])
def test_c2c_dim(dim, device):
    z = crand((4, 5, 6), 2)
    for name in ("fft", "ifft"):
        f_lk, f_t = _pair(name)
        check_complex(lambda a: f_lk(a, n=7, dim=dim), lambda a: f_t(a, n=7, dim=dim), [z],
                      device)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 1, 2, 7, 8, 12])
@pytest.mark.parametrize("name", ["rfft", "ihfft"])
def test_real_to_onesided(name, n, norm, device):
    f_lk, f_t = _pair(name)
    check_complex(lambda a: f_lk(a, n=n, norm=norm), lambda a: f_t(a, n=n, norm=norm),
                  [_real((2, 8), 3)], device, second=True)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 1, 2, 7, 8, 12])
@pytest.mark.parametrize("name", ["irfft", "hfft"])
def test_onesided_to_real(name, n, norm, device):
    """The gradient doubles the bins that stand for k and n - k (torch's formula), and the
    imaginary parts of bin 0 (and n/2) get no gradient since they are ignored."""
    f_lk, f_t = _pair(name)
    check_complex(lambda a: f_lk(a, n=n, norm=norm), lambda a: f_t(a, n=n, norm=norm),
                  [crand((2, 5), 4)], device, second=True)


def test_irfft_of_rfft_roundtrip_and_gradient(device):
    x = _real((4, 9), 5)
    f = lambda m: (lambda a: m.fft.irfft(m.fft.rfft(a) * 0.5j + 1, n=9))
    check_complex(f(labkit), f(torch), [x], device, second=True)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s", [None, (4, 6), (2, 9), (-1, 3)], ids=str)
@pytest.mark.parametrize("name", ["fft2", "ifft2", "fftn", "ifftn"])
def test_c2c_nd(name, s, norm, device):
    f_lk, f_t = _pair(name)
    check_complex(lambda a: f_lk(a, s=s, norm=norm), lambda a: f_t(a, s=s, norm=norm),
                  [crand((2, 3, 8), 6)], device)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s", [None, (4, 6), (2, 9), (3,)], ids=str)
@pytest.mark.parametrize("name", ["rfft2", "rfftn", "irfft2", "irfftn"])
def test_real_nd(name, s, norm, device):
    if s == (3,) and name.endswith("2"):
        pytest.skip("fft2 takes two sizes")
    f_lk, f_t = _pair(name)
    x = _real((2, 4, 6), 7) if name.startswith("r") else crand((2, 4, 6), 7)
    check_complex(lambda a: f_lk(a, s=s, norm=norm), lambda a: f_t(a, s=s, norm=norm), [x],
                  device, second=(s is None))


@pytest.mark.parametrize("dim", [(0, 2), (2, 0), (1,), (-1, 0, 1)], ids=str)
def test_nd_dims_in_any_order(dim, device):
    for name in ("fftn", "ifftn", "rfftn", "irfftn"):
        f_lk, f_t = _pair(name)
        x = _real((3, 4, 6), 8) if name == "rfftn" else crand((3, 4, 6), 8)
        check_complex(lambda a: f_lk(a, dim=dim), lambda a: f_t(a, dim=dim), [x], device)


@pytest.mark.parametrize("src,want", [("float32", "complex64"), ("float64", "complex128"),
                                       ("int64", "complex64"), ("bool", "complex64"),
                                       ("complex64", "complex64")])
def test_dtypes(src, want, device):
    x = labkit.ones(4, dtype=getattr(labkit, src), device=device)
    tx = torch.ones(4, dtype=getattr(torch, src))
    assert str(labkit.fft.fft(x).dtype).endswith(want)
    assert str(torch.fft.fft(tx).dtype).endswith(want)
    if not x.is_complex():
        assert str(labkit.fft.rfft(x).dtype) == "labkit." + str(torch.fft.rfft(tx).dtype)[6:]
    assert str(labkit.fft.irfft(x).dtype)[7:] == str(torch.fft.irfft(tx).dtype)[6:]


def test_single_precision_values(device):
    x = _real((16,), 9, np.float32)
    for name in ("fft", "rfft", "ihfft"):
        f_lk, f_t = _pair(name)
        check_complex(f_lk, f_t, [x], device, rtol=1e-5, atol=1e-5)
    for name in ("irfft", "hfft", "ifft"):
        f_lk, f_t = _pair(name)
        check_complex(f_lk, f_t, [crand((9,), 9, np.complex64)], device, rtol=1e-5, atol=1e-5)


def test_edge_shapes(device):
    check_complex(labkit.fft.fftn, torch.fft.fftn, [np.array(2.0 + 1j)], device)   # 0-d
    check_complex(labkit.fft.fft, torch.fft.fft, [crand((1,), 1)], device)
    check_complex(labkit.fft.rfft, torch.fft.rfft, [_real((1,), 1)], device)
    check_complex(labkit.fft.fft, torch.fft.fft, [crand((5, 1), 1)], device)
    # a size-0 batch dim: torch's CPU build fails inside MKL; labkit gives the empty result
    out = labkit.fft.fft(labkit.zeros(0, 3, device=device))
    assert tuple(out.shape) == (0, 3) and out.dtype == labkit.complex64


ERRORS = [
    ("fft", lambda m: m.fft.fft(m.zeros(0))),
    ("fft", lambda m: m.fft.fft(m.ones(3), n=0)),
    ("fft", lambda m: m.fft.fft(m.ones(3), n=-1)),
    ("fft", lambda m: m.fft.fft(m.ones(3), dim=2)),
    ("fft", lambda m: m.fft.fft(m.tensor(1.0))),
    ("fft", lambda m: m.fft.fft(m.ones(3), norm="bad")),
    ("fft", lambda m: m.fft.fft(m.ones(3, dtype=m.float16))),
    ("rfft", lambda m: m.fft.rfft(m.ones(3, dtype=m.complex64))),
    ("ihfft", lambda m: m.fft.ihfft(m.ones(3, dtype=m.complex64))),
    ("irfft", lambda m: m.fft.irfft(m.ones(1, dtype=m.complex64))),
    ("fft2", lambda m: m.fft.fft2(m.ones(3))),
    ("fftn", lambda m: m.fft.fftn(m.ones(2, 3), s=(4,), dim=(0, 1))),
    ("fftn", lambda m: m.fft.fftn(m.ones(2, 3), s=(4, 5, 6))),
    ("fftn", lambda m: m.fft.fftn(m.ones(2, 3), dim=(0, 0))),
    ("fftfreq", lambda m: m.fft.fftfreq(5, dtype=m.int64)),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_as_torch(case):
    name, f = ERRORS[case]
    with pytest.raises(Exception) as t_err:
        f(torch)
    with pytest.raises(Exception) as err:
        f(labkit)
    assert type(err.value) is type(t_err.value), (t_err.value, err.value)
    head = str(t_err.value).split(":")[0][:25]
    assert head in str(err.value), (str(t_err.value), str(err.value))


@pytest.mark.parametrize("n", [1, 4, 5])
@pytest.mark.parametrize("d", [1.0, 0.1])
@pytest.mark.parametrize("dtype", [None, "float64"])
def test_fftfreq(n, d, dtype, device):
    kw = {} if dtype is None else {"dtype": getattr(labkit, dtype)}
    tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    for name in ("fftfreq", "rfftfreq"):
        mine = getattr(labkit.fft, name)(n, d, device=device, **kw)
        ref = getattr(torch.fft, name)(n, d, **tkw)
        assert str(mine.dtype)[7:] == str(ref.dtype)[6:]
        np.testing.assert_array_equal(mine.cpu().numpy(), ref.numpy())


@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("shape", [(4, 5), (1, 3), (0, 2)], ids=str)
def test_fftshift(dim, shape, device):
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    for name in ("fftshift", "ifftshift"):
        f_lk, f_t = _pair(name)
        check_complex(lambda a: f_lk(a, dim=dim), lambda a: f_t(a, dim=dim), [x], device)
    a = labkit.tensor(x)
    np.testing.assert_array_equal(labkit.fft.ifftshift(labkit.fft.fftshift(a, dim), dim).numpy(), x)


def test_fftshift_of_fftfreq_is_sorted():
    f = labkit.fft.fftshift(labkit.fft.fftfreq(7))
    assert f.tolist() == sorted(f.tolist())
    np.testing.assert_array_equal(f.numpy(), torch.fft.fftshift(torch.fft.fftfreq(7)).numpy())


def test_real_loss_through_spectrum(device):
    """A power spectrum loss on a real signal: the path of a spectral regularizer."""
    def f(m, x, w):
        spec = m.fft.rfft(x * w, norm="ortho")
        return (spec.abs() ** 2).sum() + m.fft.irfft(spec * spec.conj(), n=x.shape[-1]).sum()
    check_complex(lambda a, b: f(labkit, a, b), lambda a, b: f(torch, a, b),
                  [_real((3, 10), 1), _real((10,), 2)], device, second=True)
