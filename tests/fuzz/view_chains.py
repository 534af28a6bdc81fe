"""Chains of views of one base, a write through one of them, then reads (the view fuzzer).

A chain is 1-4 view ops drawn against the running shape (view, reshape, transpose, permute,
expand, narrow, select, basic indexing, diagonal, unfold, as_strided, unflatten, movedim,
squeeze, unsqueeze, split/chunk/unbind pieces, t/T/mT, swapaxes, flatten, and real/imag of a
complex base); then one in-place write through one link (arithmetic, fill/zero/copy_, item
assignment with a mask or an index, index_*_, scatter_, masked_*), with the base a leaf, a
non-leaf, a plain tensor, or written under no_grad, through .detach() or through .data.
`run` returns what a program can see afterwards: the base and every link's values, shape,
stride, storage_offset, is_contiguous and _version, and (when the base is a non-leaf) the
gradients of the leaf and of the written value.

Parameters are plain data (hypothesis prints and shrinks them); `apply_view(L, t, p)` and
`write(L, v, p, w)` run them in library L (torch or labkit).
"""
import numpy as np
from hypothesis import strategies as st

VIEWS = ["view", "reshape", "transpose", "permute", "expand", "narrow", "select", "index",
         "diagonal", "unfold", "as_strided", "unflatten", "movedim", "squeeze", "squeeze_dim",
         "unsqueeze", "split", "chunk", "unbind", "t", "T", "mT", "swapaxes", "flatten",
         "view_neg", "real", "imag"]
WRITES = ["add_", "mul_", "sub_w", "zero_", "fill_", "copy_", "setitem_int", "setitem_all",
          "setitem_mask", "setitem_list", "iadd_list", "clamp_", "index_fill_", "index_add_",
          "index_copy_", "masked_fill_", "masked_scatter_", "scatter_", "scatter_add_",
          "index_put_acc", "neg_", "exp_", "div_"]
BASES = ["nonleaf", "nonleaf", "nonleaf", "plain", "leaf", "no_grad", "detach", "data"]


def _dim(draw, nd):
    n = max(nd, 1)
    return draw(st.integers(-n, n - 1))


def _size(shape, d):
    return shape[d] if shape else 1


