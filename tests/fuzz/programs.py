"""Random small programs run on labkit and torch in lockstep (the differential fuzzer).

A program is a leaf tensor `x` (any dtype labkit supports, rank 0-4, dims of size 0-3), an
`other` operand (a tensor that broadcasts with x, a 0-d tensor, or a Python number) and a few
steps, each drawn from the current value's shape and dtype: elementwise math, comparisons,
reductions with every form of `dim`, view ops, indexing with ints/slices/arrays/masks/None/
Ellipsis, in-place ops on views, setitem. `run` executes each step in both libraries and
compares, after every step, values, dtypes and shapes, or that both raised the same exception
class; at the end, gradients for a random upstream gradient and (for float64) second
derivatives. Strategies draw from hypothesis, so failures shrink to a small program.
"""
import math

import numpy as np
from hypothesis import strategies as st

import labkit

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]
FLOATS = ("float16", "float32", "float64")


# --- drawing a program --------------------------------------------------------------------

@st.composite
def shapes(draw, max_rank=4):
    rank = draw(st.integers(0, max_rank))
    return tuple(draw(st.sampled_from([0, 1, 1, 2, 2, 3, 3, 3])) for _ in range(rank))


@st.composite
def arrays(draw, shape, dtype, special=True):
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        vals = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    elif dtype == "uint8":
        vals = draw(st.lists(st.sampled_from([0, 1, 2, 3, 5, 200, 255]), min_size=n, max_size=n))
    elif dtype in FLOATS:
        pool = [-2.5, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0]
        if special and draw(st.integers(0, 9)) == 0:
            pool += [math.nan, math.inf, -math.inf]
        vals = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
        # tie-free variant (distinct values) half of the time: max/min gradients need no ties
        if draw(st.booleans()):
            vals = [v + 0.001 * i for i, v in enumerate(vals)]
    else:
        vals = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    return np.array(vals, dtype=dtype).reshape(shape)


@st.composite
def broadcast_shape(draw, shape):
    """A shape that broadcasts with `shape` (dropping leading dims, or 1 in place of a dim)."""
    keep = draw(st.integers(0, len(shape)))
    tail = shape[len(shape) - keep:]
    return tuple(1 if draw(st.integers(0, 3)) == 0 else s for s in tail)


@st.composite
def others(draw, shape):
    kind = draw(st.sampled_from(["tensor", "tensor", "zero_d", "int", "float", "bool"]))
    if kind == "int":
        return ("scalar", draw(st.sampled_from([-2, -1, 0, 1, 2, 3, 300])))
    if kind == "float":
        return ("scalar", draw(st.sampled_from([-1.5, 0.5, 2.0, 0.0])))
    if kind == "bool":
        return ("scalar", draw(st.booleans()))
    dtype = draw(st.sampled_from(DTYPES))
    s = () if kind == "zero_d" else draw(broadcast_shape(shape))
    return ("tensor", draw(arrays(s, dtype, special=False)))


def dim_forms(draw, ndim, allow_none=True):
    n = max(ndim, 1)
    forms = ["int", "neg", "tuple", "empty_tuple", "empty_list", "bad"]
    if allow_none:
        forms.append("none")
    f = draw(st.sampled_from(forms))
    if f == "none":
        return None
    if f == "int":
        return draw(st.integers(0, n - 1))
    if f == "neg":
        return -draw(st.integers(1, n))
    if f == "tuple":
        k = draw(st.integers(1, n))
        return tuple(draw(st.permutations(range(n)))[:k]) if ndim else (0,)
    if f == "empty_tuple":
        return ()
    if f == "empty_list":
        return []
    return n  # out of range


@st.composite
def index(draw, shape):
    """An index mixing ints, slices, None, Ellipsis, integer lists and bool masks."""
    items, dim = [], 0
    used_ellipsis = False
    for _ in range(draw(st.integers(1, max(len(shape), 1) + 1))):
        kind = draw(st.sampled_from(["int", "slice", "slice", "none", "ellipsis", "list",
                                     "mask"]))
        size = shape[dim] if dim < len(shape) else None
        if kind == "none":
            items.append(None)
        elif kind == "ellipsis" and not used_ellipsis:
            items.append(Ellipsis)
            used_ellipsis = True
            dim = len(shape) - sum(1 for i in items if i is not None and i is not Ellipsis) + 1
        elif size is None:
            break
        elif kind == "int":
            items.append(draw(st.integers(-size - 1, size)) if size else 0)
            dim += 1
        elif kind == "slice":
            start = draw(st.one_of(st.none(), st.integers(-4, 4)))
            stop = draw(st.one_of(st.none(), st.integers(-4, 4)))
            step = draw(st.sampled_from([None, None, 1, 2, -1]))
            items.append(slice(start, stop, step))
            dim += 1
        elif kind == "list":
            k = draw(st.integers(0, 3))
            items.append(draw(st.lists(st.integers(-size, max(size - 1, 0)), min_size=k,
                                       max_size=k)) if size else [])
            dim += 1
        else:
            items.append(("mask", draw(arrays((size,), "bool"))))
            dim += 1
    return tuple(items) if len(items) != 1 or draw(st.booleans()) else items[0]


