"""real/imag/view_as_real/view_as_complex are views (writes show through both ways, in-place
ops on them change the base, autograd follows), conj/resolve_conj, complex() and polar,
against torch: values, shapes, gradients, and the layout errors."""
import numpy as np
import pytest

import labkit
from complex_oracle import check_complex, crand

torch = pytest.importorskip("torch")


def _both(arr, device="cpu"):
    return labkit.tensor(arr, device=device), torch.tensor(arr)


def _same(mine, ref):
    np.testing.assert_array_equal(mine.detach().cpu().numpy(),
                                  ref.detach().resolve_conj().numpy())
    assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]


@pytest.mark.parametrize("shape", [(), (0,), (1,), (2, 3)], ids=str)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_real_imag_view_as_real_values(shape, dtype, device):
    z, tz = _both(crand(shape, 1, dtype), device)
    for f in (lambda x: x.real, lambda x: x.imag, lambda x: (labkit if isinstance(
            x, labkit.Tensor) else torch).view_as_real(x)):
        _same(f(z), f(tz))
        assert tuple(f(z).shape) == tuple(f(tz).shape)


def test_real_of_a_real_tensor_is_itself_and_imag_refuses():
    x, tx = _both(np.array([1.0, 2.0]))
    assert x.real is x or x.real.data_ptr() == x.data_ptr()
    with pytest.raises(RuntimeError) as t_err:
        tx.imag
    with pytest.raises(RuntimeError, match="imag.*complex|complex.*imag"):
        x.imag
    assert "non-complex" in str(t_err.value)


@pytest.mark.parametrize("part", ["real", "imag"])
def test_inplace_on_part_changes_base(part, device):
    z, tz = _both(crand((2, 3), 2), device)
    getattr(z, part).mul_(2)
    getattr(tz, part).mul_(2)
    _same(z, tz)
    getattr(z, part)[0, 1] = 7.0
    getattr(tz, part)[0, 1] = 7.0
    _same(z, tz)
    getattr(z, part).zero_()
    getattr(tz, part).zero_()
    _same(z, tz)


def test_assigning_real_and_imag_attributes(device):
    z, tz = _both(crand((3,), 3), device)
    z.real = labkit.tensor([1.0, 2.0, 3.0], device=device)
    tz.real = torch.tensor([1.0, 2.0, 3.0])
    z.imag = labkit.zeros(3, device=device)
    tz.imag = torch.zeros(3)
    _same(z, tz)


def test_view_as_real_writes_show_in_complex_and_back(device):
    z, tz = _both(crand((2, 2), 4), device)
    r, tr = labkit.view_as_real(z), torch.view_as_real(tz)
    r[..., 1].add_(1)
    tr[..., 1].add_(1)
    _same(z, tz)
    z.mul_(1j)
    tz.mul_(1j)
    _same(r, tr)


def test_view_as_complex_shares_memory(device):
    x, tx = _both(np.arange(12.0).reshape(3, 2, 2), device)
    c, tc = labkit.view_as_complex(x), torch.view_as_complex(tx)
    _same(c, tc)
    c[1, 0] = 5 - 5j
    tc[1, 0] = 5 - 5j
    _same(x, tx)
    x.neg_()
    tx.neg_()
    _same(c, tc)


@pytest.mark.parametrize("shape", [(0, 2), (3, 0, 2), (1, 2), (2,)], ids=str)
def test_view_as_complex_edge_shapes(shape, device):
    tx = torch.zeros(shape, dtype=torch.float64)
    x = labkit.zeros(shape, dtype=labkit.float64, device=device)
    _same(labkit.view_as_complex(x), torch.view_as_complex(tx))


@pytest.mark.parametrize("case", ["last_not_2", "zero_dim", "int", "noncontig_last",
                                  "odd_stride", "odd_offset", "complex_in"])
def test_view_as_complex_layout_errors(case):
    base = np.arange(24.0).reshape(4, 6)
    make = {
        "last_not_2": lambda m, x: x,
        "zero_dim": lambda m, x: x[0, 0],
        "int": lambda m, x: x.long().reshape(12, 2),
        "noncontig_last": lambda m, x: x.reshape(2, 12)[:, ::6].t().contiguous().t()[:, :2]
        if False else x.reshape(4, 3, 2).transpose(1, 2)[:, :2, :],
        "odd_stride": lambda m, x: x[:, :2].reshape(4, 2) if False else x[:, 1:3],
        "odd_offset": lambda m, x: x.reshape(-1)[1:5].reshape(2, 2),
        "complex_in": lambda m, x: m.view_as_real(x.to(m.complex64)).to(m.complex64),
    }[case]
    x, tx = _both(base)
    with pytest.raises(RuntimeError) as t_err:
        torch.view_as_complex(make(torch, tx))
    with pytest.raises(RuntimeError) as err:
        labkit.view_as_complex(make(labkit, x))
    msg = str(err.value)
    assert "view_as_complex" in msg, msg
    first = str(t_err.value).split("(")[0].split(",")[0][:30]
    assert first.lower() in msg.lower(), (str(t_err.value), msg)


