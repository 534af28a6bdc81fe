"""Random small autograd graphs run on labkit and torch in lockstep (the autograd fuzzer).

A graph has two leaves, `x` (float64 or float32, requires grad) and `y` (a shape that broadcasts
with x; float64, float32, int64 or bool, requiring grad when it is a float), and 2-6 ops. Each op
reads the newest value, and binary ops a second value drawn from everything computed so far, so
the graph is a DAG (values are reused: gradients accumulate). Ops: elementwise unary/binary math
(kinks at 0, pow at 0), reductions with every form of dim/keepdim/correction, value-selecting
reductions (max/min/median/kthvalue/sort/topk/cummax) whose gradients route through ties, views
(steps, negative dims, diagonal, unfold, expand), indexing (integer tensors, masks, gather,
index_select, take), in-place ops on views of a clone (with values that require grad), and
nn.functional (softmax over size-0/1 dims, losses with odd targets, layer/group norm, conv with
padding='same'). Inputs have size-0/1 dims, 0-d tensors, ties, and sometimes nan/inf.

`OPS` maps a name to (draw, apply): draw(draw, a_shape, b_shape) -> parameters (plain data, so
hypothesis prints and shrinks them), apply(L, p, a, b) -> the result in library L (torch or
labkit).
"""
import math

import numpy as np
from hypothesis import strategies as st

POOL = [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0]
SPECIAL = [math.nan, math.inf, -math.inf]


@st.composite
def shapes(draw, max_rank=3):
    rank = draw(st.integers(0, max_rank))
    return tuple(draw(st.sampled_from([0, 1, 1, 2, 2, 3, 3])) for _ in range(rank))


@st.composite
def values(draw, shape, dtype, special=True):
    """Small values with ties (repeats from a pool), tie-free half of the time, rarely nan/inf
    (when `special`); integers -3..3 and bools for integer dtypes."""
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))).reshape(shape)
    if dtype == "int64":
        return np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)),
                        dtype="int64").reshape(shape)
    pool = POOL + (SPECIAL if special and draw(st.integers(0, 7)) == 0 else [])
    vals = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    if draw(st.booleans()):
        vals = [v + 0.0137 * (i + 1) for i, v in enumerate(vals)]     # no ties
    return np.array(vals, dtype=dtype).reshape(shape)


@st.composite
def broadcast_shape(draw, shape):
    keep = draw(st.integers(0, len(shape)))
    tail = shape[len(shape) - keep:]
    return tuple(1 if draw(st.integers(0, 3)) == 0 else s for s in tail)


def _dim(draw, nd):
    n = max(nd, 1)
    return draw(st.integers(-n, n - 1))


def _dims(draw, nd):
    """Every form of dim torch takes: None, int, negative int, tuple, list, () and []."""
    f = draw(st.sampled_from(["none", "int", "tuple", "list", "empty"]))
    if f == "none":
        return None
    if f == "int":
        return _dim(draw, nd)
    if f == "empty":
        return draw(st.sampled_from([(), []]))
    k = draw(st.integers(1, max(nd, 1)))
    ds = list(draw(st.permutations(range(max(nd, 1)))))[:k]
    ds = [d - max(nd, 1) if draw(st.booleans()) else d for d in ds]
    return tuple(ds) if f == "tuple" else ds


def _size(shape, d):
    return shape[d] if shape else 1


def _idx_tensor(draw, size, ishape):
    n = int(np.prod(ishape)) if ishape else 1
    if not size:
        return np.zeros((0,), dtype="int64") if n else np.zeros(ishape, dtype="int64")
    return np.array(draw(st.lists(st.integers(-size, size - 1), min_size=n, max_size=n)),
                    dtype="int64").reshape(ishape)


# --- the op catalogue -----------------------------------------------------------------------

def _none(draw, a, b):
    return ()


