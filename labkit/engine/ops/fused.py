"""The multiply-add forms hand-written optimizers use (Adam in textbooks: exp_avg_sq.mul_(b2)
.addcmul_(g, g, value=1 - b2); p.addcdiv_(m, denom, value=-lr)), index_add, lerp_ and
clamp_min/clamp_max. Built from differentiable ops; the in-place forms go through add_/copy_,
so version counters and views behave as for any in-place op."""
from ..tensor import Tensor, tensor_method
from .gather import IndexAddNew
from .scan import _one_dim


@tensor_method("addcmul")
def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 * tensor2."""
    return input + (tensor1 * tensor2 if value == 1 else tensor1 * tensor2 * value)


@tensor_method("addcdiv")
def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2."""
    _no_int_div(tensor1, tensor2)
    return input + (tensor1 / tensor2 if value == 1 else tensor1 / tensor2 * value)


def _no_int_div(a, b):
    if all(isinstance(t, Tensor) and t._data.dtype.kind in "iub" for t in (a, b)):
        raise RuntimeError("addcdiv: integer division with addcdiv is no longer supported (as "
                           "in torch); convert tensor1 or tensor2 to a floating-point dtype.")


@tensor_method("addcmul_")
def addcmul_(input, tensor1, tensor2, *, value=1):
    return input.add_(tensor1 * tensor2, alpha=value)


@tensor_method("addcdiv_")
def addcdiv_(input, tensor1, tensor2, *, value=1):
    _no_int_div(tensor1, tensor2)
    return input.add_(tensor1 / tensor2, alpha=value)


@tensor_method("lerp_")
def lerp_(input, end, weight):
    """input += weight * (end - input), in place."""
    from .math import check_lerp, lerp
    check_lerp(input, end, weight)
    if input._data.dtype.kind == "c":        # (labkit's lerp has no complex version yet)
        return input.add_((end - input) * weight)
    return input.copy_(lerp(input.clone(), end, weight))


def _index_add_args(input, dim, index, source):
    dim = _one_dim(dim, input._data.ndim, "index_add")
    if not isinstance(index, Tensor) or index._data.ndim > 1:
        raise IndexError("index_add(): index must be a 1-D integer tensor.")
    if index._data.dtype.name not in ("int32", "int64"):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{index.dtype}. Convert it with index.long().")
    if isinstance(source, Tensor) and source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_add_(): self ({input.dtype}) and source ({source.dtype}) must "
                           f"have the same scalar type. Convert first: source.to({input.dtype}).")
    n = input._data.shape[dim] if input._data.ndim else 1
    i = index._data
    if not input._data.ndim and i.size != 1:
        raise IndexError("index_add(): Dimension specified as 0 but tensor has no dimensions "
                         "(a 0-d input takes one index, 0).")
    # torch checks the index as it adds: with nothing to add, nothing is checked
    if i.size and source.numel() and bool(((i < 0) | (i >= n)).any()):
        bad = int(i.min()) if int(i.min()) < 0 else int(i.max())
        # torch's kernel for a 0-d or 1-D input raises IndexError, for the others mostly
        # RuntimeError (its choice of kernel decides: (1, 1, 1) gives IndexError)
        raise (IndexError if input._data.ndim <= 1 else RuntimeError)(
            f"index_add(): index {bad} is out of bounds for dimension {dim} with size {n} "
            "(index out of range in self: index_add takes no negative positions).")
    want = list(input._data.shape)
    if want:
        want[dim] = i.size
    if tuple(source.shape) != tuple(want):
        raise RuntimeError(f"index_add(): source {tuple(source.shape)} should have shape "
                           f"{tuple(want)} (input's, with dim {dim} the index's length).")
    return dim


@tensor_method("index_add")
def index_add(input, dim, index, source, *, alpha=1):
    """A copy of input with source's slices added at index along dim (repeats add up)."""
    dim = _index_add_args(input, dim, index, source)
    alpha = _alpha_in(input, alpha)
    return input + IndexAddNew.apply(source if alpha == 1 else source * alpha, dim, index,
                                     input._data.shape, _nothing(input))


def _alpha_in(input, alpha):
    """alpha as torch's kernel reads it: converted to input's dtype (2.5 is 2 for integers)."""
    kind = input._data.dtype.kind
    if kind in "iu" and not isinstance(alpha, bool):
        return int(alpha)
    return bool(alpha) if kind == "b" else alpha


@tensor_method("index_add_")
def index_add_(input, dim, index, source, *, alpha=1):
    from .inplace import check_leaf
    check_leaf("index_add_", input)
    dim = _index_add_args(input, dim, index, source)
    alpha = _alpha_in(input, alpha)
    return input.add_(IndexAddNew.apply(source if alpha == 1 else source * alpha, dim, index,
                                        input._data.shape, _nothing(input)))


def _nothing(input):
    """What adds as nothing to every element: -0.0 for floats (0.0 + -0.0 is 0.0, -0.0 +
    0.0 would not be -0.0), 0 for integers."""
    return -0.0 if input._data.dtype.kind in "fcV" else 0


@tensor_method("clamp_min")
def clamp_min(input, min):
    from .scalar_ops import clamp_min as op     # ClampMinBackward0, as torch
    return op(input, min)


@tensor_method("clamp_max")
def clamp_max(input, max):
    from .scalar_ops import clamp_max as op
    return op(input, max)