UNARY = ["neg", "abs", "sign", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu",
         "float", "double", "long", "half", "bool", "clone", "contiguous"]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "ge",
          "where", "add_alpha", "masked_fill", "clamp"]
REDUCE = ["sum", "mean", "amax", "amin", "var", "std", "max_dim", "argmax", "max", "any",
          "min", "median", "min_dim", "median_dim", "cumsum", "logsumexp"]
VIEW = ["reshape", "view", "transpose", "permute", "t", "T", "mT", "unsqueeze", "squeeze",
        "squeeze_dim", "flatten", "expand", "split", "chunk", "cat", "stack", "index"]
INPLACE = ["iadd_view", "imul_view", "zero_view", "clamp_view", "setitem", "fill_view"]


@st.composite
def step(draw, shape, dtype):
    group = draw(st.sampled_from(["unary", "binary", "binary", "reduce", "view", "view",
                                  "inplace"]))
    nd = len(shape)
    if group == "unary":
        return (draw(st.sampled_from(UNARY)),)
    if group == "binary":
        name = draw(st.sampled_from(BINARY))
        other = draw(others(shape))
        if name == "pow":
            return (name, ("scalar", draw(st.sampled_from([2, 3, 0.5, -1, 0, 1.5, 2.0]))))
        if name == "clamp":
            lo = draw(st.sampled_from([None, -1, 0, 0.5, -0.75]))
            hi = draw(st.sampled_from([None, 1, 2, 1.25]))
            return (name, lo, hi if lo is not None or hi is not None else 1)
        if name in ("where", "masked_fill"):
            mask = draw(arrays(draw(broadcast_shape(shape)), "bool"))
            return (name, mask, other)
        return (name, other)
    if group == "reduce":
        name = draw(st.sampled_from(REDUCE))
        keep = draw(st.booleans())
        if name in ("max_dim", "argmax", "min_dim", "median_dim", "cumsum"):
            d = draw(st.one_of(st.none(), st.integers(-max(nd, 1), max(nd, 1) - 1))) \
                if name == "argmax" else draw(st.integers(-max(nd, 1), max(nd, 1) - 1))
            return (name, d, keep)
        if name in ("max", "min", "median"):
            return (name,)
        return (name, dim_forms(draw, nd), keep)
    if group == "view":
        name = draw(st.sampled_from(VIEW))
        if name in ("reshape", "view"):
            n = int(np.prod(shape)) if shape else 1
            opts = [(-1,), (n,), shape, (1,) + tuple(shape), tuple(reversed(shape))]
            if n == 0:
                opts.append((0, -1))
            return (name, draw(st.sampled_from(opts)))
        if name in ("transpose",):
            return (name, draw(st.integers(-max(nd, 1), max(nd, 1) - 1)),
                    draw(st.integers(-max(nd, 1), max(nd, 1) - 1)))
        if name == "permute":
            return (name, tuple(draw(st.permutations(range(nd)))) if nd else ())
        if name in ("unsqueeze",):
            return (name, draw(st.integers(-nd - 1, nd)))
        if name == "squeeze_dim":
            return (name, draw(st.integers(-max(nd, 1), max(nd, 1) - 1)))
        if name == "flatten":
            return (name, draw(st.integers(-max(nd, 1), max(nd, 1) - 1)),
                    draw(st.integers(-max(nd, 1), max(nd, 1) - 1)))
        if name == "expand":
            lead = draw(st.integers(0, 2))
            return (name, (2,) * lead + tuple(draw(st.sampled_from([s, -1, 2 if s == 1 else s]))
                                              for s in shape))
        if name in ("split", "chunk"):
            n = draw(st.integers(0, 3)) if name == "split" else draw(st.integers(1, 4))
            return (name, n, draw(st.integers(-max(nd, 1), max(nd, 1) - 1)), draw(st.integers(0, 3)))
        if name in ("cat", "stack"):
            return (name, draw(st.integers(-max(nd, 1), max(nd, 1))))
        if name == "index":
            return (name, draw(index(shape)))
        return (name,)
    name = draw(st.sampled_from(INPLACE))
    view = draw(st.sampled_from(["index", "t", "unsqueeze", "flat", "self"]))
    idx = draw(index(shape)) if view == "index" or name == "setitem" else None
    if name == "setitem":
        return (name, idx, draw(others(())))
    return (name, view, idx, draw(st.sampled_from([2, 0.5, -1, 1.5])))


@st.composite
def programs(draw, max_steps=3):
    shape = draw(shapes())
    dtype = draw(st.sampled_from(DTYPES))
    x = draw(arrays(shape, dtype))
    steps = []
    # steps are drawn against torch's running shape/dtype in `run`, through this callback
    return x, draw(st.integers(1, max_steps)), draw(st.randoms(use_true_random=False))