UNARY = {
    "neg": lambda L, a: -a, "abs": lambda L, a: a.abs(), "sign": lambda L, a: a.sign(),
    "exp": lambda L, a: a.exp(), "log": lambda L, a: a.log(), "sqrt": lambda L, a: a.sqrt(),
    "sin": lambda L, a: a.sin(), "tanh": lambda L, a: a.tanh(),
    "sigmoid": lambda L, a: a.sigmoid(), "relu": lambda L, a: a.relu(),
    "square": lambda L, a: a.square(), "reciprocal": lambda L, a: a.reciprocal(),
    "rsqrt": lambda L, a: a.rsqrt(), "expm1": lambda L, a: a.expm1(),
    "log1p": lambda L, a: a.log1p(), "atan": lambda L, a: a.atan(), "erf": lambda L, a: a.erf(),
    "floor": lambda L, a: a.floor(), "frac": lambda L, a: a.frac(),
    "softplus": lambda L, a: L.nn.functional.softplus(a),
    "leaky_relu": lambda L, a: L.nn.functional.leaky_relu(a, 0.1),
    "gelu": lambda L, a: L.nn.functional.gelu(a), "silu": lambda L, a: L.nn.functional.silu(a),
    "elu": lambda L, a: L.nn.functional.elu(a),
    "logsigmoid": lambda L, a: L.nn.functional.logsigmoid(a),
    "hardtanh": lambda L, a: L.nn.functional.hardtanh(a),
    "relu6": lambda L, a: L.nn.functional.relu6(a),
    "float": lambda L, a: a.float(), "double": lambda L, a: a.double(),
}

BINARY = {
    "add": lambda L, a, b: a + b, "sub": lambda L, a, b: a - b, "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / b, "pow": lambda L, a, b: a ** b,
    "rsub": lambda L, a, b: b - a,
    "maximum": lambda L, a, b: L.maximum(a, b), "minimum": lambda L, a, b: L.minimum(a, b),
    "fmax": lambda L, a, b: L.fmax(a, b), "fmin": lambda L, a, b: L.fmin(a, b),
    "atan2": lambda L, a, b: L.atan2(a, b),
    "where_gt": lambda L, a, b: L.where(a > b, a, b),
    "where_log": lambda L, a, b: L.where(a > 0, a.log(), b),
    "masked_fill": lambda L, a, b: a.masked_fill(b > 0, 0.5),
    "mul_add": lambda L, a, b: a * b + a,
    "lerp": lambda L, a, b: L.lerp(a, b, 0.25),
    "addcmul": lambda L, a, b: L.addcmul(a, a, b, value=0.5),
    "xlogy": lambda L, a, b: L.xlogy(a, b),
}


def _p_clamp(draw, a, b):
    return (draw(st.sampled_from([None, -1.0, 0.0, 0.5])),
            draw(st.sampled_from([None, 0.0, 1.0, 2.0])))


def _a_clamp(L, p, a, b):
    lo, hi = p
    return a.clamp(lo, hi if lo is not None or hi is not None else 1.0)


def _p_pow(draw, a, b):
    return (draw(st.sampled_from([0, 1, 2, 3, 0.5, -1, -0.5, 1.5, -2, 2.0, 0.0])),)


def _p_rpow(draw, a, b):
    return (draw(st.sampled_from([2.0, 0.0, 1.0, 0.5, -1.0])),)


def _p_dims_keep(draw, a, b):
    return (_dims(draw, len(a)), draw(st.booleans()))


def _a_dims(name):
    def f(L, p, a, b):
        dim, keep = p
        fn = getattr(a, name)
        return fn() if dim is None else fn(dim, keepdim=keep)
    return f


def _a_amax(name):
    def f(L, p, a, b):
        dim, keep = p
        return getattr(a, name)(() if dim is None else dim, keep)
    return f


def _p_dim_keep(draw, a, b):
    return (_dim(draw, len(a)), draw(st.booleans()))


def _p_correction(draw, a, b):
    return (_dims(draw, len(a)), draw(st.sampled_from([0, 1, 2])), draw(st.booleans()))


def _a_correction(name):
    def f(L, p, a, b):
        dim, c, keep = p
        return getattr(a, name)(dim, correction=c, keepdim=keep)
    return f


def _p_norm(draw, a, b):
    return (draw(st.sampled_from([2, 1, math.inf, -math.inf, 3, 0.5, 0, "fro"])),
            draw(st.one_of(st.none(), st.integers(-max(len(a), 1), max(len(a), 1) - 1))),
            draw(st.booleans()))


def _a_norm(L, p, a, b):
    ord_, dim, keep = p
    if dim is None:
        return a.norm(ord_)
    return a.norm(ord_, dim, keep)


def _p_kth(draw, a, b):
    d = _dim(draw, len(a))
    return (draw(st.integers(1, max(_size(a, d), 1))), d, draw(st.booleans()))


def _p_topk(draw, a, b):
    d = _dim(draw, len(a))
    return (draw(st.integers(0, _size(a, d))), d, draw(st.booleans()))


def _p_sort(draw, a, b):
    return (_dim(draw, len(a)), draw(st.booleans()))


