"""Adamax: Adam with the infinity norm: the second moment becomes a running maximum of |g|,
u = max(beta2 u, |g| + eps), and the step is lr / (1 - beta1^t) * m / u."""
from ..engine.creation import zeros_like
from ..engine.ops.select import maximum
from .optimizer import Optimizer, step_as_float, step_tensor


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, *,
                 maximize=False):
        if lr < 0 or eps < 0 or weight_decay < 0 or not all(0 <= b < 1 for b in betas):
            raise ValueError(f"Adamax: need lr, eps, weight_decay >= 0 and betas in [0, 1), got "
                             f"lr={lr}, betas={betas}, eps={eps}, weight_decay={weight_decay}.")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, maximize=maximize))

    def _update(self, p, group):
        (beta1, beta2), eps = group["betas"], group["eps"]
        g = -p.grad if group["maximize"] else p.grad
        state = self.state[p]
        if not state:
            state["step"] = step_tensor(p)
            state["exp_avg"] = zeros_like(p)
            state["exp_inf"] = zeros_like(p)
        step = step_as_float(state["step"].add_(1), p)  # tensor math: one trace for all steps
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        m, u = state["exp_avg"], state["exp_inf"]
        m.add_(g - m, alpha=1 - beta1)
        u.copy_(maximum(u.mul_(beta2), g.abs() + eps))
        p.sub_(m / u * (group["lr"] / (1 - beta1 ** step)))
