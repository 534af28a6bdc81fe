"""einsum: products and sums written as index equations ('bij,bjk->bik').

The equation is first made explicit (ellipsis expanded to letters, the implicit output spelled
out). The gradient for one operand is itself an einsum, of the output gradient with the other
operands, giving back the operand's own letters; three cases need care and get it here:
a letter only that operand sums over (the gradient is constant along it: expand), a letter
repeated within the operand ('ii', a diagonal: a delta matrix puts the gradient back on it),
and a size-1 dimension broadcast against a larger one (summed, like any broadcast).
"""
from ..autocast import autocast_op
import string

from ..function import Function
from ..promotion import cast_all
from ..tensor import Tensor

_LETTERS = string.ascii_letters


def _parse(equation, operands):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(operands):
        raise RuntimeError(f"einsum(): the equation {equation!r} has {len(ins)} operand(s), but "
                         f"{len(operands)} tensor(s) were given.")
    used = set(c for c in eq if c.isalpha())
    fresh = iter(c for c in _LETTERS if c not in used)
    n_ell = 0
    for term, op in zip(ins, operands):
        if "..." in term:
            n_ell = max(n_ell, op.ndim - (len(term) - 3))
    ell = "".join(next(fresh) for _ in range(n_ell))
    out_ins = []
    for term, op in zip(ins, operands):
        if "..." in term:
            k = op.ndim - (len(term) - 3)
            term = term.replace("...", ell[n_ell - k:] if k else "")
        if any(c not in _LETTERS for c in term) or len(term) != op.ndim:
            raise RuntimeError(f"einsum(): the subscripts {term!r} do not match an operand of "
                             f"shape {tuple(op.shape)} (one letter per dimension).")
        out_ins.append(term)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        counts = {}
        for term in out_ins:
            for c in term:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted((c for c, n in counts.items() if n == 1 and c not in ell),
                                   key=_LETTERS.index))
    if len(set(out)) != len(out) or any(c not in "".join(out_ins) for c in out):
        raise RuntimeError(f"einsum(): output subscripts {out!r} must be distinct letters that "
                         "appear in the inputs.")
    return out_ins, out


class Einsum(Function):
    node_name = "EinsumBackward0"

    @staticmethod
    def forward(ctx, spec, *operands):
        ins, out = spec
        arrs = [t._data for t in operands]
        if len({a.dtype for a in arrs}) > 1:   # torch promotes unless a letter is contracted
            if any(c not in out and sum(c in term for term in ins) > 1 for c in set("".join(ins))):
                raise RuntimeError(f"einsum(): expected all operands to have the same dtype, "
                                   f"got {', '.join(str(t.dtype) for t in operands)} (a letter "
                                   "summed over two operands needs one dtype, as in torch).")
            arrs = list(cast_all(*operands)[1])
        sizes = {}
        for term, t in zip(ins, operands):
            for c, n in zip(term, t._data.shape):
                if sizes.get(c, 1) not in (1, n) and n != 1:
                    raise RuntimeError(f"einsum(): subscript {c!r} has size {n} for an operand "
                                       f"of shape {tuple(t.shape)}, which does not match the "
                                       f"size {sizes[c]} it has elsewhere.")
                if sizes.get(c, 1) == 1:           # the broadcast size (1 against 0 is 0)
                    sizes[c] = n
        ctx.save_for_backward(*operands)
        ctx.spec, ctx.sizes = spec, sizes
        xp = operands[0].device.xp
        low = arrs[0].dtype if arrs and arrs[0].dtype.kind == "V" else None   # bfloat16:
        if low is not None:                    # numpy's einsum has no loop; go through float32
            arrs = [a.astype("float32") for a in arrs]
        y = xp.asarray(xp.einsum(",".join(ins) + "->" + out, *arrs))
        return y if low is None else y.astype(low)

    @staticmethod
    def backward(ctx, grad):
        operands = ctx.saved_tensors
        ins, out = ctx.spec
        grads = [None]
        for i, need in enumerate(ctx.needs_input_grad[1:]):
            grads.append(_operand_grad(grad, operands, ins, out, i, ctx.sizes) if need else None)
        return tuple(grads)


def _operand_grad(grad, operands, ins, out, i, sizes):
    used = set("".join(ins) + out)
    fresh = iter(c for c in _LETTERS if c not in used)
    term, shape = ins[i], operands[i].shape
    others = [(t, o) for k, (t, o) in enumerate(zip(ins, operands)) if k != i]
    target, dims, extra_terms, extra_ops = [], [], [], []
    from ..creation import eye
    for c, n in zip(term, shape):
        if n == 1 and sizes[c] != 1:         # broadcast (to 0 too): a letter of its own, summed
            c = next(fresh)
        elif c in target:                     # repeated letter: a diagonal
            new = next(fresh)
            extra_terms.append(c + new)
            extra_ops.append(eye(n, dtype=grad.dtype, device=grad.device))
            c = new
        target.append(c)
        dims.append(n)
    present = set(out + "".join(t for t, _ in others) + "".join(extra_terms))
    kept = "".join(c for c in target if c in present)
    from .complex import cj                    # complex: the conjugates of the others
    g = Einsum.apply(([out] + [t for t, _ in others] + extra_terms, kept), grad,
                     *[cj(o).to(grad.dtype) for _, o in others], *extra_ops)
    g = g.to(operands[i].dtype)
    if len(kept) != len(target):              # letters summed only here: constant along them
        g = g.reshape([n if c in present else 1 for c, n in zip(target, dims)])
    if tuple(g.shape) != tuple(shape):        # or size 1 in the others (broadcast): the same
        g = g.expand(tuple(shape))
    return g


@autocast_op("einsum")
def einsum(equation, *operands):
    """Sum of products over the letters not in the output, e.g. einsum('ij,jk->ik', a, b) is
    a @ b and einsum('ii', a) the trace."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for t in operands:
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): expected tensors, got {type(t).__name__}.")
    ins, out = _parse(equation, operands)
    return Einsum.apply((ins, out), *operands)
