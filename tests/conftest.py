"""Shared fixtures: the device to run on, and twin labkit/torch inputs for the oracle tests.

torch is never imported here: the oracle test files import it with pytest.importorskip, and the
helpers below import it lazily, so the rest of the suite runs where PyTorch is not installed.
"""
import os
import pathlib
import sys
import types

import numpy as np
import pytest

# LABKIT_FAKE_CUDA=1 (make test-fake-cuda): `import cupy` finds tests/fake_cupy, a numpy-backed
# test double, so every cuda case below runs on this CPU and CuPy's host/device rules are enforced.
FAKE_CUDA = os.environ.get("LABKIT_FAKE_CUDA") == "1"
if FAKE_CUDA:
    sys.path.insert(0, str(pathlib.Path(__file__).with_name("fake_cupy")))

import labkit  # noqa: E402

_NO_GPU = "no CUDA GPU: cuda cases run only on a GPU machine"


_FAKE_LINE = "cuda: FAKE numpy-backed cupy (tests/fake_cupy) \u2014 checks the cupy code path, not a GPU"


def pytest_report_header(config):
    return _FAKE_LINE if FAKE_CUDA else None


def pytest_terminal_summary(terminalreporter):
    if FAKE_CUDA:           # the header is hidden under -q (pyproject's addopts): say it again
        terminalreporter.write_line(_FAKE_LINE)


@pytest.fixture(scope="session", params=[
    "cpu",
    pytest.param("cuda", marks=pytest.mark.skipif(not labkit.cuda.is_available(), reason=_NO_GPU)),
])
def device(request):
    """Each test taking `device` runs on the cpu, and on the GPU when there is one.

    Session-scoped so hypothesis tests may use it (no function-scoped fixture health check).
    """
    return request.param


@pytest.fixture(scope="session")
def cuda_only():
    if not labkit.cuda.is_available():
        pytest.skip(_NO_GPU)


# --- oracle helpers ------------------------------------------------------------------------

def rand_array(shape, seed=0, low=-2.0, high=2.0, positive=False, away_from=None):
    """Deterministic float64 data; `positive` gives values in [0.5, 2.5]; `away_from` keeps
    values at least 0.1 from the given points (kinks of abs/relu/clamp, ties of max)."""
    rng = np.random.default_rng(seed)
    if positive:
        arr = rng.uniform(0.5, 2.5, size=shape)
    else:
        arr = rng.uniform(low, high, size=shape)
    if away_from is not None:
        for p in away_from:
            arr = np.where(np.abs(arr - p) < 0.1, p + np.where(arr >= p, 0.15, -0.15), arr)
    return np.asarray(arr, dtype=np.float64)


def twins(arr, device="cpu", requires_grad=True):
    """The same float64 values as a labkit tensor on `device` and as a torch tensor."""
    import torch
    a = labkit.tensor(np.array(arr, dtype=np.float64), device=device, requires_grad=requires_grad)
    t = torch.tensor(np.array(arr, dtype=np.float64), requires_grad=requires_grad)
    return a, t


def to_numpy(x):
    """A labkit or torch tensor (or a number) as a numpy array on the host."""
    if x is None:
        return None
    if isinstance(x, labkit.Tensor):
        return np.asarray(x.detach().cpu().numpy())
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def assert_close(mine, ref, rtol=1e-7, atol=1e-10, what="value"):
    m, r = to_numpy(mine), to_numpy(ref)
    assert m.shape == r.shape, f"{what}: labkit shape {m.shape} != torch shape {r.shape}"
    if r.dtype.kind in "biu":
        np.testing.assert_array_equal(m, r, err_msg=what)
    else:
        np.testing.assert_allclose(m, r, rtol=rtol, atol=atol, err_msg=what)


def _flat(out):
    if isinstance(out, (tuple, list)):
        return list(out)
    return [out]


def check_op(f_lk, f_torch, arrays, device="cpu", requires_grad=None, seed=1234,
             rtol=1e-7, atol=1e-10, check_dtype=True):
    """Run f on labkit and torch twins of `arrays` (float64); compare the values, then the
    gradients for a random upstream gradient on every differentiable output.

    `requires_grad` (a list of bools, default all True) picks which inputs require grad.
    Non-array entries of `arrays` (ints, slices, ...) are passed to both functions unchanged,
    and int or bool numpy arrays become int64/bool tensors that do not require grad.
    Returns (labkit outputs, torch outputs).
    """
    import torch
    if requires_grad is None:
        requires_grad = [True] * len(arrays)
    lk_in, t_in, lk_req, t_req = [], [], [], []
    for arr, rg in zip(arrays, requires_grad):
        if isinstance(arr, np.ndarray) and arr.dtype == np.float64:
            a, t = twins(arr, device, requires_grad=rg)
            if rg:
                lk_req.append(a)
                t_req.append(t)
        elif isinstance(arr, np.ndarray):
            a = labkit.tensor(arr, device=device)
            t = torch.tensor(arr)
        else:
            a = t = arr
        lk_in.append(a)
        t_in.append(t)
    lk_out, t_out = _flat(f_lk(*lk_in)), _flat(f_torch(*t_in))
    assert len(lk_out) == len(t_out), f"labkit gave {len(lk_out)} outputs, torch {len(t_out)}"
    for i, (m, r) in enumerate(zip(lk_out, t_out)):
        assert_close(m, r, rtol, atol, what=f"output {i}")
        if check_dtype and isinstance(m, labkit.Tensor):
            assert str(m.dtype).split(".")[-1] == str(r.dtype).split(".")[-1], \
                f"output {i}: labkit dtype {m.dtype} != torch dtype {r.dtype}"
    if not lk_req:
        return lk_out, t_out
    rng = np.random.default_rng(seed)
    lk_o, t_o, lk_g, t_g = [], [], [], []
    for m, r in zip(lk_out, t_out):
        if isinstance(r, torch.Tensor) and r.requires_grad:
            assert isinstance(m, labkit.Tensor) and m.requires_grad, \
                "torch output requires grad but labkit's does not"
            g = rng.standard_normal(tuple(r.shape))
            lk_o.append(m)
            t_o.append(r)
            lk_g.append(labkit.tensor(g, device=device))
            t_g.append(torch.tensor(g))
    if not t_o:
        return lk_out, t_out
    lk_grads = labkit.autograd.grad(lk_o, lk_req, lk_g, allow_unused=True)
    t_grads = torch.autograd.grad(t_o, t_req, t_g, allow_unused=True)
    for i, (m, r, x) in enumerate(zip(lk_grads, t_grads, t_req)):
        if r is None:
            r = torch.zeros_like(x)
        if m is None:
            m = np.zeros(tuple(x.shape))
        assert_close(m, r, rtol, atol, what=f"gradient of input {i}")
    return lk_out, t_out


@pytest.fixture(scope="session")
def oracle():
    """The comparison helpers: oracle.check_op, oracle.twins, oracle.rand_array, ..."""
    return types.SimpleNamespace(check_op=check_op, twins=twins, rand_array=rand_array,
                                 assert_close=assert_close, to_numpy=to_numpy)