def _p_dim(draw, a, b):
    return (_dim(draw, len(a)),)


REDUCE = {
    "sum": (_p_dims_keep, _a_dims("sum")), "mean": (_p_dims_keep, _a_dims("mean")),
    "nansum": (_p_dims_keep, _a_dims("nansum")),
    "amax": (_p_dims_keep, _a_amax("amax")), "amin": (_p_dims_keep, _a_amax("amin")),
    "logsumexp": (_p_dims_keep, _a_amax("logsumexp")),
    "prod": (lambda d, a, b: (d(st.one_of(st.none(), st.integers(-max(len(a), 1),
                                                                  max(len(a), 1) - 1))),
                              d(st.booleans())),
             lambda L, p, a, b: a.prod() if p[0] is None else a.prod(p[0], keepdim=p[1])),
    "var": (_p_correction, _a_correction("var")), "std": (_p_correction, _a_correction("std")),
    "var_mean": (_p_correction, lambda L, p, a, b: L.var_mean(a, p[0], correction=p[1],
                                                              keepdim=p[2])[0]),
    "norm": (_p_norm, _a_norm),
    "max_all": (_none, lambda L, p, a, b: a.max()), "min_all": (_none, lambda L, p, a, b: a.min()),
    "median_all": (_none, lambda L, p, a, b: a.median()),
    "nanmedian_all": (_none, lambda L, p, a, b: a.nanmedian()),
    "max_dim": (_p_dim_keep, lambda L, p, a, b: a.max(*p).values),
    "min_dim": (_p_dim_keep, lambda L, p, a, b: a.min(*p).values),
    "median_dim": (_p_dim_keep, lambda L, p, a, b: a.median(*p).values),
    "mode_dim": (_p_dim_keep, lambda L, p, a, b: a.mode(*p).values),
    "kthvalue": (_p_kth, lambda L, p, a, b: a.kthvalue(*p).values),
    "sort": (_p_sort, lambda L, p, a, b: a.sort(dim=p[0], descending=p[1]).values),
    "topk": (_p_topk, lambda L, p, a, b: a.topk(p[0], p[1], largest=p[2]).values),
    "cumsum": (_p_dim, lambda L, p, a, b: a.cumsum(p[0])),
    "cumprod": (_p_dim, lambda L, p, a, b: a.cumprod(p[0])),
    "cummax": (_p_dim, lambda L, p, a, b: a.cummax(p[0]).values),
    "cummin": (_p_dim, lambda L, p, a, b: a.cummin(p[0]).values),
    "logcumsumexp": (_p_dim, lambda L, p, a, b: a.logcumsumexp(p[0])),
    "softmax": (_p_dim, lambda L, p, a, b: a.softmax(p[0])),
    "log_softmax": (_p_dim, lambda L, p, a, b: a.log_softmax(p[0])),
}

# ops whose gradient depends on which of several tied elements torch picks by its sorting
# algorithm (unspecified: topk's partial sort, mode): compared only on tie-free inputs
TIE_ORDER = ("topk", "mode_dim")


def _p_transpose(draw, a, b):
    return (_dim(draw, len(a)), _dim(draw, len(a)))


def _p_permute(draw, a, b):
    return (tuple(d - len(a) if draw(st.booleans()) else d
                  for d in draw(st.permutations(range(len(a))))),)


def _p_expand(draw, a, b):
    lead = (2,) * draw(st.integers(0, 1))
    return (lead + tuple(draw(st.sampled_from([s, -1, 3 if s == 1 else s])) for s in a),)


def _p_reshape(draw, a, b):
    n = int(np.prod(a)) if a else 1
    return (draw(st.sampled_from([(-1,), (n,), (1,) + tuple(a), tuple(reversed(a)), (n, 1)])),)


def _p_slice(draw, a, b):
    d = _dim(draw, len(a))
    return (d, draw(st.sampled_from([None, 0, 1, -1, -2])), draw(st.sampled_from([None, 2, -1, 3])),
            draw(st.sampled_from([1, 2, 3])))


def _a_slice(L, p, a, b):
    d, start, stop, step = p
    if a.dim() == 0:
        return a[start:stop:step]        # an IndexError in both
    key = (slice(None),) * (d % a.dim()) + (slice(start, stop, step),)
    return a[key]


def _p_select(draw, a, b):
    d = _dim(draw, len(a))
    s = _size(a, d)
    return (d, draw(st.integers(-s, max(s - 1, 0))))


