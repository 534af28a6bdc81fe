"""NAdam: Adam with Nesterov momentum: the step uses the momentum of the *next* step
(mu_{t+1}) on the running average and the current gradient with the rest, and a momentum
that warms up over time, mu_t = beta1 (1 - 0.5 * 0.96^(t * momentum_decay))."""
from ..engine.creation import ones, zeros_like
from ..engine.dtype import float32
from .optimizer import Optimizer, step_as_float, step_tensor


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, maximize=False):
        if min(lr, eps, weight_decay, momentum_decay) < 0 or \
                not all(0 <= b < 1 for b in betas):
            raise ValueError(f"NAdam: need lr, eps, weight_decay, momentum_decay >= 0 and betas "
                             f"in [0, 1), got lr={lr}, betas={betas}, eps={eps}, "
                             f"weight_decay={weight_decay}, momentum_decay={momentum_decay}.")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize))

    def _update(self, p, group):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        wd, psi = group["weight_decay"], group["momentum_decay"]
        g = -p.grad if group["maximize"] else p.grad
        state = self.state[p]
        if not state:
            state["step"] = step_tensor(p)
            state["mu_product"] = ones((), dtype=float32, device=p.device)  # 0-d, as torch
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
        step = step_as_float(state["step"].add_(1), p)  # tensor math: one trace for all steps
        if wd:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                g = g.add(p, alpha=wd)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * psi))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * psi))
        mu_product = state["mu_product"].mul_(mu.to(float32)).to(p.dtype)   # as torch: in float32
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.add_(g - m, alpha=1 - beta1)
        v.mul_(beta2).add_(g * g, alpha=1 - beta2)
        denom = (v / (1 - beta2 ** step)).sqrt() + eps
        p.sub_(g / denom * (lr * (1.0 - mu) / (1.0 - mu_product)))
        p.sub_(m / denom * (lr * mu_next / (1.0 - mu_product * mu_next)))
