"""The nn fuzzer: random nn.functional calls (nn_graphs.py) on labkit and torch in lockstep:
values, dtypes and shapes of every output (or the same exception class), state written in place,
then the gradients of every input and weight for a random upstream gradient, and in float64 the
second derivatives (grad of sum(grad * v) with create_graph=True).

Budget: LABKIT_FUZZ_NN when set, else LABKIT_FUZZ_EXAMPLES when set (`make fuzz`, fresh seeds),
else 60 per test (derandomized: the same calls every `make test`, a few seconds).
LABKIT_FUZZ_NN_CASES=conv,pool (names of nn_graphs.py's cases) draws only those.
labkit's tensors live on LABKIT_FUZZ_DEVICE (default: 'cuda' under LABKIT_FAKE_CUDA=1, the
numpy-backed fake CuPy, else 'cpu'); they are compared on the CPU.
"""
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import labkit

from .nn_graphs import (CASES, HALF_MISSING, SECOND_ORDER_TORCH_NAN, TORCH_BACKWARD_REFUSES,
                        TORCH_SECOND_ORDER_MISSING, open_bug, second_order_skipped,
                        torch_kernel_dependent)
from .test_fuzz import check_errors, compare, name_of
from .test_fuzz_autograd import undefined_as_torch

torch = pytest.importorskip("torch")

N = int(os.environ.get("LABKIT_FUZZ_NN", os.environ.get("LABKIT_FUZZ_EXAMPLES", "60")))
SETTINGS = settings(max_examples=N, deadline=None, database=None,
                    derandomize="LABKIT_FUZZ_EXAMPLES" not in os.environ
                    and "LABKIT_FUZZ_NN" not in os.environ,
                    suppress_health_check=list(HealthCheck))
NAMES = sorted(n for n in CASES if n in os.environ.get("LABKIT_FUZZ_NN_CASES", n).split(","))
DEVICE = os.environ.get("LABKIT_FUZZ_DEVICE",
                        "cuda" if os.environ.get("LABKIT_FAKE_CUDA") == "1" else "cpu")


def run_both(fn):
    out = []
    for L in (torch, labkit):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with np.errstate(all="ignore"):
                    out.append((fn(L), None))
        except Exception as e:   # noqa: BLE001 -- compared with the other library's
            out.append((None, e))
    return out


def tensors(L, inputs, dtype):
    T = {}
    for k, a in inputs.items():
        t = L.tensor(a) if L is torch else L.tensor(a, device=DEVICE)
        if a.dtype == np.float64:
            t = t.to(getattr(L, dtype))
            if not k.startswith("_"):
                t.requires_grad_()
        T[k] = t
    return T


def leaves(T):
    return [t for k, t in T.items() if k != "_extra" and t.requires_grad] + T.get("_extra", [])


def as_tuple(r):
    return tuple(r) if isinstance(r, (tuple, list)) else (r,)


def skipped(name, p, t_err, l_err):
    """Calls not compared: a torch CPU kernel missing for a half dtype (labkit computes it)."""
    return t_err is not None and l_err is None and any(s in str(t_err) for s in HALF_MISSING)


def torch_wider(inputs, dtype, apply_fn, p, ups=None):
    """torch's outputs (and, given upstream gradients, the gradients) computed in a wider
    dtype (float32 for the half dtypes, float64 for float32) from the inputs rounded to
    `dtype`, rounded back to it: a second reference. torch's kernels round some intermediates
    (a bfloat16 mean in instance_norm), which a normalisation of near-equal values amplifies
    past any fixed tolerance; labkit must match torch's result or this one."""
    wide = torch.float64 if dtype == "float32" else torch.float32
    T = {k: (t.detach().to(wide).requires_grad_(t.requires_grad) if t.is_floating_point()
             else t) for k, t in tensors(torch, inputs, dtype).items()}
    low = getattr(torch, dtype)
    outs = as_tuple(apply_fn(torch, T, p))
    if ups is None:
        return [o.detach().to(low) if o.is_floating_point() else o for o in outs]
    return [g.to(low) for g in grads(torch, outs, ups, T)]


def compare_low(items, what, dtype, second):
    """compare each (labkit, torch) pair; below float64 a mismatch is retried against
    `second()` (torch_wider)."""
    ref2 = None
    for k, (m, r, label) in enumerate(items):
        m = m.cpu() if isinstance(m, labkit.Tensor) else m
        try:
            compare(m, r, f"{what} ({label})", tol_dtype=dtype if r.is_floating_point() else None)
        except AssertionError:
            if dtype in (None, "float64") or not r.is_floating_point():
                raise
            ref2 = second() if ref2 is None else ref2
            compare(m, ref2[k], f"{what} ({label}, and torch in a wider dtype)", tol_dtype=dtype)