def _p_diagonal(draw, a, b):
    return (draw(st.integers(-2, 2)), _dim(draw, len(a)), _dim(draw, len(a)))


def _p_unfold(draw, a, b):
    return (_dim(draw, len(a)), draw(st.integers(0, 3)), draw(st.integers(1, 3)))


def _p_narrow(draw, a, b):
    d = _dim(draw, len(a))
    s = _size(a, d)
    start = draw(st.integers(-s, s)) if s else 0
    return (d, start, draw(st.integers(0, max(s - (start % s if s else 0), 0))))


VIEWS = {
    "transpose": (_p_transpose, lambda L, p, a, b: a.transpose(*p)),
    "permute": (_p_permute, lambda L, p, a, b: a.permute(*p[0]) if p[0] else a.permute(())),
    "expand": (_p_expand, lambda L, p, a, b: a.expand(*p[0]) if p[0] else a.expand(())),
    "reshape": (_p_reshape, lambda L, p, a, b: a.reshape(p[0])),
    "slice": (_p_slice, _a_slice),
    "select": (_p_select, lambda L, p, a, b: a.select(*p)),
    "diagonal": (_p_diagonal, lambda L, p, a, b: a.diagonal(*p)),
    "unfold": (_p_unfold, lambda L, p, a, b: a.unfold(*p)),
    "narrow": (_p_narrow, lambda L, p, a, b: a.narrow(*p)),
    "flip": (_p_dim, lambda L, p, a, b: a.flip(p[0])),
    "roll": (_p_dim, lambda L, p, a, b: a.roll(1, p[0])),
    "movedim": (_p_transpose, lambda L, p, a, b: a.movedim(*p)),
    "squeeze": (_p_dim, lambda L, p, a, b: a.squeeze(p[0])),
    "unsqueeze": (lambda d, a, b: (d(st.integers(-len(a) - 1, len(a))),),
                  lambda L, p, a, b: a.unsqueeze(p[0])),
    "mT": (_none, lambda L, p, a, b: a.mT),
    "T": (_none, lambda L, p, a, b: a.t() if a.dim() <= 2 else a.permute(*range(a.dim())[::-1])),
    "repeat": (lambda d, a, b: (tuple(d(st.integers(0, 2))
                                      for _ in range(len(a) + d(st.integers(0, 1)))),),
               lambda L, p, a, b: a.repeat(*p[0]) if p[0] else a.repeat(())),
    "flatten": (_none, lambda L, p, a, b: a.flatten()),
}


def _p_adv(draw, a, b):
    d = _dim(draw, len(a))
    ishape = draw(st.sampled_from([(), (1,), (2,), (3,), (2, 2)]))
    return (d, _idx_tensor(draw, _size(a, d), ishape))


def _a_adv(L, p, a, b):
    d, idx = p
    if a.dim() == 0:
        return a[L.tensor(idx)]
    return a[(slice(None),) * (d % a.dim()) + (L.tensor(idx),)]


def _p_adv2(draw, a, b):
    if len(a) < 2:
        return (None, None)
    return (_idx_tensor(draw, a[0], (2, 1)), _idx_tensor(draw, a[-1], (3,)))


def _a_adv2(L, p, a, b):
    i, j = p
    if i is None:
        return a[..., None]
    return a[L.tensor(i), ..., L.tensor(j)]      # broadcast (2, 3) dims first


def _p_gather(draw, a, b):
    d = _dim(draw, len(a))
    ishape = tuple(draw(st.integers(0, s)) if k != d % max(len(a), 1) else draw(st.integers(0, 3))
                   for k, s in enumerate(a))
    n = int(np.prod(ishape)) if ishape else 1
    s = _size(a, d)
    vals = draw(st.lists(st.integers(0, max(s - 1, 0)), min_size=n, max_size=n))
    return (d, np.array(vals, dtype="int64").reshape(ishape))


def _p_index_select(draw, a, b):
    d = _dim(draw, len(a))
    s = _size(a, d)
    k = draw(st.integers(0, 3))
    return (d, np.array(draw(st.lists(st.integers(0, max(s - 1, 0)), min_size=k, max_size=k)),
                        dtype="int64"))


def _p_take(draw, a, b):
    n = int(np.prod(a)) if a else 1
    k = draw(st.integers(0, 3))
    return (np.array(draw(st.lists(st.integers(-n, max(n - 1, 0)), min_size=k, max_size=k)) if n
                     else [], dtype="int64"),)


