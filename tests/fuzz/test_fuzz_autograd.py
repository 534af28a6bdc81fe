"""The autograd fuzzer: random graphs of 2-6 ops over two leaves on labkit and torch in lockstep
(see graphs.py): values, dtypes and shapes after every op (or the same exception class), then
the gradients of both leaves for a random upstream gradient, and in float64 the second
derivative (grad of sum(grad * v) with create_graph=True).

Budget: LABKIT_FUZZ_GRAPHS graphs per test when set, else LABKIT_FUZZ_EXAMPLES when set (`make
fuzz`, fresh seeds), else 40 (derandomized: the same graphs every `make test`, a few seconds).
"""
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import labkit

from .graphs import (EXPAND_WRITES, FLOAT_ONLY, GROUPS, NONFINITE_GAPS, OPS, TIE_ORDER,
                     broadcast_shape, shapes, values)
from .test_fuzz import check_errors, compare, name_of, zero_tensor_gap

torch = pytest.importorskip("torch")

N = int(os.environ.get("LABKIT_FUZZ_GRAPHS", os.environ.get("LABKIT_FUZZ_EXAMPLES", "40")))
SETTINGS = settings(max_examples=N, deadline=None, database=None,
                    derandomize="LABKIT_FUZZ_EXAMPLES" not in os.environ
                    and "LABKIT_FUZZ_GRAPHS" not in os.environ,
                    suppress_health_check=list(HealthCheck))

GROUP_WEIGHTS = ["unary", "unary", "binary", "binary", "reduce", "reduce", "reduce", "view",
                 "view", "index", "index", "inplace", "inplace", "functional"]


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


def _leaf(L, arr, dtype):
    t = L.tensor(arr)
    return t.requires_grad_() if dtype in ("float32", "float64") else t


def has_ties(t):
    a = t.detach().numpy(force=True)
    return a.size != np.unique(a).size or bool(np.isnan(a).any())


def build(data, second=False):
    """Draw and run a graph in both libraries; returns (leaves torch, leaves labkit, out torch,
    out labkit, description, dtypes) or None when there is nothing to differentiate."""
    xshape = data.draw(shapes(), label="x shape")
    xdt = "float64" if second else data.draw(st.sampled_from(["float64", "float64", "float32"]),
                                             label="x dtype")
    ydt = data.draw(st.sampled_from(["float64", "float64", "int64"] if second else
                                    ["float64", "float64", "float32", "int64", "bool"]),
                    label="y dtype")
    yshape = data.draw(st.one_of(broadcast_shape(xshape), shapes()) if data.draw(
        st.integers(0, 5)) == 0 else broadcast_shape(xshape), label="y shape")
    xa = data.draw(values(xshape, xdt, special=not second), label="x")   # second derivatives:
    ya = data.draw(values(yshape, ydt, special=not second), label="y")   # finite inputs
    tl = [_leaf(torch, xa, xdt), _leaf(torch, ya, ydt)]
    ll = [_leaf(labkit, xa, xdt), _leaf(labkit, ya, ydt)]
    tv, lv, ops = list(tl), list(ll), []
    what = f"x{xshape} {xdt}, y{yshape} {ydt}"
    for _ in range(data.draw(st.integers(2, 6), label="n ops")):
        group = data.draw(st.sampled_from(GROUP_WEIGHTS), label="group")
        name = data.draw(st.sampled_from(GROUPS[group]), label="op")
        ia = len(tv) - 1 if data.draw(st.integers(0, 3)) else data.draw(
            st.integers(0, len(tv) - 1), label="a")
        ib = data.draw(st.integers(0, len(tv) - 1), label="b")
        draw_p, fn = OPS[name]
        p = draw_p(data.draw, tuple(tv[ia].shape), tuple(tv[ib].shape))
        if (name in TIE_ORDER and has_ties(tv[ia])) or skipped(name, p, tv[ia], tv[ib], second):
            continue
        ops.append((name, ia, ib, p))
        what_now = f"{what}, ops {ops} (v0 = x, v1 = y, each op appends v2, v3, ...)"
        (rt, et), (rl, el) = run_both(
            lambda L: fn(L, p, *((tv[ia], tv[ib]) if L is torch else (lv[ia], lv[ib]))))
        if check_errors(what_now, et, el):
            ops.pop()
            continue
        if not isinstance(rt, torch.Tensor):
            ops.pop()
            continue
        low = "float32" if any(name_of(v.dtype) == "float32" for v in tv + [rt]) else None
        compare(rl, rt, what_now + " (value)", tol_dtype=low if rt.is_floating_point() else None)
        tv.append(rt)
        lv.append(rl)
    what = f"{what}, ops {ops} (v0 = x, v1 = y, each op appends v2, v3, ...)"
    tout, lout = tv[-1], lv[-1]
    if not tout.is_floating_point():    # torch lets x.clone()[mask] = v (v requires grad) give
        return None                     # an int/bool tensor a grad_fn; nothing to compare
    if not tout.requires_grad:
        assert not lout.requires_grad, f"{what}: labkit's output requires grad, torch's not"
        return None
    assert lout.requires_grad, f"{what}: torch's output requires grad, labkit's does not"
    return tl, ll, tout, lout, what, (xdt, ydt)