@st.composite
def view_step(draw, shape, is_complex, complex_base=False):
    """A view op and its parameters, drawn for a tensor of `shape` (sometimes invalid: both
    libraries must then raise the same error)."""
    nd = len(shape)
    names = VIEWS if is_complex else VIEWS[:-2]
    if complex_base:     # no complex unfold or as_strided: labkit has none yet (a known gap it
        names = [v for v in names if v not in ("unfold", "as_strided")]   # refuses), nor an
    name = draw(st.sampled_from(names))              # as_strided of a complex storage's .real
    n = int(np.prod(shape)) if shape else 1
    if name in ("view", "reshape"):
        opts = [(-1,), (n,), tuple(shape), (1,) + tuple(shape), tuple(reversed(shape))]
        if nd >= 2:
            opts.append((shape[0] * shape[1], -1) if shape[0] * shape[1] else (0, -1))
        if nd >= 1 and shape[-1] % 2 == 0 and shape[-1]:
            opts.append(tuple(shape[:-1]) + (2, shape[-1] // 2))
        return (name, draw(st.sampled_from(opts)))
    if name in ("transpose", "swapaxes", "movedim"):
        return (name, _dim(draw, nd), _dim(draw, nd))
    if name == "permute":
        return (name, tuple(draw(st.permutations(range(nd)))))
    if name == "expand":
        lead = (2,) * draw(st.integers(0, 1))
        return (name, lead + tuple(draw(st.sampled_from([s, -1, 2 if s == 1 else s]))
                                   for s in shape))
    if name == "narrow":
        d = _dim(draw, nd)
        s = _size(shape, d)
        start = draw(st.integers(-s, s)) if s else 0
        return (name, d, start, draw(st.integers(0, max(s - start % max(s, 1), 0))))
    if name == "select":
        d = _dim(draw, nd)
        s = _size(shape, d)
        return (name, d, draw(st.integers(-s, max(s - 1, 0))))
    if name == "index":
        items = []
        for k in range(draw(st.integers(1, max(nd, 1)))):
            kind = draw(st.sampled_from(["slice", "slice", "int", "none", "ellipsis"]))
            s = shape[k] if k < nd else 1
            if kind == "slice":
                items.append(slice(draw(st.sampled_from([None, 0, 1, -1, -2])),
                                   draw(st.sampled_from([None, 2, -1, 3])),
                                   draw(st.sampled_from([None, 1, 2, 3]))))
            elif kind == "int":
                items.append(draw(st.integers(-s, max(s - 1, 0))))
            elif kind == "none":
                items.append(None)
            elif Ellipsis not in items:
                items.append(Ellipsis)
        return (name, tuple(items))
    if name == "diagonal":
        return (name, draw(st.integers(-2, 2)), _dim(draw, nd), _dim(draw, nd))
    if name == "unfold":
        size = draw(st.integers(1, 3))      # step >= size: windows do not overlap (a write
        return (name, _dim(draw, nd), size, draw(st.integers(size, 3)))   # is then one-to-one)
    if name == "as_strided":
        # a permutation of row-major strides over a sub-box: each element once (no overlap)
        sizes = tuple(draw(st.integers(0, s)) for s in shape)
        order = draw(st.permutations(range(nd)))
        strides, step = [0] * nd, 1
        for k in reversed(order):
            strides[k] = step
            step *= max(sizes[k], 1)
        room = n - (step if all(sizes) else 0)
        return (name, sizes, tuple(strides), draw(st.integers(0, max(room, 0))) if n else 0)
    if name == "unflatten":
        d = _dim(draw, nd)
        s = _size(shape, d)
        return (name, d, draw(st.sampled_from([(1, -1), (-1, 1), (s,), (1, s, 1)]
                                              + ([(2, -1)] if s and s % 2 == 0 else []))))
    if name == "squeeze_dim":
        return (name, _dim(draw, nd))
    if name == "unsqueeze":
        return (name, draw(st.integers(-nd - 1, nd)))
    if name in ("split", "chunk"):
        k = draw(st.integers(1, 3))
        return (name, k, _dim(draw, nd), draw(st.integers(0, 3)))
    if name == "unbind":
        return (name, _dim(draw, nd), draw(st.integers(0, 3)))
    if name == "flatten":
        return (name, _dim(draw, nd), _dim(draw, nd))
    if name == "view_neg":
        return (name, (-1,) + tuple(shape[1:]) if nd >= 1 else (-1,))
    return (name,)


def apply_view(L, t, p):
    name = p[0]
    if name in ("view", "reshape", "view_neg"):
        return getattr(t, "reshape" if name == "reshape" else "view")(p[1])
    if name in ("transpose", "swapaxes", "movedim"):
        return getattr(t, name)(p[1], p[2])
    if name == "permute":
        return t.permute(p[1]) if p[1] else t.permute(())
    if name == "expand":
        return t.expand(p[1]) if p[1] else t.expand(())
    if name in ("narrow", "select", "diagonal", "unfold", "unflatten", "flatten"):
        return getattr(t, name)(*p[1:])
    if name == "index":
        return t[p[1]]
    if name == "as_strided":
        return t.as_strided(p[1], p[2], p[3])
    if name == "squeeze":
        return t.squeeze()
    if name == "squeeze_dim":
        return t.squeeze(p[1])
    if name == "unsqueeze":
        return t.unsqueeze(p[1])
    if name in ("split", "chunk"):
        pieces = getattr(t, name)(p[1], p[2])
        return pieces[p[3] % len(pieces)]
    if name == "unbind":
        pieces = t.unbind(p[1])
        if not pieces:
            raise IndexError("unbind: no pieces")        # (the same in both libraries)
        return pieces[p[2] % len(pieces)]
    if name == "t":
        return t.t()
    if name == "T":
        return t.T if t.dim() <= 2 else t.permute(*reversed(range(t.dim())))
    if name == "mT":
        return t.mT
    return getattr(t, name)          # real, imag


@st.composite
def write_step(draw, shape):
    name = draw(st.sampled_from(WRITES))
    nd = len(shape)
    d = _dim(draw, nd)
    s = _size(shape, d)
    # (torch's index_fill_ backward on a 0-d tensor refuses -1 and an empty index: its bug)
    k = draw(st.integers(0 if nd else 1, 3))
    flag = draw(st.booleans())
    lo = -s if nd and not (name == "index_fill_" and flag) else 0   # (torch's backward of
    # index_fill_ with a value that needs a gradient refuses a negative index)
    idx = tuple(draw(st.integers(lo, max(s - 1, 0))) for _ in range(k)) if s else ()
    return (name, d, idx, draw(st.sampled_from([2.0, -0.5, 0.0, 1.5])), flag)


def write(L, v, p, w):
    """Write through v in place. w: a 0-d float tensor (the written value; requires grad in the
    gradient programs), of v's dtype."""
    name, d, idx, num, flag = p
    val = w if flag else num
    nd = v.dim()
    i = L.tensor(list(idx), dtype=L.int64)
    if name == "add_":
        v.add_(val)
    elif name == "mul_":
        v.mul_(val)
    elif name == "sub_w":
        v.sub_(val, alpha=2)
    elif name == "div_":
        v.div_(w if flag else 2.0)
    elif name == "zero_":
        v.zero_()
    elif name == "fill_":
        v.fill_(val)
    elif name == "copy_":
        v.copy_(w.expand(v.shape) * L.arange(v.numel(), dtype=v.dtype).reshape(v.shape)
                if flag else L.full(v.shape, num, dtype=v.dtype))
    elif name == "setitem_int":
        v[d if nd else ...] = val
    elif name == "setitem_all":
        v[...] = val
    elif name == "setitem_mask":
        v[v > 0.5] = val
    elif name == "setitem_list":
        v[(slice(None),) * (d % max(nd, 1)) + (list(idx),)] = val
    elif name == "iadd_list":
        key = (slice(None),) * (d % max(nd, 1)) + (list(idx),)
        v[key] += val                               # repeated indices: added once (a copy)
    elif name == "clamp_":
        v.clamp_(-0.5, 1.0)
    elif name == "neg_":
        v.neg_()
    elif name == "exp_":
        v.exp_()
    elif name == "index_fill_":
        v.index_fill_(d, i, val)
    elif name in ("index_add_", "index_copy_"):
        shape = list(v.shape)
        if shape:
            shape[d % nd] = len(idx)
        src = L.ones(shape, dtype=v.dtype) * val
        getattr(v, name)(d, i if nd else i.reshape(()) if len(idx) == 1 else i, src)
    elif name == "masked_fill_":
        v.masked_fill_(v < 1.0, val)
    elif name == "masked_scatter_":
        v.masked_scatter_(v > 0.0, L.arange(v.numel(), dtype=v.dtype).reshape(v.shape) * val)
    elif name in ("scatter_", "scatter_add_"):
        ishape = [min(1, s) for s in v.shape]
        if ishape:
            ishape[d % nd] = min(len(idx), v.shape[d % nd]) if v.shape[d % nd] else 0
        n = int(np.prod(ishape)) if ishape else 1
        index = L.tensor(list(idx)[:n] + [0] * max(n - len(idx), 0), dtype=L.int64) \
            .reshape(ishape)
        src = L.ones(ishape, dtype=v.dtype) * val
        getattr(v, name)(d, index, src)
    elif name == "index_put_acc":
        v.index_put_((i,), L.ones((), dtype=v.dtype) * val, accumulate=True)
    else:
        raise AssertionError(name)


@st.composite
def chains(draw):
    """(shape, dtype, base kind, view steps, which link is written, write step, seed)."""
    shape = tuple(draw(st.sampled_from([0, 1, 2, 2, 3, 3, 4]))
                  for _ in range(draw(st.integers(0, 4))))
    dtype = draw(st.sampled_from(["float64", "float64", "float32", "complex128", "int64"]))
    kind = draw(st.sampled_from(BASES))
    return shape, dtype, kind


def base_values(shape, dtype, seed):
    n = int(np.prod(shape)) if shape else 1
    vals = np.random.default_rng(seed).integers(-4, 5, size=n).astype(np.float64) * 0.5
    if dtype == "complex128":
        return (vals + 1j * vals[::-1]).reshape(shape)
    return vals.astype(dtype).reshape(shape)


def meta(t):
    """What a program can ask about a view's memory. The step of a size-1 dim addresses no
    memory and torch's depends on the op that made it (view recomputes it, transpose keeps
    it): reported as None."""
    steps = tuple(None if n == 1 else s for n, s in zip(t.shape, t.stride()))
    return (tuple(t.shape), steps, t.storage_offset(), t.is_contiguous(), t._version)
