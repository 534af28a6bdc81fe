"""ASGD: SGD with a decaying step eta = lr / (1 + lambd lr t)^alpha and weight shrinkage, that
also keeps ax, the running (Polyak) average of the weights from step t0 on: averaged SGD."""
from ..engine.creation import tensor, zeros_like
from ..engine.defaults import get_default_dtype
from ..engine.dtype import float32, float64
from .optimizer import Optimizer, step_tensor


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, p, group):
        lr, lambd = group["lr"], group["lambd"]
        g = -p.grad if group["maximize"] else p.grad
        state = self.state[p]
        if not state:     # eta and mu in torch's scalar dtype (float32 unless the default
            scalar = float64 if get_default_dtype() == float64 else float32   # is float64)
            state["step"] = step_tensor(p)
            state["eta"] = tensor(float(lr), dtype=scalar, device=p.device)
            state["mu"] = tensor(1.0, dtype=scalar, device=p.device)
            state["ax"] = zeros_like(p)
        step = int(state["step"].add_(1).item())
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        eta, mu, ax = state["eta"].item(), state["mu"].item(), state["ax"]
        p.mul_(1 - lambd * eta)
        p.add_(g, alpha=-eta)
        if mu != 1:
            ax.add_((p - ax) * mu)
        else:
            ax.copy_(p)
        state["eta"].fill_(lr / ((1 + lambd * lr * step) ** group["alpha"]))
        state["mu"].fill_(1 / max(1, step - group["t0"]))
