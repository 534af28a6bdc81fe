"""What the ops' tangent (forward-mode) and batching (vmap) rules are made of.

An op keeps its rules on its Function, beside forward and backward (labkit.func uses them):

    jvp(args, tangents, out) -> the tangent of out. tangents[i] is the tangent of args[i], or
                                None where it has none (a zero that is never materialised).
    vmap(args, batched)      -> out, with the batch on dim 0. Each batched tensor in args has
                                its batch on dim 0; `batched` mirrors args (True there).

Both are written with Tensor ops, so rules compose: jvp of jvp, vmap of jvp, vmap of grad.
They are two columns of the op table (table.py): labkit.func reads them with table.lookup.
"""


# --- tangents ----------------------------------------------------------------------------
def total(*terms):
    """The sum of the terms that are not None (None when all are: a zero tangent)."""
    out = None
    for t in terms:
        if t is not None:
            out = t if out is None else out + t
    return out


def fit(t, out):
    """A tangent broadcast to the output's shape (an operand of a broadcasting op may be smaller)."""
    if t is not None and tuple(t.shape) != tuple(out.shape):
        t = t.expand(*out.shape)
    return t


def same_op(cls, args, tangents, out):
    """For ops linear in their first argument (views, sums, copies): the op of the tangent."""
    return None if tangents[0] is None else cls.apply(tangents[0], *args[1:])


def times(t, factor):
    return None if t is None else t * factor


# --- batching -----------------------------------------------------------------------------
def _rank(a, b):
    return a.ndim - 1 if b is True else a.ndim


def lift(a, n):
    """A batched tensor with 1s inserted after the batch dim up to logical rank n, so that it
    broadcasts against unbatched operands the way its logical value would."""
    missing = n - (a.ndim - 1)
    return a if missing <= 0 else a.reshape((a.shape[0],) + (1,) * missing + tuple(a.shape[1:]))


def batch_size(args, batched):
    for a, b in zip(args, batched):
        if b is True:
            return a.shape[0]
        if isinstance(b, tuple):
            n = batch_size(a, b)
            if n is not None:
                return n
    return None


def elementwise(cls, args, batched):
    """Elementwise ops: align the ranks, then the op itself broadcasts over the batch."""
    n = max((_rank(a, b) for a, b in zip(args, batched) if hasattr(a, "ndim")), default=0)
    return cls.apply(*(lift(a, n) if b is True else a for a, b in zip(args, batched)))


def dims_after_batch(cls, args, batched):
    """Reductions (x, dims, keepdim): dims shift by one; None (all dims) means every logical one."""
    x, dims, *rest = args
    dims = range(x.ndim - 1) if dims is None else dims
    return cls.apply(x, tuple(d + 1 for d in dims), *rest)


def expand_batch(a, n):
    """An unbatched tensor repeated along a new batch dim 0 of size n (a view)."""
    return a.unsqueeze(0).expand(n, *a.shape)


def matmul(a, ab, b, bb):
    """a @ b where either side may carry the batch on dim 0."""
    from .linalg import matmul as mm
    av, bv = (a.ndim - ab) == 1, (b.ndim - bb) == 1   # logical vectors
    if av:
        a = a.unsqueeze(-2)
    if bv:
        b = b.unsqueeze(-1)
    n = max(a.ndim - ab, b.ndim - bb)
    if ab:
        a = lift(a, n)
    if bb:
        b = lift(b, n)
    out = mm(a, b)
    if bv:
        out = out.squeeze(-1)
    if av:
        out = out.squeeze(-1 if bv else -2)
    return out


def zeros_like(a):
    """A constant zero tangent for an operand that has none (where a rule needs one spelt out)."""
    return type(a)._make(a.device.xp.zeros_like(a._data), a.device)


def any_batched(flags):
    """Whether anything in flags is batched: a tensor (True) or an index array ("array")."""
    if isinstance(flags, (tuple, list)):
        return any(any_batched(f) for f in flags)
    return flags is True or flags == "array"


def index_items(idx):
    return idx if isinstance(idx, tuple) else (idx,)


def plain_index(items):
    """Whether `(slice(None),) + items` indexes each example as items indexes one: true unless
    advanced (array) indices are split by a slice (numpy then moves their dims to the front)."""
    adv = [i for i, it in enumerate(items) if hasattr(it, "shape") or isinstance(it, list)]
    return not adv or adv[-1] - adv[0] == len(adv) - 1



def diagonal(cls, args, t):
    """The tangent of an elementwise op of one tensor from its backward: the Jacobian is
    diagonal, so J t = J^T t, one reverse step through the op (for ops whose derivative has
    no simpler form here, e.g. gelu)."""
    from ..autograd import grad
    from ..grad_mode import enable_grad
    x = args[0]
    with enable_grad():
        leaf = x if x.requires_grad else x.clone().requires_grad_()   # an op: outer levels see it
        y = cls.apply(leaf, *args[1:])
        (g,) = grad(y, leaf, t, create_graph=True)
    return g


def fold_batch(cls, args):
    """Ops that already take a batch dim N (conv, pool, fold): the vmap batch B joins it,
    (B, N, ...) -> (B * N, ...), and is split off the result again."""
    x = args[0]
    b, n = x.shape[0], x.shape[1]
    out = cls.apply(x.reshape(b * n, *x.shape[2:]), *args[1:])
    if isinstance(out, tuple):                     # max_pool2d: (values, indices)
        return tuple(o.reshape(b, n, *o.shape[1:]) for o in out)
    return out.reshape(b, n, *out.shape[1:])
