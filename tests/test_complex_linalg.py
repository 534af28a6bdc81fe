"""linalg.eig / eigvals against torch (complex outputs from real or complex matrices, values,
dtypes, gradients of gauge-invariant losses, errors), and the conjugate transposes .mH / .H."""
import numpy as np
import pytest

import labkit
from complex_oracle import check_complex, crand

torch = pytest.importorskip("torch")


def _mat(shape, kind, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if kind.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(kind)


@pytest.mark.parametrize("kind", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (2, 3, 3), (0, 2, 2)], ids=str)
def test_eig_values_match_torch(kind, shape):
    a = _mat(shape, kind)
    tol = 1e-4 if kind in ("float32", "complex64") else 1e-10
    L, V = labkit.linalg.eig(labkit.tensor(a))
    tL, tV = torch.linalg.eig(torch.tensor(a))
    for mine, ref in ((L, tL), (V, tV)):
        assert str(mine.dtype)[7:] == str(ref.dtype)[6:]
    np.testing.assert_allclose(L.numpy(), tL.numpy(), rtol=tol, atol=tol)
    v, tv = V.numpy(), tV.numpy()
    if kind in ("float32", "complex64"):     # single-precision LAPACK: the same vectors up to
        phase = (v.conj() * tv).sum(-2, keepdims=True)    # a phase per column
        v = v * phase / np.maximum(np.abs(phase), 1e-30)
    np.testing.assert_allclose(v, tv, rtol=tol, atol=tol)
    np.testing.assert_allclose(labkit.linalg.eigvals(labkit.tensor(a)).numpy(),
                               torch.linalg.eigvals(torch.tensor(a)).numpy(), rtol=tol, atol=tol)
    av = labkit.tensor(a).to(L.dtype) @ V
    np.testing.assert_allclose(av.numpy(), (V * L.unsqueeze(-2)).numpy(), rtol=tol * 10,
                               atol=tol * 10)


@pytest.mark.parametrize("kind", ["float64", "complex128"])
def test_eig_gradients(kind):
    """Losses that do not depend on the eigenvectors' arbitrary phase (torch refuses the
    others): eigenvalues, |V|^2, V diag(L) V^{-1}-like products."""
    w = np.random.default_rng(1).standard_normal((4, 4))

    def f(m):
        def loss(a):
            L, V = m.linalg.eig(a)
            return L * 1.5, (V * V.conj()).real * m.tensor(w)
        return loss
    check_complex(f(labkit), f(torch), [_mat((2, 4, 4), kind, 3)], rtol=1e-7, atol=1e-9)
    check_complex(labkit.linalg.eigvals, torch.linalg.eigvals, [_mat((3, 3), kind, 4)])


@pytest.mark.parametrize("case", ["not_square", "vector", "int"])
def test_eig_errors(case):
    make = {"not_square": lambda m: m.ones(2, 3), "vector": lambda m: m.ones(3),
            "int": lambda m: m.ones(2, 2, dtype=m.int64)}[case]
    with pytest.raises(RuntimeError) as t_err:
        torch.linalg.eig(make(torch))
    with pytest.raises(RuntimeError, match="linalg.eig") as err:
        labkit.linalg.eig(make(labkit))
    if case != "int":
        assert str(t_err.value)[:30] in str(err.value)


def test_conjugate_transposes(device):
    z = crand((2, 3, 4), 1)
    check_complex(lambda x: x.mH, lambda x: x.mH, [z], device)
    check_complex(lambda x: x[0].H, lambda x: x[0].H, [z], device)
    check_complex(lambda x: x.mT, lambda x: x.mT, [z], device)
    x = np.random.default_rng(0).standard_normal((3, 2))
    check_complex(lambda a: a.mH, lambda a: a.mH, [x], device)
    check_complex(lambda a: a.H @ a, lambda a: a.H @ a, [z[0]], device)