def _a_scatter_add(L, p, a, b):
    d, idx = p
    src = L.ones(idx.shape, dtype=a.dtype) * 1.5 if not b.is_floating_point() \
        else b.to(a.dtype).sum() * L.ones(idx.shape, dtype=a.dtype)
    return a.scatter_add(d, L.tensor(idx), src)


INDEXING = {
    "adv": (_p_adv, _a_adv), "adv2": (_p_adv2, _a_adv2),
    "mask": (_none, lambda L, p, a, b: a[a > 0]),
    "mask_b": (_none, lambda L, p, a, b: a[(b > 0).expand_as(a)] if b.dim() <= a.dim()
               else a[b > 0]),
    "masked_select": (_none, lambda L, p, a, b: a.masked_select(b > 0)),
    "gather": (_p_gather, lambda L, p, a, b: a.gather(p[0], L.tensor(p[1]))),
    "take_along_dim": (_p_gather, lambda L, p, a, b: L.take_along_dim(a, L.tensor(p[1]), p[0])),
    "index_select": (_p_index_select, lambda L, p, a, b: a.index_select(p[0], L.tensor(p[1]))),
    "take": (_p_take, lambda L, p, a, b: L.take(a, L.tensor(p[0]))),
    "scatter_add": (_p_gather, _a_scatter_add),
}


def _src_from(L, a, b, shape):
    """A source of `shape` whose values come from a and b (so both get gradients)."""
    n = int(np.prod(shape)) if shape else 1
    flat = a.reshape(-1)
    base = flat[L.arange(n) % flat.numel()] * 2 if flat.numel() else L.zeros(n, dtype=a.dtype)
    extra = b.to(a.dtype).mean() if b.is_floating_point() and b.numel() else 1.5
    return (base + extra).reshape(shape)


def _p_index_dup(draw, a, b):
    """dim, an index with repeats (unique for index_copy: duplicates are nondeterministic in
    torch), alpha, whether the read is through a non-contiguous view (a.t() / a.mT)."""
    d = _dim(draw, len(a))
    s = _size(a, d)
    k = draw(st.integers(0, 4))
    vals = draw(st.lists(st.integers(-s if draw(st.booleans()) else 0, max(s - 1, 0)),
                         min_size=k, max_size=k)) if s else []
    return (d, np.array(vals, dtype=draw(st.sampled_from(["int64", "int64", "int32"]))),
            draw(st.sampled_from([1, 2, -0.5])), draw(st.booleans()))


def _turned(a):
    return a.mT if a.dim() >= 2 else a


def _a_index_op(name):
    def f(L, p, a, b):
        d, idx, alpha, turn = p
        x = _turned(a) if turn else a
        if name == "index_copy" and len(idx):     # unique positions (duplicates: torch's
            size = _size(tuple(x.shape), d)        # winner is unspecified)
            idx = np.unique(idx % size).astype(idx.dtype) if size else idx
        i = L.tensor(idx)
        if name == "index_fill":     # (torch's backward refuses [] on a 0-d x, and a negative
            size = _size(tuple(x.shape), d)     # index when the value needs a gradient)
            i = L.tensor(idx % size if size else idx) if x.dim() or len(idx) else L.tensor([0])
            val = b.to(x.dtype).sum() if b.is_floating_point() else 0.5
            return x.index_fill(d, i, val)
        shape = list(x.shape)
        if shape:
            shape[d % x.dim()] = len(idx)
        src = _src_from(L, x, b, tuple(shape))
        if name == "index_add":
            return x.index_add(d, i, src, alpha=alpha)
        if name == "index_copy":
            return x.index_copy(d, i, src)
        return x.index_put((i,), src.sum() if alpha == 1 else src.reshape(-1)[:1].sum(),
                           accumulate=alpha != -0.5)
    return f


def _p_scatter_reduce(draw, a, b):
    d, idx = _p_gather(draw, a, b)
    return (d, idx, draw(st.sampled_from(["sum", "prod", "mean", "amax", "amin"])),
            draw(st.booleans()))


def _a_scatter_reduce(L, p, a, b):
    d, idx, red, include = p
    src = _src_from(L, a, b, idx.shape)
    return a.scatter_reduce(d, L.tensor(idx), src, red, include_self=include)


