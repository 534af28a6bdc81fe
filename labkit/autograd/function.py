"""torch.autograd.function's helpers: once_differentiable, for a backward that is not written
with differentiable Tensor ops (e.g. it works on raw arrays)."""
import functools

from ..engine.function import Function, FunctionCtx
from ..engine.grad_mode import is_grad_enabled, no_grad
from ..engine.tensor import Tensor

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class _DelayedError(Function):
    """Passes the first n tensors through; differentiating them raises (the backward they
    came from was not recorded, so a second derivative would be silently wrong)."""

    @staticmethod
    def forward(ctx, n, *tensors):
        return tuple(t._data for t in tensors[:n])

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable: its backward is not recorded, so it has no "
                           "derivative of its own. Write backward with Tensor ops (and drop "
                           "the decorator) to allow double backward.")


def once_differentiable(backward):
    """Decorate a Function's backward: it runs with recording off; under create_graph=True its
    results are marked so that differentiating them again raises an error instead of giving
    a wrong (zero) answer."""
    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        with no_grad():
            out = backward(ctx, *grads)
        recorded = [g for g in grads if isinstance(g, Tensor) and g.requires_grad]
        if not is_grad_enabled() or not recorded:
            return out
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        index = [i for i, o in enumerate(outs) if isinstance(o, Tensor)]
        marked = _DelayedError.apply(len(index), *[outs[i] for i in index], *recorded)
        outs = list(outs)
        for i, m in zip(index, marked):
            outs[i] = m
        return outs[0] if single else tuple(outs)
    return wrapper