def skipped(name, p, a, b, second=False):
    """Programs not compared. Known gaps outside this fuzzer's files (see graphs.FLOAT_ONLY,
    EXPAND_WRITES): cross_entropy / nll_loss of a 0-d input and conv1d of a 0-d/1-d input raise
    RuntimeError in torch, IndexError in labkit. torch's own bugs: logsumexp over every dim
    (dim=() or []) without keepdim fails to write its output; var/std with dim=() or [] reduce
    every dim but their backward counts n = 1; atan2 and the losses with an int/bool operand
    fail in torch's backward (negation of a bool, "Found dtype Long"); torch lets an int/bool
    clone written with a value that requires grad carry a grad_fn, then fails on it."""
    if name in FLOAT_ONLY and not a.is_floating_point():
        return True
    finite = bool(a.detach().isfinite().all())
    if name in NONFINITE_GAPS and (second or not finite):
        return True
    if second and name in ("logcumsumexp", "cumprod") and not finite:
        return True     # second derivatives at inf/nan inputs: nan patterns differ (report)
    if second and name in ("cross_entropy", "nll_loss") and bool((p[0] == p[3]).all()):
        return True     # every target ignored: the nan loss times torch's masked zeros (report)
    if name == "xlogy":        # gradient nan at x = 0 (0 * log 0 in a where): special_math.py
        return True
    if name == "group_norm" and a.dtype != torch.float64 and a.dim() > 1 and \
            a.numel() // max(a.shape[0] * p[0], 1) == 1:
        return True     # one element per group: the exact gradient is 0, and torch's float32
        #                 rounding noise comes out times 1 / sqrt(eps) = 316 (3e-5 off 0)
    if name in ("cross_entropy", "nll_loss") and (a.dim() == 0 or 0 in a.shape[:2]):
        return True     # (and no classes, every target ignored: torch accepts, labkit refuses)
    if name == "conv1d" and (a.dim() < 2 or 0 in a.shape):
        return True     # (and empty inputs: torch refuses some, gives 0 channels for others)
    every = bool(p) and isinstance(p[0], (tuple, list)) and not p[0]
    if name == "logsumexp" and (p[0] is None or every) and not p[1]:
        return True
    if name in ("var", "std", "var_mean") and every:
        return True
    if name in ("atan2", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "bce_logits") \
            and not (a.is_floating_point() and b.is_floating_point()):
        return True
    if name == "inplace" and not a.is_floating_point() and b.requires_grad:
        return True
    return name == "inplace" and p[0] == "expand_b" and p[1] in EXPAND_WRITES


def grads(L, outs, leaves, upstream, create_graph=False):
    want = [x for x in leaves if x.requires_grad]
    gs = L.autograd.grad(outs, want, upstream, allow_unused=True, create_graph=create_graph)
    return [L.zeros_like(x) if g is None else g for g, x in zip(gs, want)]


@SETTINGS
@given(st.data())
def test_graph_values_and_gradients(data):
    res = build(data)
    if res is None:
        return
    tl, ll, tout, lout, what, (xdt, ydt) = res
    g = np.random.default_rng(data.draw(st.integers(0, 2 ** 16), label="seed")) \
        .standard_normal(tuple(tout.shape))
    (gt, et), (gl, el) = run_both(lambda L: grads(
        L, tout if L is torch else lout, tl if L is torch else ll,
        L.tensor(g).to(tout.dtype if L is torch else lout.dtype)))
    if check_errors(what + " (backward)", et, el):
        return
    low = "float32" if "float32" in (xdt, ydt, name_of(tout.dtype)) or \
        any(name_of(v.dtype) == "float32" for v in (tout,)) else None
    for k, (m, r) in enumerate(zip(gl, gt)):
        if not logcumsumexp_gap(what, m, r):
            compare(m, r, f"{what} (gradient of leaf {k})", tol_dtype=low)