def _a_scatter(L, p, a, b):
    """scatter with a src: where an index repeats along dim, torch's winner is unspecified, so
    each row's index is made unique (a permutation prefix)."""
    d, idx = p
    if a.dim() and idx.size:
        k, size = d % a.dim(), a.shape[d % a.dim()]
        n = idx.shape[k]
        if n > size:
            return a.scatter_add(d, L.tensor(idx), _src_from(L, a, b, idx.shape))
        idx = np.broadcast_to(np.arange(n).reshape([-1 if j == k else 1 for j in
                                                     range(idx.ndim)]), idx.shape).copy()
    return a.scatter(d, L.tensor(idx), _src_from(L, a, b, idx.shape))


def _a_masked_scatter(L, p, a, b):
    mask = a > 0.25
    return a.masked_scatter(mask, _src_from(L, a, b, tuple(a.shape)) * -1)


def _a_setitem_dup(L, p, a, b):
    """h[idx] = v and h[idx] += v with repeated indices (the last write wins; += reads first)."""
    d, idx, alpha, turn = p
    h = a.clone()
    x = _turned(h) if turn else h
    key = (slice(None),) * (d % max(x.dim(), 1)) + (L.tensor(idx),) if x.dim() else \
        L.tensor(idx)
    target = x[key]
    v = _src_from(L, a, b, tuple(target.shape))
    if alpha == 1:
        x[key] = v
    else:
        x[key] += v * alpha
    return h


INDEXING.update({
    "index_add": (_p_index_dup, _a_index_op("index_add")),
    "index_copy": (_p_index_dup, _a_index_op("index_copy")),
    "index_fill": (_p_index_dup, _a_index_op("index_fill")),
    "index_put": (_p_index_dup, _a_index_op("index_put")),
    "scatter_reduce": (_p_scatter_reduce, _a_scatter_reduce),
    "scatter": (_p_gather, _a_scatter),
    "masked_scatter": (_none, _a_masked_scatter),
    "masked_fill_t": (_none, lambda L, p, a, b: _turned(a).masked_fill(
        _turned(a) < 0, b.to(a.dtype).sum() if b.is_floating_point() else 2.5)),
    "setitem_dup": (_p_index_dup, _a_setitem_dup),
})


# in-place on a view of a clone of a: the view, the op, and what it writes (from b)
IVIEWS = ["slice2", "select0", "diagonal", "t", "flat", "self", "unfold", "adv_read", "expand_b"]
IOPS = ["mul_", "add_", "sub_", "div_", "copy_", "exp_", "sqrt_", "relu_", "sigmoid_", "neg_",
        "clamp_", "zero_", "fill_", "masked_fill_", "pow_", "setitem_b", "index_put_acc",
        "index_add_", "index_fill_", "masked_scatter_", "scatter_"]


def _p_inplace(draw, a, b):
    return (draw(st.sampled_from(IVIEWS)), draw(st.sampled_from(IOPS)),
            draw(st.sampled_from(["b", "b_sum", "b_mean", "number"])))


def _iview(L, h, how):
    if how == "slice2":
        return h[::2] if h.dim() else h
    if how == "select0":
        return h.select(0, 0) if h.dim() else h
    if how == "diagonal":
        return h.diagonal(0, 0, -1)
    if how == "t":
        return h.t() if h.dim() <= 2 else h.transpose(0, 1)
    if how == "flat":
        return h.view(-1)
    if how == "unfold":
        return h.unfold(-1, 1, 2)
    return h


