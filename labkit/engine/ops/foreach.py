"""_foreach_add_: many in-place updates t += alpha * o in one call (torch._foreach_add_).

An optimizer updates every parameter each step; doing it as one loop over arrays, rather than
one dispatched op per parameter, is what keeps the step cheap for models with many small
tensors. Never recorded: it is for parameter updates under no_grad.
"""
from ..grad_mode import mode
from ..hooks import current_tracer


def _foreach_add_(tensors, others, alpha=1.0):
    if current_tracer() is not None:  # labkit.jit is tracing: one traced add_ per tensor
        for t, o in zip(tensors, others):
            t.add_(o, alpha=alpha)
        return
    for t, o in zip(tensors, others):
        if mode.enabled and t._rg:
            raise RuntimeError(
                "_foreach_add_: a leaf tensor that requires grad is being changed in place "
                "while gradients are recorded. Parameter updates belong under "
                "`with labkit.no_grad():` (optimizer.step() does this).")
        if o.device is not t.device:
            raise RuntimeError(f"_foreach_add_: a tensor on {t.device} cannot be updated from "
                               f"one on {o.device}; move one with .to().")
        if o._data.shape != t._data.shape:
            raise RuntimeError(f"_foreach_add_: the update has shape {tuple(o.shape)} but the "
                               f"tensor has shape {tuple(t.shape)}.")
        d = t._data
        d += o._data if alpha == 1 else alpha * o._data
        t._bump_version()
