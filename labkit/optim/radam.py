"""RAdam: Adam with its adaptive step switched on only once the variance of the second-moment
estimate is tractable (rho_t > 5), and rectified by a factor r_t; before that, plain momentum
SGD. This replaces a hand-tuned warm-up."""
from ..engine.creation import zeros_like
from ..engine.ops.select import where
from .optimizer import Optimizer, step_as_float, step_tensor


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, maximize=False):
        if lr < 0 or eps < 0 or weight_decay < 0 or not all(0 <= b < 1 for b in betas):
            raise ValueError(f"RAdam: need lr, eps, weight_decay >= 0 and betas in [0, 1), got "
                             f"lr={lr}, betas={betas}, eps={eps}, weight_decay={weight_decay}.")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize))

    def _update(self, p, group):
        lr, (beta1, beta2), eps, wd = group["lr"], group["betas"], group["eps"], \
            group["weight_decay"]
        g = -p.grad if group["maximize"] else p.grad
        state = self.state[p]
        if not state:
            state["step"] = step_tensor(p)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
        step = step_as_float(state["step"].add_(1), p)  # tensor math: one trace for all steps
        if wd:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                g = g.add(p, alpha=wd)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.add_(g - m, alpha=1 - beta1)
        v.mul_(beta2).add_(g * g, alpha=1 - beta2)
        bias1, bias2 = 1 - beta1 ** step, 1 - beta2 ** step
        m_hat = m / bias1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias2
        # the branch on rho_t as a where (torch's capturable form): no Python branch on a
        # tensor, so jit.compile captures both sides once
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                / ((rho_inf - 4) * (rho_inf - 2) * rho_t)).clamp(min=0).sqrt()
        adaptive = bias2 ** 0.5 / (v.sqrt() + eps)
        p.sub_(where(rho_t > 5.0, m_hat * lr * adaptive * rect, m_hat * lr))