def _a_inplace(L, p, a, b):
    view, op, src = p
    h = a.clone()
    if view == "adv_read":       # an advanced-index read is a copy: writes do not reach h
        v = h[[0]] if h.dim() else h
    elif view == "expand_b":     # in-place arithmetic on an expanded view: torch refuses
        v = h.expand(2, *h.shape)    # (labkit refuses index_put there too: see EXPAND_WRITES)
    else:
        v = _iview(L, h, view)
    if src == "number":
        val = 0.75
    elif not b.is_floating_point():
        val = b
    else:
        val = {"b": b, "b_sum": b.sum(), "b_mean": b.mean()}[src]
    if op in ("mul_", "add_", "sub_", "div_", "pow_"):
        getattr(v, op)(val)
    elif op == "copy_":
        v.copy_(val if isinstance(val, L.Tensor) else L.tensor(val))
    elif op in ("exp_", "sqrt_", "relu_", "sigmoid_", "neg_", "zero_"):
        getattr(v, op)()
    elif op == "clamp_":
        v.clamp_(-0.5, 1.0)
    elif op == "fill_":
        v.fill_(val if not isinstance(val, L.Tensor) or val.dim() == 0 else val.sum())
    elif op == "masked_fill_":
        v.masked_fill_(v > 0, val if not isinstance(val, L.Tensor) or val.dim() == 0
                       else val.sum())
    elif op == "setitem_b":
        v[v > 0.5] = val if not isinstance(val, L.Tensor) or val.dim() == 0 else val.sum()
    elif op == "index_put_acc":
        i = L.tensor([0, 0, -1]) if v.dim() and v.shape[0] else L.tensor([], dtype=L.int64)
        src_t = val if isinstance(val, L.Tensor) else L.tensor(val)
        v.index_put_((i,), src_t.to(v.dtype).sum() * L.ones(()), accumulate=True)
    elif op == "index_add_":
        i = L.tensor([0, 0]) if v.dim() and v.shape[0] else L.tensor([], dtype=L.int64)
        if v.dim():
            v.index_add_(0, i, v[i] * 2)
        else:
            v.add_(1)
    elif op == "index_fill_":     # (no negative index: torch's backward for a value that
        i = L.tensor(sorted({0, v.shape[0] - 1})) if v.dim() and v.shape[0] else L.tensor(  #
            [] if v.dim() else [0], dtype=L.int64)   # needs a gradient refuses it, as [] on a
        # 0-d v; no repeats: torch's value gradient counts a repeated position per repeat)
        v.index_fill_(0, i, val if not isinstance(val, L.Tensor) or val.dim() == 0
                      else val.sum())
    elif op == "masked_scatter_":
        scale = val.sum() if isinstance(val, L.Tensor) else val
        v.masked_scatter_(v > 0, (L.arange(v.numel()).reshape(v.shape) * scale).to(v.dtype))
    elif op == "scatter_":
        scale = val.sum() if isinstance(val, L.Tensor) else val
        ones = (1,) * v.dim()
        v.scatter_(0, L.zeros(ones, dtype=L.int64), L.ones(ones, dtype=v.dtype) * scale)
    else:
        raise AssertionError(op)
    return h


def _p_ce(draw, a, b):
    c = a[1] if len(a) >= 2 else (a[0] if a else 1)
    n = a[0] if len(a) >= 2 else 1
    tshape = (n,) + tuple(a[2:]) if len(a) >= 2 else ()
    k = int(np.prod(tshape)) if tshape else 1
    ignore = draw(st.sampled_from([-100, 0, 1]))
    t = draw(st.lists(st.integers(0, max(c - 1, 0)) if c else st.just(0), min_size=k, max_size=k))
    if draw(st.integers(0, 4)) == 0:
        t = [ignore] * k
    return (np.array(t, dtype="int64").reshape(tshape),
            draw(st.sampled_from(["mean", "sum", "none"])), draw(st.sampled_from([0.0, 0.0, 0.1])),
            ignore)


def _a_ce(L, p, a, b):
    t, red, ls, ign = p
    return L.nn.functional.cross_entropy(a, L.tensor(t), reduction=red, label_smoothing=ls,
                                         ignore_index=ign)


def _a_nll(L, p, a, b):
    t, red, ls, ign = p
    return L.nn.functional.nll_loss(a.log_softmax(1) if a.dim() >= 2 else a.log_softmax(0),
                                    L.tensor(t), reduction=red, ignore_index=ign)


def _p_ln(draw, a, b):
    return (draw(st.integers(0, len(a))), draw(st.booleans()))


def _a_ln(L, p, a, b):
    k, affine = p
    shape = tuple(a.shape[a.dim() - k:])
    w = (L.linspace(0.5, 1.5, int(np.prod(shape)) if shape else 1, dtype=a.dtype).reshape(shape)
         if affine else None)
    return L.nn.functional.layer_norm(a, shape, w, None if w is None else w * 0.1)


def _p_gn(draw, a, b):
    return (draw(st.sampled_from([1, 2, 3])),)


def _a_gn(L, p, a, b):
    return L.nn.functional.group_norm(a, p[0])


def _p_conv(draw, a, b):
    return (draw(st.integers(1, 3)), draw(st.sampled_from(["same", "valid", 0, 1])),
            draw(st.sampled_from([1, 2])))


def _a_conv(L, p, a, b):
    k, pad, dil = p
    cin = a.shape[1] if a.dim() == 3 else 1
    w = L.linspace(-1, 1, 2 * cin * k, dtype=a.dtype).reshape(2, cin, k)
    if b.is_floating_point():
        w = w * b.to(a.dtype).mean()
    return L.nn.functional.conv1d(a, w, padding=pad, dilation=dil)


