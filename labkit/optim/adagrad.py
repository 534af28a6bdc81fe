"""Adagrad: divide each gradient by the root of the sum of all its past squares. Rarely
updated parameters keep large steps, frequent ones slow down (good for sparse features); the
steps only ever shrink."""
from ..engine.creation import full_like
from ..nn.uninitialized import is_lazy
from .optimizer import Optimizer, step_as_float, step_tensor


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, *, maximize=False):
        if min(lr, lr_decay, weight_decay, initial_accumulator_value, eps) < 0:
            raise ValueError("Adagrad: lr, lr_decay, weight_decay, initial_accumulator_value and "
                             "eps must be >= 0.")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      eps=eps, maximize=maximize))
        for group in self.param_groups:                # as torch: state exists from the start
            for p in group["params"]:
                if is_lazy(p):                         # torch's ValueError, and the fix
                    raise ValueError("Adagrad: a parameter is uninitialized (a lazy module that "
                                     "has not seen an input yet). Call forward with a dummy "
                                     "batch first, then build the optimizer.")
                self.state[p]["step"] = step_tensor(p)
                self.state[p]["sum"] = full_like(p, group["initial_accumulator_value"])

    def _update(self, p, group):
        g = -p.grad if group["maximize"] else p.grad
        state = self.state[p]
        step = step_as_float(state["step"].add_(1), p)  # tensor math: one trace for all steps
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state["sum"].add_(g * g)
        p.sub_(g / state["sum"].sqrt().add_(group["eps"]) * clr)
