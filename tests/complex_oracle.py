"""Oracle helpers for complex tensors: labkit/torch twins of complex data, and a check that
compares values, dtypes and gradients (random complex upstream gradients: torch's conjugate
Wirtinger convention) and, on request, second derivatives.

torch is imported lazily (the test files call pytest.importorskip first).
"""
import numpy as np

import labkit
from conftest import assert_close


def crand(shape, seed=0, dtype=np.complex128, scale=1.0, away_from_zero=False):
    """Deterministic complex data (real and imaginary parts uniform in [-scale, scale])."""
    rng = np.random.default_rng(seed)
    z = rng.uniform(-scale, scale, size=shape) + 1j * rng.uniform(-scale, scale, size=shape)
    if away_from_zero:
        z = np.where(np.abs(z) < 0.2, z + 0.5 + 0.5j, z)
    return np.asarray(z, dtype=dtype)


def _pair(arr, device, rg):
    import torch
    if not isinstance(arr, np.ndarray):
        return arr, arr
    rg = rg and arr.dtype.kind in "fc"
    return (labkit.tensor(arr, device=device, requires_grad=rg),
            torch.tensor(arr, requires_grad=rg))


def _resolved(x):
    """torch's lazy conj/neg bits resolved (its numpy() refuses them)."""
    return x.resolve_conj().resolve_neg() if hasattr(x, "resolve_conj") else x


def _name(dt):
    return str(dt).split(".")[-1]


def _upstream(rng, r):
    g = rng.standard_normal(tuple(r.shape))
    if r.is_complex():
        g = g + 1j * rng.standard_normal(tuple(r.shape))
    return g.astype(np.dtype(_name(r.dtype)))


def check_complex(f_lk, f_t, arrays, device="cpu", rtol=1e-7, atol=1e-10, grad=True,
                  second=False, seed=7):
    """f on labkit and torch twins of `arrays` (numpy arrays become tensors that require grad
    when float or complex; anything else passes unchanged). Compares outputs (value, dtype,
    shape), first derivatives for random upstream gradients, and with `second` the gradient
    of a random real projection of those first derivatives (create_graph=True)."""
    import torch
    pairs = [_pair(a, device, grad) for a in arrays]
    lk_in, t_in = [p[0] for p in pairs], [p[1] for p in pairs]
    lk_out, t_out = f_lk(*lk_in), f_t(*t_in)
    single = not isinstance(t_out, (tuple, list))
    lk_out, t_out = ([lk_out], [t_out]) if single else (list(lk_out), list(t_out))
    for i, (m, r) in enumerate(zip(lk_out, t_out)):
        assert_close(m, _resolved(r), rtol, atol, what=f"output {i}")
        if isinstance(r, torch.Tensor):
            assert _name(m.dtype) == _name(r.dtype), f"output {i}: {m.dtype} != {r.dtype}"
    lk_req = [a for a in lk_in if isinstance(a, labkit.Tensor) and a.requires_grad]
    t_req = [a for a in t_in if isinstance(a, torch.Tensor) and a.requires_grad]
    if not t_req:
        return lk_out, t_out
    rng = np.random.default_rng(seed)
    pick = [(m, r) for m, r in zip(lk_out, t_out) if isinstance(r, torch.Tensor) and r.requires_grad]
    assert all(m.requires_grad for m, _ in pick), "torch's output requires grad, labkit's not"
    gs = [_upstream(rng, r) for _, r in pick]
    lk_g = labkit.autograd.grad([m for m, _ in pick], lk_req,
                                [labkit.tensor(g, device=device) for g in gs],
                                allow_unused=True, create_graph=second)
    t_g = torch.autograd.grad([r for _, r in pick], t_req, [torch.tensor(g) for g in gs],
                              allow_unused=True, create_graph=second)
    for i, (m, r, x) in enumerate(zip(lk_g, t_g, t_req)):
        assert_close(np.zeros(tuple(x.shape)) if m is None else m,
                     torch.zeros_like(x) if r is None else _resolved(r), rtol, atol,
                     what=f"gradient of input {i}")
        if m is not None and r is not None:
            assert _name(m.dtype) == _name(r.dtype), f"gradient {i}: {m.dtype} != {r.dtype}"
    if second:
        lk_s, t_s = [], []
        for m, r in zip(lk_g, t_g):
            if r is None or not r.requires_grad:
                continue
            w = _upstream(rng, r)
            lk_s.append((m * labkit.tensor(w, device=device)).real.sum())
            t_s.append((r * torch.tensor(w)).real.sum())
        if t_s:
            lk2 = labkit.autograd.grad(sum(lk_s), lk_req, allow_unused=True)
            t2 = torch.autograd.grad(sum(t_s), t_req, allow_unused=True)
            for i, (m, r, x) in enumerate(zip(lk2, t2, t_req)):
                assert_close(np.zeros(tuple(x.shape)) if m is None else m,
                             torch.zeros_like(x) if r is None else _resolved(r), rtol,
                             atol, what=f"second derivative of input {i}")
    return lk_out, t_out