# --- running one step in either library -----------------------------------------------------

def _mk(L, arr):
    return L.tensor(arr)


def _other(L, o, like):
    if o[0] == "scalar":
        return o[1]
    return _mk(L, o[1])


def _idx(L, idx):
    if isinstance(idx, tuple) and idx and idx[0] == "mask" and isinstance(idx[1], np.ndarray):
        return _mk(L, idx[1])
    if isinstance(idx, tuple):
        return tuple(_idx(L, i) for i in idx)
    return idx


def _view(L, t, how):
    if how == "t":
        return t.t()
    if how == "unsqueeze":
        return t.unsqueeze(0)
    if how == "flat":
        return t.view(-1)
    return t


def apply(L, s, t):
    """Run step s on tensor t with library L (labkit or torch)."""
    name = s[0]
    if name in UNARY:
        if name in ("float", "double", "long", "half", "bool", "clone", "contiguous"):
            return getattr(t, name)()
        return getattr(t, name)()
    if name == "add_alpha":
        o = _other(L, s[1], t)
        return t.add(o, alpha=2)
    if name == "pow":
        return t ** s[1][1]
    if name == "clamp":
        return t.clamp(s[1], s[2])
    if name == "where":
        return L.where(_mk(L, s[1]), t, _other(L, s[2], t))
    if name == "masked_fill":
        o = s[2]
        return t.masked_fill(_mk(L, s[1]), o[1] if o[0] == "scalar" else _mk(L, o[1]).sum() * 0 + 1)
    if name in ("maximum", "minimum"):
        o = _other(L, s[1], t)
        return getattr(L, name)(t, o if not isinstance(o, (int, float, bool)) else _mk(L, np.array(o)))
    if name in BINARY:
        o = _other(L, s[1], t)
        return {"add": lambda: t + o, "sub": lambda: t - o, "mul": lambda: t * o,
                "div": lambda: t / o, "eq": lambda: t == o, "ne": lambda: t != o,
                "lt": lambda: t < o, "ge": lambda: t >= o}[name]()
    if name in ("sum", "mean", "amax", "amin", "var", "std", "any"):
        dim, keep = s[1], s[2]
        if name == "any":
            return t.any() if dim is None else t.any(dim if isinstance(dim, int) else dim, keep)
        if name in ("amax", "amin"):
            return getattr(t, name)(() if dim is None else dim, keep)
        if dim is None:
            return getattr(t, name)()
        return getattr(t, name)(dim, keepdim=keep)
    if name in ("max_dim", "min_dim", "median_dim"):
        if name == "median_dim" and type(t).__module__.startswith("torch"):
            t = t.contiguous()   # torch 2.13 CPU misreads stride-0 inputs here (pinned in
        return getattr(t, name[:-4])(s[1], s[2]).values   # test_torch_semantics_reductions)
    if name == "cumsum":
        return t.cumsum(s[1])
    if name == "logsumexp":
        return t.logsumexp(() if s[1] is None else s[1], s[2])   # dim is required: None is ()
    if name == "argmax":
        return t.argmax(s[1], s[2])
    if name in ("max", "min", "median"):
        return getattr(t, name)()
    if name in ("reshape", "view"):
        return getattr(t, name)(*s[1]) if s[1] else getattr(t, name)(())
    if name == "transpose":
        return t.transpose(s[1], s[2])
    if name == "permute":
        return t.permute(*s[1]) if s[1] else t.permute(())
    if name in ("t", "T", "mT"):
        return t.t() if name == "t" else getattr(t, name)
    if name == "unsqueeze":
        return t.unsqueeze(s[1])
    if name == "squeeze":
        return t.squeeze()
    if name == "squeeze_dim":
        return t.squeeze(s[1])
    if name == "flatten":
        return t.flatten(s[1], s[2])
    if name == "expand":
        return t.expand(*s[1]) if s[1] else t.expand(())
    if name in ("split", "chunk"):
        pieces = getattr(t, name)(s[1], s[2])
        return pieces[s[3] % len(pieces)] * 1 if pieces else L.zeros(0)
    if name == "cat":
        return L.cat([t, t * 2], s[1])
    if name == "stack":
        return L.stack([t, t * 2], s[1])
    if name == "index":
        return t[_idx(L, s[1])]
    h = t.clone()
    if name == "setitem":
        o = s[2]
        h[_idx(L, s[1])] = o[1] if o[0] == "scalar" else _mk(L, o[1])
        return h
    _, how, idx, val = s
    v = h[_idx(L, idx)] if how == "index" else _view(L, h, how)
    if name == "iadd_view":
        v.add_(val)
    elif name == "imul_view":
        v.mul_(val)
    elif name == "zero_view":
        v.zero_()
    elif name == "fill_view":
        v.fill_(val)
    else:
        v.clamp_(-abs(val), abs(val))
    return h
