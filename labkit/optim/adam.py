"""Adam: per-parameter step sizes from running averages of the gradient (m, momentum-like) and
of its square (v, its scale): w -= lr * m_hat / (sqrt(v_hat) + eps), the hats undoing the bias
of averages that start at zero. Steps are about lr in size whatever the gradient's scale."""
from ..engine.creation import zeros_like
from ..engine.ops.select import maximum
from .optimizer import Optimizer, step_as_float, step_tensor


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if lr < 0 or eps < 0 or weight_decay < 0:
            raise ValueError(f"{type(self).__name__}: lr, eps and weight_decay must be >= 0, got "
                             f"lr={lr}, eps={eps}, weight_decay={weight_decay}.")
        if not all(0 <= b < 1 for b in betas):
            raise ValueError(f"{type(self).__name__}: betas must be in [0, 1), got {betas}.")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable,
                                      fused=fused,   # torch's kernel choices: recorded, one math
                                      decoupled_weight_decay=decoupled_weight_decay))

    def _update(self, p, group):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay = group["weight_decay"]
        g = -p.grad if group["maximize"] else p.grad
        state = self.state[p]
        if not state:
            state["step"] = step_tensor(p)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(p)
        step = state["step"].add_(1)
        if weight_decay:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * weight_decay)           # AdamW: shrink the weights directly
            else:
                g = g.add(p, alpha=weight_decay)        # Adam: an L2 term in the gradient
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.add_(g - m, alpha=1 - beta1)                  # m += (1 - beta1) * (g - m)
        v.mul_(beta2).add_(g * (1 - beta2) * g)         # v = beta2 v + (1 - beta2) g^2
        if group["amsgrad"]:
            v_max = state["max_exp_avg_sq"]
            v = v_max.copy_(maximum(v_max, v))
        step = step_as_float(step, p)                   # tensor math: one trace for all steps
        step_size = lr / (1 - beta1 ** step)
        denom = (v.sqrt() / (1 - beta2 ** step) ** 0.5).add_(eps)
        p.sub_(m / denom * step_size)
