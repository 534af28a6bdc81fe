"""Shared checks for the op test files: first derivatives come from conftest's check_op; this
adds second derivatives (a Hessian-vector product through create_graph on both libraries) and
a way to run one expression on labkit and torch."""
import numpy as np

import labkit
from conftest import assert_close, check_op, twins


def run(device, f, *arrays, **kw):
    """f(M, *tensors) on labkit (M=labkit) and torch (M=torch), compared by check_op."""
    import torch
    return check_op(lambda *a: f(labkit, *a), lambda *a: f(torch, *a), list(arrays),
                    device=device, **kw)


def check_second(device, f, *arrays, seed=7, rtol=1e-7, atol=1e-10):
    """d/dx <d f / dx, v> for random upstream grads, on labkit and torch: second derivatives
    (float64 array inputs require grad; the rest are passed through)."""
    import torch
    rng = np.random.default_rng(seed)
    lk_in, t_in, lk_req, t_req = [], [], [], []
    for a in arrays:
        if isinstance(a, np.ndarray) and a.dtype == np.float64:
            x, t = twins(a, device)
            lk_req.append(x)
            t_req.append(t)
        elif isinstance(a, np.ndarray):
            x, t = labkit.tensor(a, device=device), torch.tensor(a)
        else:
            x = t = a
        lk_in.append(x)
        t_in.append(t)
    lk_out, t_out = f(labkit, *lk_in), f(torch, *t_in)
    g = rng.standard_normal(tuple(t_out.shape))
    lk_g = labkit.autograd.grad(lk_out, lk_req, labkit.tensor(g, device=device),
                                create_graph=True, allow_unused=True)
    t_g = torch.autograd.grad(t_out, t_req, torch.tensor(g), create_graph=True, allow_unused=True)
    vs = [rng.standard_normal(tuple(t.shape)) for t in t_req]
    lk_s = sum(((gi * labkit.tensor(v, device=device)).sum() for gi, v in zip(lk_g, vs)
                if gi is not None and gi.requires_grad),
               labkit.zeros((), dtype=labkit.float64, device=device))
    t_s = sum(((gi * torch.tensor(v)).sum() for gi, v in zip(t_g, vs)
               if gi is not None and gi.requires_grad), torch.zeros((), dtype=torch.float64))
    if not t_s.requires_grad:
        assert not lk_s.requires_grad or all(
            h is None or not np.any(h.detach().cpu().numpy())
            for h in labkit.autograd.grad(lk_s, lk_req, allow_unused=True)), \
            "torch has no second derivative here but labkit's is nonzero"
        return
    lk_h = labkit.autograd.grad(lk_s, lk_req, allow_unused=True)
    t_h = torch.autograd.grad(t_s, t_req, allow_unused=True)
    for i, (m, r, x) in enumerate(zip(lk_h, t_h, t_req)):
        r = torch.zeros_like(x) if r is None or r._is_zerotensor() else r
        m = np.zeros(tuple(x.shape)) if m is None else m
        assert_close(m, r, rtol, atol, what=f"second derivative, input {i}")


def arr(shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def positive(shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.5, size=shape)