def _a_loss(name):
    def f(L, p, a, b):
        bb = b.to(a.dtype) if b.is_floating_point() else b
        if name == "bce_logits":
            return L.nn.functional.binary_cross_entropy_with_logits(a, (bb > 0).to(a.dtype),
                                                                    reduction=p[0])
        return getattr(L.nn.functional, name)(a, bb.expand_as(a) if bb.dim() <= a.dim()
                                              else bb, reduction=p[0])
    return f


def _p_red(draw, a, b):
    return (draw(st.sampled_from(["mean", "sum", "none"])),)


FUNCTIONAL = {
    "cross_entropy": (_p_ce, _a_ce), "nll_loss": (_p_ce, _a_nll),
    "layer_norm": (_p_ln, _a_ln), "group_norm": (_p_gn, _a_gn), "conv1d": (_p_conv, _a_conv),
    "normalize": (_p_dim, lambda L, p, a, b: L.nn.functional.normalize(a, dim=p[0])),
    "mse_loss": (_p_red, _a_loss("mse_loss")), "l1_loss": (_p_red, _a_loss("l1_loss")),
    "smooth_l1_loss": (_p_red, _a_loss("smooth_l1_loss")),
    "huber_loss": (_p_red, _a_loss("huber_loss")),
    "bce_logits": (_p_red, _a_loss("bce_logits")),
    "F_softmax": (_p_dim, lambda L, p, a, b: L.nn.functional.softmax(a, p[0])),
    "pad": (lambda d, a, b: (d(st.sampled_from([(1, 0), (0, 2), (1, 1, 0, 1), (-1, 1)])),),
            lambda L, p, a, b: L.nn.functional.pad(a, p[0])),
}

OPS = {}
for _n, _f in UNARY.items():
    OPS[_n] = (_none, (lambda f: lambda L, p, a, b: f(L, a))(_f))
for _n, _f in BINARY.items():
    OPS[_n] = (_none, (lambda f: lambda L, p, a, b: f(L, a, b))(_f))
OPS["clamp"] = (_p_clamp, _a_clamp)
OPS["pow_scalar"] = (_p_pow, lambda L, p, a, b: a ** p[0])
OPS["rpow"] = (_p_rpow, lambda L, p, a, b: p[0] ** a)
OPS.update(REDUCE)
OPS.update(VIEWS)
OPS.update(INDEXING)
OPS["inplace"] = (_p_inplace, _a_inplace)
OPS.update(FUNCTIONAL)

GROUPS = {"unary": sorted(UNARY) + ["clamp", "pow_scalar", "rpow"], "binary": sorted(BINARY),
          "reduce": sorted(REDUCE), "view": sorted(VIEWS), "index": sorted(INDEXING),
          "inplace": ["inplace"], "functional": sorted(FUNCTIONAL)}

# torch runs these only on floating inputs (NotImplementedError for int/bool), labkit on any
# dtype: a known accept-gap (labkit/engine/ops/nn_activation.py, products; not this fuzzer's);
# softmax/log_softmax: both refuse integers, but torch accepts an *empty* integer tensor
FLOAT_ONLY = {"softplus", "leaky_relu", "gelu", "silu", "elu", "logsigmoid", "hardtanh", "relu6",
              "addcmul", "lerp", "softmax", "log_softmax"} | set(FUNCTIONAL)
# torch's index_put_ (x[mask] = v, masked_fill_) writes into an expand()ed view; labkit's expanded
# views are read-only for every write: a known gap (labkit refuses with a clear message)
EXPAND_WRITES = {"fill_", "masked_fill_", "setitem_b", "index_put_acc", "index_add_", "copy_",
                 "index_fill_", "masked_scatter_", "scatter_",
                 "zero_"}
# gradients at +-inf that differ from torch's (huber/smooth_l1: torch +-1/n, labkit nan): a known
# gap in the loss ops, not drawn on non-finite inputs; gelu(+inf) is nan in torch's float32 and
# bfloat16 kernels only (inf in its float64/float16 ones, and in labkit): torch's artifact;
# hardtanh/relu6's gradient at nan is 0 in torch's vectorized kernel (blocks of 8 doubles) and
# passes in its scalar tail (labkit passes it, as the tail): torch's artifact too
NONFINITE_GAPS = {"huber_loss", "smooth_l1_loss", "gelu", "hardtanh", "relu6"}
