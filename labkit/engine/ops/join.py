"""Joining and splitting: cat, stack, split, chunk."""
from ..function import Function
from ..tensor import Tensor, tensor_method
from . import rules


def _check_same(name, tensors):
    if not tensors:
        raise RuntimeError(f"{name}: expected a non-empty list of tensors.")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}: expected a list of tensors, found {type(t).__name__}.")


class Cat(Function):
    node_name = "CatBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx.dim = dim
        ctx.sizes = [t._data.shape[dim] for t in tensors]
        try:
            return tensors[0].device.xp.concatenate([t._data for t in tensors], axis=dim)
        except ValueError:
            raise RuntimeError(
                f"cat: tensors must have the same shape except in dim {dim}, got "
                f"{', '.join(str(tuple(t.shape)) for t in tensors)}.") from None

    @staticmethod
    def backward(ctx, grad):
        return (None,) + tuple(grad.split(ctx.sizes, ctx.dim))

    @staticmethod
    def jvp(args, tangents, out):
        if all(t is None for t in tangents[1:]):
            return None
        return Cat.apply(args[0], *(rules.zeros_like(a) if t is None else t
                                     for a, t in zip(args[1:], tangents[1:])))

    @staticmethod
    def vmap(args, batched):
        n = rules.batch_size(args, batched)
        return Cat.apply(args[0] + 1, *(a if b else rules.expand_batch(a, n)
                                          for a, b in zip(args[1:], batched[1:])))


class Stack(Function):
    node_name = "StackBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx.dim = dim
        shapes = {t._data.shape for t in tensors}
        if len(shapes) > 1:
            raise RuntimeError(f"stack: all tensors must have the same shape, got "
                               f"{', '.join(str(tuple(t.shape)) for t in tensors)}.")
        return tensors[0].device.xp.stack([t._data for t in tensors], axis=dim)

    @staticmethod
    def backward(ctx, grad):
        n = grad.shape[ctx.dim]
        return (None,) + tuple(g.squeeze(ctx.dim) for g in grad.split(1, ctx.dim)[:n])

    @staticmethod
    def jvp(args, tangents, out):
        if all(t is None for t in tangents[1:]):
            return None
        return Stack.apply(args[0], *(rules.zeros_like(a) if t is None else t
                                     for a, t in zip(args[1:], tangents[1:])))

    @staticmethod
    def vmap(args, batched):
        n = rules.batch_size(args, batched)
        return Stack.apply(args[0] + 1, *(a if b else rules.expand_batch(a, n)
                                          for a, b in zip(args[1:], batched[1:])))


class Split(Function):
    node_name = "SplitBackward0"

    @staticmethod
    def forward(ctx, x, sizes, dim):
        ctx.dim, ctx.shape = dim, x._data.shape
        bounds, acc = [], 0
        for s in sizes[:-1]:
            acc += s
            bounds.append(acc)
        return tuple(x.device.xp.split(x._data, bounds, axis=dim))

    @staticmethod
    def backward(ctx, *grads):
        return Cat.apply(ctx.dim, *grads), None, None

    jvp = classmethod(rules.same_op)

    @staticmethod
    def vmap(args, batched):
        x, sizes, dim = args
        return Split.apply(x, sizes, dim + 1)


def cat(tensors, dim=0):
    """Join tensors along an existing dim."""
    tensors = list(tensors)
    _check_same("cat", tensors)
    nd = tensors[0]._data.ndim
    if not -nd <= dim < max(nd, 1):
        raise IndexError(f"cat: dim {dim} is out of range for {nd}-D tensors.")
    return Cat.apply(dim % nd, *tensors)


def stack(tensors, dim=0):
    """Join tensors along a new dim."""
    tensors = list(tensors)
    _check_same("stack", tensors)
    nd = tensors[0]._data.ndim + 1
    if not -nd <= dim < nd:
        raise IndexError(f"stack: dim {dim} is out of range (new tensor has {nd} dims).")
    return Stack.apply(dim % nd, *tensors)


concatenate = concat = cat


@tensor_method("split")
def split(x, split_size_or_sections, dim=0):
    """Pieces of size split_size (the last may be smaller), or of the listed sizes."""
    nd = x._data.ndim
    dim = dim % nd
    n = x._data.shape[dim]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step <= 0:
            raise RuntimeError(f"split: split_size must be positive, got {step}.")
        sizes = [step] * (n // step) + ([n % step] if n % step else [])
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != n:
            raise RuntimeError(f"split: sizes {sizes} add up to {sum(sizes)}, but dim {dim} of "
                               f"shape {tuple(x.shape)} has {n} elements.")
    out = Split.apply(x, sizes or [0], dim)
    return out if isinstance(out, tuple) else (out,)


@tensor_method("chunk")
def chunk(x, chunks, dim=0):
    """Split into `chunks` nearly equal pieces (as torch: ceil(n / chunks) each)."""
    n = x._data.shape[dim]
    size = -(-n // chunks)
    return split(x, max(size, 1), dim)