@SETTINGS
@given(st.data())
def test_graph_second_derivatives_float64(data):
    res = build(data, second=True)
    if res is None:
        return
    tl, ll, tout, lout, what, _ = res
    if name_of(tout.dtype) != "float64":
        return
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16), label="seed"))
    g = rng.standard_normal(tuple(tout.shape))
    ws = [rng.standard_normal(tuple(x.shape)) for x in tl if x.requires_grad]

    def second(L):
        out, leaves = (tout, tl) if L is torch else (lout, ll)
        firsts = grads(L, out, leaves, L.tensor(g), create_graph=True)
        total = sum(((f * L.tensor(w)).sum() for f, w in zip(firsts, ws) if f.requires_grad),
                    L.zeros(()))
        if not total.requires_grad:
            return [L.zeros_like(x) for x in leaves if x.requires_grad]
        return grads(L, total, leaves, None)
    (rt, et), (rl, el) = run_both(second)
    if check_errors(what + " (second derivative)", et, el):
        return
    low = "float32" if "('float'," in what else None     # went through float32 on the way
    for k, (m, r) in enumerate(zip(rl, rt)):
        if zero_tensor_gap(eval_ops(what), m, r) or pow_at_zero_gap(what, m, r) or \
                logcumsumexp_gap(what, m, r):
            continue
        compare(undefined_as_torch(m, r), r, f"{what} (second derivative, leaf {k})",
                tol_dtype=low)


def undefined_as_torch(mine, ref):
    """Where torch's second derivative is nan or +-inf (a singular point: 1 / 0, log 0, a
    kink), which non-finite value comes out depends on the order of masked products: labkit
    is only required to be non-finite there too (it is then given torch's value); everywhere
    else the values are compared."""
    m, r = mine.detach().numpy(), ref.detach().numpy(force=True)
    if m.shape != r.shape or m.dtype != r.dtype:
        return mine
    swap = ~np.isfinite(r) & ~np.isfinite(m)
    return labkit.tensor(np.where(swap, r, m)) if swap.any() else mine


def pow_at_zero_gap(what, mine, ref):
    """Known gap (labkit/engine/ops/arithmetic.py PowTensor, norm.py, functional_norm.py):
    torch's pow / norm / normalize backward masks 0 * inf with a where whose other branch still
    holds it, so the *second* derivative of a ** b at a = 0, or of a norm at a zero vector, is
    nan in torch; labkit masks both branches and gives 0 (or +-inf). Accepted only where torch
    is nan, after one of those ops."""
    names = ("pow", "pow_scalar", "rpow", "where_log", "'pow_'", "normalize", "norm")
    if not any(f"('{n}'," in what or n in what for n in names):
        return False
    m, r = mine.detach().numpy(), ref.detach().numpy(force=True)
    bad = ~np.isclose(m, r, rtol=1e-7, atol=1e-9, equal_nan=True)
    return bool(bad.any() and np.all(np.isnan(r[bad])))


def logcumsumexp_gap(what, mine, ref):
    """torch's logcumsumexp backward takes the log of the incoming gradient's positive and
    negative parts, so where that gradient is exactly 0 its second derivative is nan (log 0);
    labkit's is the finite value (y = x, v = y * y + y at y = -1: d2 = 2 * g, not nan). And a
    nan gradient is neither positive nor negative, so torch drops it (0) where labkit passes
    the nan on (logcumsumexp, then log of a negative number). Accepted only where one of the
    two is nan, after logcumsumexp."""
    if "('logcumsumexp'," not in what:
        return False
    m, r = mine.detach().numpy(), ref.detach().numpy(force=True)
    bad = ~np.isclose(m, r, rtol=1e-7, atol=1e-9, equal_nan=True)
    return bool(bad.any() and np.all(np.isnan(r[bad]) | np.isnan(m[bad])))


def eval_ops(what):
    """The op names of a description (for the known-gap check)."""
    return [(name,) for name in OPS if f"('{name}'," in what]
