"""Run one snippet of code on torch and on labkit and compare what it leaves behind.

A snippet is Python source with `L` bound to the library (torch or labkit) and `np` to numpy;
it assigns `out` (a tensor, a number, a bool, or a tuple/list of those). If it also assigns
`leaves` (a list of tensors that require grad), the gradient of `out` (tensors only) for a
fixed random upstream gradient is compared too. Both libraries must raise the same exception
class, or neither. Used by the table-driven tests/test_torch_semantics_*.py files.
"""
import warnings

import numpy as np

import labkit

TOL = {"float16": (2e-3, 2e-3), "bfloat16": (1e-2, 1e-2), "float32": (1e-5, 1e-6),
       "float64": (1e-10, 1e-12)}


def dtype_name(dt):
    return str(dt).split(".")[-1]


def run(L, code):
    env = {"L": L, "np": np}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                exec(code, env)
    except Exception as e:   # noqa: BLE001 -- compared with the other library's
        return None, e
    return env, None


def _flat(v):
    if isinstance(v, (tuple, list)):
        return [y for x in v for y in _flat(x)]
    return [v]


def _is_tensor(v):
    return hasattr(v, "shape") and hasattr(v, "dtype") and not isinstance(v, np.ndarray)


def compare_values(what, mine, ref):
    fm, fr = _flat(mine), _flat(ref)
    assert len(fm) == len(fr), f"{what}: {len(fm)} results in labkit, {len(fr)} in torch"
    for k, (m, r) in enumerate(zip(fm, fr)):
        w = f"{what} [result {k}]"
        if _is_tensor(r):
            assert isinstance(m, labkit.Tensor), f"{w}: labkit gave {type(m).__name__}: {m!r}"
            assert tuple(m.shape) == tuple(r.shape), \
                f"{w}: shape labkit {tuple(m.shape)}, torch {tuple(r.shape)}"
            assert dtype_name(m.dtype) == dtype_name(r.dtype), \
                f"{w}: dtype labkit {m.dtype}, torch {r.dtype}"
            mv = np.asarray(m.detach().float().numpy() if dtype_name(m.dtype) == "bfloat16"
                            else m.detach().numpy())
            rv = (r.detach().float() if dtype_name(r.dtype) == "bfloat16" else r.detach()) \
                .numpy(force=True)
            if rv.dtype.kind in "biu":
                assert np.array_equal(mv, rv), f"{w}: labkit {mv.tolist()}, torch {rv.tolist()}"
            else:
                rtol, atol = TOL[dtype_name(r.dtype)]
                np.testing.assert_allclose(mv.astype(np.float64), rv.astype(np.float64),
                                           rtol=rtol, atol=atol, equal_nan=True, err_msg=w)
        elif isinstance(r, (bool, int, float)) or r is None or isinstance(r, (str, tuple)):
            if isinstance(r, float) and isinstance(m, float) and np.isnan(r):
                assert np.isnan(m), f"{w}: labkit {m!r}, torch {r!r}"
            else:
                if type(r).__name__ == "Size":
                    r = tuple(r)
                if type(m).__name__ == "Size":
                    m = tuple(m)
                assert type(m) is type(r) and m == r, f"{w}: labkit {m!r}, torch {r!r}"
        elif type(r).__name__ == "dtype":
            assert dtype_name(m) == dtype_name(r), f"{w}: labkit {m}, torch {r}"
        else:
            assert m == r, f"{w}: labkit {m!r}, torch {r!r}"


def check(code, grads=True, seed=0):
    """Run `code` on both libraries and compare results, errors and gradients."""
    import torch
    (te, terr), (le, lerr) = run(torch, code), run(labkit, code)
    what = f"snippet {code!r}"
    if terr is not None or lerr is not None:
        if terr is None:
            raise AssertionError(f"{what}: labkit raised {type(lerr).__name__}: {lerr}; "
                                 "torch ran it") from lerr
        if lerr is None:
            raise AssertionError(f"{what}: torch raised {type(terr).__name__}: {terr}; "
                                 "labkit ran it")
        assert isinstance(lerr, type(terr)), \
            f"{what}: torch raised {type(terr).__name__} ({terr}), labkit " \
            f"{type(lerr).__name__} ({lerr})"
        return terr, lerr
    compare_values(what, le["out"], te["out"])
    if grads and "leaves" in te:
        outs_t = [o for o in _flat(te["out"]) if _is_tensor(o) and o.requires_grad]
        outs_l = [o for o in _flat(le["out"]) if _is_tensor(o) and o.requires_grad]
        assert len(outs_t) == len(outs_l), f"{what}: requires_grad differs on the results"
        if not outs_t:
            return None
        rng = np.random.default_rng(seed)
        gs = [rng.standard_normal(tuple(o.shape)) for o in outs_t]

        def grad(L, outs, leaves):
            return L.autograd.grad(outs, leaves, [L.tensor(g).to(o.dtype) for g, o in
                                                  zip(gs, outs)], allow_unused=True)
        rt, et = None, None
        try:
            rt = grad(torch, outs_t, te["leaves"])
        except Exception as e:   # noqa: BLE001
            et = e
        try:
            rl, el = grad(labkit, outs_l, le["leaves"]), None
        except Exception as e:   # noqa: BLE001
            rl, el = None, e
        if et is not None or el is not None:
            assert et is not None and el is not None and isinstance(el, type(et)), \
                f"{what} (backward): torch {et!r}, labkit {el!r}"
            return et, el
        rt = [torch.zeros_like(x) if g is None else g for g, x in zip(rt, te["leaves"])]
        rl = [labkit.zeros_like(x) if g is None else g for g, x in zip(rl, le["leaves"])]
        compare_values(what + " (gradient)", rl, rt)
    return None
