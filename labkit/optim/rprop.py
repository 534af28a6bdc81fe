"""Rprop: only the sign of the gradient is used. Each weight has its own step size, grown by
etaplus while the gradient keeps its sign and shrunk by etaminus when it flips (then that
step is skipped), kept within step_sizes. For full-batch training, as in the original."""
from ..engine.creation import full_like, zeros_like
from ..engine.ops.select import where
from .optimizer import Optimizer, step_tensor


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 maximize=False, foreach=None, capturable=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes),
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def _update(self, p, group):
        (etaminus, etaplus), (low, high) = group["etas"], group["step_sizes"]
        g = -p.grad if group["maximize"] else p.grad
        state = self.state[p]
        if not state:
            state["step"] = step_tensor(p)
            state["prev"] = zeros_like(p)
            state["step_size"] = full_like(g, group["lr"])
        state["step"].add_(1)
        prev, size = state["prev"], state["step_size"]
        agree = (g * prev).sign()
        # the factors in p's dtype, so that factor == etaminus below is exact
        plus, minus = full_like(p, etaplus), full_like(p, etaminus)
        factor = where(agree > 0, plus, where(agree < 0, minus, full_like(p, 1.0)))
        size.mul_(factor).clamp_(low, high)
        g = where(factor == minus, zeros_like(p), g)
        p.addcmul_(g.sign(), size, value=-1)
        prev.copy_(g)
