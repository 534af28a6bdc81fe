"""Joining and splitting: cat, stack, split, chunk."""
from ..autocast import autocast_op
from ..function import Function
from ..promotion import cast, result_np
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
        dt = result_np(*tensors)   # as torch: int with float gives float32, not numpy's float64
        xp = tensors[0].device.xp
        try:   # C order: numpy keeps its inputs' (Fortran) order, torch's cat is contiguous
            return xp.ascontiguousarray(xp.concatenate([cast(t, dt) for t in tensors], axis=dim))
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
        dt = result_np(*tensors)
        xp = tensors[0].device.xp   # C order, as torch's stack (numpy keeps a Fortran order)
        return xp.ascontiguousarray(xp.stack([cast(t, dt) for t in tensors], axis=dim))

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


def _sequence(name, tensors):
    if isinstance(tensors, Tensor):       # a tensor iterates over its rows: not what was meant
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not Tensor: {name}([a, b]), not {name}(a).")


@autocast_op("cat")
def cat(tensors, dim=0):
    """Join tensors along an existing dim."""
    _sequence("cat", tensors)
    tensors = list(tensors)
    _check_same("cat", tensors)
    # as torch: a 1-D empty tensor is skipped whatever the others' shapes (legacy behaviour)
    kept = [t for t in tensors if t._data.shape != (0,)]
    if not kept:
        return Cat.apply(0, *tensors)
    tensors = kept
    nd = tensors[0]._data.ndim
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"cat: zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated. Use labkit.stack to join numbers into a new dim, "
                               "or reshape them to (1,) first.")
    if not -nd <= dim < nd:
        raise IndexError(f"cat: dim {dim} is out of range for {nd}-D tensors "
                         f"(valid: {-nd} to {nd - 1}).")
    return Cat.apply(dim % nd, *tensors)


@autocast_op("stack")
def stack(tensors, dim=0):
    """Join tensors along a new dim."""
    _sequence("stack", tensors)
    tensors = list(tensors)
    _check_same("stack", tensors)
    nd = tensors[0]._data.ndim + 1
    if not -nd <= dim < nd:
        raise IndexError(f"stack: dim {dim} is out of range (new tensor has {nd} dims).")
    return Stack.apply(dim % nd, *tensors)


concatenate = concat = cat


def _split_dim(name, x, dim):
    nd = x._data.ndim
    if nd == 0:
        raise RuntimeError(f"{name}: expects at least a 1-dimensional tensor, got a 0-d one (a "
                           "single number). Nothing to split: use it as is, or x.reshape(1).")
    if not -nd <= dim < nd:
        raise IndexError(f"{name}: dimension {dim} is out of range for a tensor of shape "
                         f"{tuple(x.shape)} (valid: {-nd} to {nd - 1}).")
    return dim % nd


@tensor_method("split")
def split(x, split_size_or_sections=None, dim=0, *, split_size=None):
    """Pieces of size split_size (the last may be smaller), or of the listed sizes. The pieces
    are views of x (they share its memory and version counter), as in torch."""
    if split_size_or_sections is None:   # Tensor.split's keyword is split_size
        if split_size is None:
            raise TypeError("split() missing 1 required positional argument: "
                            "'split_size_or_sections'")
        split_size_or_sections = split_size
    dim = _split_dim("split", x, dim)
    n = x._data.shape[dim]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0 or (step == 0 and n):
            raise RuntimeError(f"split: split_size must be positive (0 only for a dim of size "
                               f"0), got {step} for dim {dim} of shape {tuple(x.shape)}.")
        sizes = [step] * (n // step) + ([n % step] if n % step else []) if n else [n]
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise RuntimeError(f"split: sizes {sizes} must be non-negative and add up to dim "
                               f"{dim}'s size {n} (shape {tuple(x.shape)}), but add up to "
                               f"{sum(sizes)}.")
        if not sizes:
            return ()
    return _pieces(x, sizes, dim, "Split" if isinstance(split_size_or_sections, int)
                   else "SplitWithSizes")


def _pieces(x, sizes, dim, op_name="Split"):
    from .shape import _as_view, watch_multi_output
    out = Split.apply(x, sizes, dim)
    out = out if isinstance(out, tuple) else (out,)
    for i, piece in enumerate(out):
        _as_view(piece, x)
        watch_multi_output(piece, f"Output {i} of {op_name}")
    return out


@tensor_method("chunk")
def chunk(x, chunks, dim=0):
    """Split into `chunks` nearly equal pieces (as torch: ceil(n / chunks) each, so there may
    be fewer; a dim of size 0 gives `chunks` empty pieces)."""
    if not isinstance(chunks, int) or chunks <= 0:
        raise RuntimeError(f"chunk: expects `chunks` to be greater than 0, got {chunks}.")
    dim = _split_dim("chunk", x, dim)
    n = x._data.shape[dim]
    if n == 0:
        return _pieces(x, [0] * chunks, dim, "Split")
    return split(x, -(-n // chunks), dim)
