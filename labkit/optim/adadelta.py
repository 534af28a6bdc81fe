"""Adadelta: Adagrad's per-parameter scaling with running (not summed) averages, and a step
whose units match the parameter's: delta = sqrt(E[dx^2] + eps) / sqrt(E[g^2] + eps) * g.
It needs no learning rate (lr=1 by default only scales delta)."""
from ..engine.creation import zeros_like
from .optimizer import Optimizer, step_tensor


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, *, maximize=False):
        if lr < 0 or eps < 0 or weight_decay < 0 or not 0 <= rho <= 1:
            raise ValueError(f"Adadelta: need lr, eps, weight_decay >= 0 and rho in [0, 1], got "
                             f"lr={lr}, rho={rho}, eps={eps}, weight_decay={weight_decay}.")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize))

    def _update(self, p, group):
        rho, eps = group["rho"], group["eps"]
        g = -p.grad if group["maximize"] else p.grad
        state = self.state[p]
        if not state:
            state["step"] = step_tensor(p)
            state["square_avg"] = zeros_like(p)
            state["acc_delta"] = zeros_like(p)
        state["step"].add_(1)                       # counted in place: no retrace
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).add_(g * g, alpha=1 - rho)
        delta = (acc_delta + eps).sqrt().div_((square_avg + eps).sqrt()).mul_(g)
        acc_delta.mul_(rho).add_(delta * delta, alpha=1 - rho)
        p.add_(delta, alpha=-group["lr"])
