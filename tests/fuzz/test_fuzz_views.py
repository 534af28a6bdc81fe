"""The view fuzzer (see view_chains.py): a chain of views of one base, a write through one
link, then everything a program can see, in labkit and torch: each link's and the base's
values, shape, stride(), storage_offset(), is_contiguous(), _version and requires_grad, the
gradients of the leaf and of the written value, or the same exception class at the same step.

Budget: LABKIT_FUZZ_VIEWS when set, else LABKIT_FUZZ_EXAMPLES (`make fuzz`, fresh seeds), else
100 (derandomized: the same programs every `make test`).
"""
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import labkit

from .test_fuzz import compare
from .view_chains import apply_view, base_values, chains, meta, view_step, write, write_step

torch = pytest.importorskip("torch")

N = int(os.environ.get("LABKIT_FUZZ_VIEWS", os.environ.get("LABKIT_FUZZ_EXAMPLES", "100")))
SETTINGS = settings(max_examples=N, deadline=None, database=None,
                    derandomize="LABKIT_FUZZ_EXAMPLES" not in os.environ
                    and "LABKIT_FUZZ_VIEWS" not in os.environ,
                    suppress_health_check=list(HealthCheck))


def program(L, arr, kind, steps, link, wp):
    """Run the chain and the write in library L: (stage reached, what it saw, error or None)."""
    stage, seen = "make", {}
    try:
        floating = arr.dtype.kind in "fc"
        grad = floating and kind in ("nonleaf", "leaf", "no_grad", "detach", "data")
        leaf = L.zeros(arr.shape, dtype=getattr(L, arr.dtype.name))   # (L.tensor of an empty
        leaf.copy_(L.tensor(arr))          # array: torch keeps numpy's 0 strides, not its own)
        w = L.tensor(np.asarray(0.75 if arr.dtype.kind != "i" else 3).astype(arr.dtype))
        if grad:
            leaf.requires_grad_()
            w.requires_grad_(kind == "nonleaf")
        base = {"nonleaf": lambda: leaf * 1 if grad else leaf, "detach": leaf.detach,
                "data": lambda: leaf.data}.get(kind, lambda: leaf)()
        links = [base]
        for k, p in enumerate(steps):
            stage = f"view {k}"
            links.append(apply_view(L, links[-1], p))
        stage = "write"
        if kind == "no_grad":
            with L.no_grad():
                write(L, links[link], wp, w)
        else:
            write(L, links[link], wp, w)
        stage = "read"
        for k, t in enumerate(links):
            seen[f"link {k} meta"] = meta(t) + (t.requires_grad,)
            seen[f"link {k} value"] = t.detach().clone()
        seen["leaf value"] = leaf.detach().clone()
        if kind == "nonleaf" and grad:
            stage = "backward"
            rng = np.random.default_rng(len(steps))
            loss = 0
            for t in links:
                c = L.tensor(rng.standard_normal(tuple(t.shape)), dtype=leaf.real.dtype
                             if leaf.is_complex() else leaf.dtype)
                loss = loss + (t * c).sum()
            if leaf.is_complex():
                loss = loss.real
            want = [leaf, w] if w.requires_grad else [leaf]
            gs = L.autograd.grad(loss, want, allow_unused=True)
            for name, g, x in zip(["leaf grad", "w grad"], gs, want):
                seen[name] = L.zeros_like(x) if g is None else g
        return stage, seen, None
    except Exception as e:   # noqa: BLE001 -- compared with the other library's
        return stage, seen, e


def expanded(arr, steps):
    """Whether the chain ends in a view where one memory location shows in several elements:
    torch allows some writes there (fill_, x[i] = v) and refuses others at backward, labkit
    refuses them all at the write (a known gap, see graphs.EXPAND_WRITES)."""
    t = torch.tensor(arr)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for p in steps:
                t = apply_view(torch, t, p)
    except Exception:   # noqa: BLE001 -- the chain fails before: not an expanded write
        return False
    return any(s == 0 and n > 1 for s, n in zip(t.stride(), t.shape))


def run_both(*args):
    out = []
    for L in (torch, labkit):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                out.append(program(L, *args))
    return out


@SETTINGS
@given(st.data())
def test_view_chains_write_and_read(data):
    shape, dtype, kind = data.draw(chains(), label="base")
    arr = base_values(shape, dtype, data.draw(st.integers(0, 2 ** 16), label="seed"))
    t = torch.tensor(arr)
    steps, shapes = [], [tuple(t.shape)]
    for _ in range(data.draw(st.integers(1, 4), label="n views")):
        p = data.draw(view_step(tuple(t.shape), t.is_complex(), dtype == "complex128"),
                      label="view")
        steps.append(p)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = apply_view(torch, t, p)
        except Exception:   # noqa: BLE001 -- the program ends there (both must raise)
            break
        shapes.append(tuple(t.shape))
    link = data.draw(st.integers(0, len(shapes) - 1), label="written link")
    if expanded(arr, steps[:link]):
        return          # known gap (graphs.EXPAND_WRITES): writes into an expanded view
    wp = data.draw(write_step(shapes[link]), label="write")
    what = f"base {shape} {dtype} ({kind}), views {steps}, write {wp} through link {link}"
    (ts, tseen, terr), (ls, lseen, lerr) = run_both(arr, kind, steps, link, wp)
    if terr is not None or lerr is not None:
        assert terr is not None, f"{what}: labkit raised {type(lerr).__name__} ({lerr}) at " \
            f"{ls}, torch accepted"
        assert lerr is not None, f"{what}: torch raised {type(terr).__name__} ({terr}) at " \
            f"{ts}, labkit accepted"
        # known gap: for index_add_/index_copy_ torch's error class and the order of its
        # checks depend on which kernel it picks (shape, 0-d): both raising at the write is
        # enough there
        loose = wp[0] in ("index_add_", "index_copy_") and ts == ls == "write"
        assert loose or isinstance(lerr, type(terr)) and ts == ls, \
            f"{what}: torch raised {type(terr).__name__} ({terr}) at {ts}, labkit " \
            f"{type(lerr).__name__} ({lerr}) at {ls}"
    for key, ref in tseen.items():
        assert key in lseen, f"{what}: labkit has no {key}"
        mine = lseen[key]
        if isinstance(ref, tuple):
            if 0 in ref[0]:      # no element: the strides and offset mean nothing (torch's
                mine, ref = mine[:1] + mine[3:], ref[:1] + ref[3:]   # empty results vary)
            assert mine == ref, f"{what}: {key} (shape, stride, offset, contiguous, version, " \
                f"requires_grad): labkit {mine}, torch {ref}"
        elif ref.is_complex():
            compare(mine.real, ref.real, f"{what}: {key} (real part)")
            compare(mine.imag, ref.imag, f"{what}: {key} (imaginary part)")
        else:
            compare(mine, ref, f"{what}: {key}")