def run_case(data, dtype):
    name = data.draw(st.sampled_from(NAMES), label="case")
    draw_fn, apply_fn = CASES[name]
    inputs, p = draw_fn(data.draw)
    if open_bug(name, p, inputs, dtype):
        return None
    what = (f"{name} {dtype} {p}, inputs "
            + ", ".join(f"{k}{tuple(a.shape)} {a.dtype}" for k, a in inputs.items())
            + "; values " + "; ".join(f"{k}={a.tolist()}" for k, a in inputs.items()
                                      if a.size <= 24))
    Tt, Tl = tensors(torch, inputs, dtype), tensors(labkit, inputs, dtype)
    (rt, et), (rl, el) = run_both(lambda L: apply_fn(L, Tt if L is torch else Tl, p))
    if skipped(name, p, et, el) or check_errors(what, et, el):
        return None
    rt, rl = as_tuple(rt), as_tuple(rl)
    assert len(rt) == len(rl), f"{what}: torch gives {len(rt)} outputs, labkit {len(rl)}"
    low = None if dtype == "float64" else dtype
    compare_low([(m, r, f"output {k}") for k, (m, r) in enumerate(zip(rl, rt))], what, low,
                lambda: torch_wider(inputs, dtype, apply_fn, p))
    for k, (m, r) in enumerate(zip(rl, rt)):
        assert m.requires_grad == r.requires_grad, \
            f"{what}: output {k} requires_grad labkit {m.requires_grad} torch {r.requires_grad}"
    return what, Tt, Tl, rt, rl, low, (inputs, apply_fn, p)


def _upstream(rng, outs):
    return [rng.standard_normal(tuple(o.shape)) for o in outs]


def grads(L, outs, ups, T, create_graph=False):
    pairs = [(o, L.tensor(g).to(o.dtype).to(o.device)) for o, g in zip(outs, ups)
             if o.requires_grad]
    want = leaves(T)
    if not pairs or not want:
        return []
    gs = L.autograd.grad([o for o, _ in pairs], want, [g for _, g in pairs], allow_unused=True,
                         create_graph=create_graph)
    return [L.zeros_like(x) if g is None else g for g, x in zip(gs, want)]


DTYPES = ["float64", "float64", "float64", "float32", "float32", "float16", "bfloat16"]


@SETTINGS
@given(st.data())
def test_nn_values_and_gradients(data):
    dtype = data.draw(st.sampled_from(DTYPES), label="dtype")
    res = run_case(data, dtype)
    if res is None:
        return
    what, Tt, Tl, rt, rl, low, (inputs, apply_fn, p) = res
    if torch_kernel_dependent(what.split()[0], p, inputs):
        return
    ups = _upstream(np.random.default_rng(data.draw(st.integers(0, 2 ** 16), label="seed")), rt)
    (gt, et), (gl, el) = run_both(lambda L: grads(L, rt if L is torch else rl, ups,
                                                  Tt if L is torch else Tl))
    if et is not None and el is None and any(s in str(et) for s in TORCH_BACKWARD_REFUSES):
        return
    if skipped(None, None, et, el) or check_errors(what + " (backward)", et, el):
        return
    assert len(gt) == len(gl), f"{what}: torch differentiates {len(gt)} leaves, labkit {len(gl)}"
    compare_low([(m, r, f"gradient of leaf {k}") for k, (m, r) in enumerate(zip(gl, gt))],
                what, low, lambda: torch_wider(inputs, dtype, apply_fn, p, ups))


@SETTINGS
@given(st.data())
def test_nn_second_derivatives_float64(data):
    res = run_case(data, "float64")
    if res is None:
        return
    what, Tt, Tl, rt, rl, _, (inputs, _, p) = res
    if second_order_skipped(what.split()[0], p, inputs):
        return
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16), label="seed"))
    ups = _upstream(rng, rt)
    ws = [rng.standard_normal(tuple(x.shape)) for x in leaves(Tt)]

    def second(L):
        T = Tt if L is torch else Tl
        firsts = grads(L, rt if L is torch else rl, ups, T, create_graph=True)
        total = sum(((f * L.tensor(w).to(f.device)).sum() for f, w in zip(firsts, ws)
                     if f.requires_grad), L.zeros((), dtype=L.float64).to(firsts[0].device
                                                                          if firsts else "cpu"))
        if not total.requires_grad:
            return [L.zeros_like(x) for x in leaves(T)]
        gs = L.autograd.grad(total, leaves(T), allow_unused=True)
        return [L.zeros_like(x) if g is None else g for g, x in zip(gs, leaves(T))]
    (st_, et), (sl, el) = run_both(second)
    if et is not None and el is None and any(
            s in str(et) for s in TORCH_SECOND_ORDER_MISSING + TORCH_BACKWARD_REFUSES):
        return
    if check_errors(what + " (second derivative)", et, el):
        return
    for k, (m, r) in enumerate(zip(sl, st_)):
        m = m.cpu() if isinstance(m, labkit.Tensor) else m
        if what.split()[0] in SECOND_ORDER_TORCH_NAN:
            r = torch.where(r.isnan() & torch.tensor(m.isfinite().numpy()),
                            torch.tensor(m.numpy()), r)
        compare(undefined_as_torch(m, r), r, f"{what} (second derivative, leaf {k})")