def test_view_as_complex_of_half_says_labkit_lacks_complex32():
    assert torch.view_as_complex(torch.ones(2, 2).half()).dtype == torch.complex32
    with pytest.raises(RuntimeError, match="view_as_complex.*Half.*complex32"):
        labkit.view_as_complex(labkit.ones(2, 2).half())


def test_view_as_real_refuses_real():
    with pytest.raises(RuntimeError) as t_err:
        torch.view_as_real(torch.ones(2))
    with pytest.raises(RuntimeError, match="view_as_real is only supported for complex"):
        labkit.view_as_real(labkit.ones(2))
    assert "view_as_real is only supported for complex" in str(t_err.value)


def test_view_gradients(device):
    z = crand((3, 2), 5)
    for f in (lambda x: x.real * 3, lambda x: x.imag.exp(),
              lambda x: (labkit if isinstance(x, labkit.Tensor) else torch).view_as_real(x) ** 2,
              lambda x: x.real + x.imag * 1j):
        check_complex(f, f, [z], device, second=True)
    r = np.random.default_rng(0).standard_normal((3, 2, 2))
    f = lambda x: (labkit if isinstance(x, labkit.Tensor) else torch).view_as_complex(x) ** 2
    check_complex(f, f, [r], device, second=True)


def test_inplace_on_view_of_tracked_tensor_gradient(device):
    """A write through .real of a non-leaf: the gradient flows as in torch (CopySlices)."""
    def f(m, x):
        y = x * (1 + 1j)
        y.real.mul_(3)
        y.imag.add_(x.abs())
        return y
    z = crand((4,), 6, away_from_zero=True)
    check_complex(lambda x: f(labkit, x), lambda x: f(torch, x), [z], device)


def test_inplace_on_leaf_view_is_refused(device):
    z = labkit.tensor(crand((2,), 1), requires_grad=True, device=device)
    tz = torch.tensor(crand((2,), 1), requires_grad=True)
    with pytest.raises(RuntimeError):
        tz.real.mul_(2)
    with pytest.raises(RuntimeError, match="leaf"):
        z.real.mul_(2)


def test_conj_semantics(device):
    z, tz = _both(crand((3,), 7), device)
    c, tc = z.conj(), tz.conj()
    _same(c, tc)
    assert c.is_conj() == tc.is_conj() is True
    assert z.is_conj() == tz.is_conj() is False
    assert c.resolve_conj().is_conj() == tc.resolve_conj().is_conj() is False
    _same(c.resolve_conj(), tc.resolve_conj())
    _same(z.conj_physical(), tz.conj_physical())
    assert z.conj_physical().is_conj() == tz.conj_physical().is_conj()
    x, tx = _both(np.array([1.0, -2.0]), device)
    assert x.conj().is_conj() == tx.conj().is_conj() is False
    _same(x.conj(), tx.conj())
    _same(labkit.conj(z), torch.conj(tz))


def test_complex_and_polar_values_gradients(device):
    a = np.random.default_rng(1).uniform(0.5, 2, (2, 3))
    b = np.random.default_rng(2).uniform(-3, 3, (2, 3))
    for name in ("complex", "polar"):
        check_complex(getattr(labkit, name), getattr(torch, name), [a, b], device, second=True)
    check_complex(labkit.polar, torch.polar, [a[:1], b], device)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    check_complex(labkit.polar, torch.polar, [a32, b32], device, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", ["complex", "polar"])
def test_complex_and_polar_errors(fn):
    cases = [(torch.ones(2), torch.ones(2, dtype=torch.float64)),
             (torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64))]
    for ta, tb in cases:
        with pytest.raises(RuntimeError):
            getattr(torch, fn)(ta, tb)
        a = labkit.tensor(ta.numpy())
        b = labkit.tensor(tb.numpy())
        with pytest.raises(RuntimeError, match=fn):
            getattr(labkit, fn)(a, b)
    with pytest.raises(TypeError):
        getattr(torch, fn)(torch.ones(2), 1.0)
    with pytest.raises(TypeError, match="must be Tensor"):
        getattr(labkit, fn)(labkit.ones(2), 1.0)
