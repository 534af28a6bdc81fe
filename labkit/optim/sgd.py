"""SGD: w -= lr * g, optionally with momentum (a running sum of past gradients that smooths
the direction and speeds up progress along consistent slopes), Nesterov's look-ahead variant,
and weight decay (an L2 penalty on the weights)."""
from ..engine.grad_mode import no_grad
from ..engine.hooks import current_tracer
from ..engine.ops.foreach import _foreach_add_
from .optimizer import Optimizer, run_closure


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError(f"SGD: lr, momentum and weight_decay must be >= 0, got lr={lr}, "
                             f"momentum={momentum}, weight_decay={weight_decay}.")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD: Nesterov momentum requires a momentum > 0 and zero dampening.")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, foreach=foreach,
                                      differentiable=differentiable,
                                      fused=fused))   # torch's kernel choices: recorded, one math

    def step(self, closure=None):
        loss = run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                momentum = group["momentum"]
                weight_decay, maximize = group["weight_decay"], group["maximize"]
                if not (momentum or weight_decay or maximize) and current_tracer() is None:
                    _plain_step(group["params"], -group["lr"])
                    continue
                params, steps = [], []
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if maximize:
                        g = -g
                    if weight_decay:
                        g = g.add(p, alpha=weight_decay)
                    if momentum:
                        g = self._momentum(p, g, momentum, group["dampening"], group["nesterov"])
                    params.append(p)
                    steps.append(g)
                _foreach_add_(params, steps, alpha=-group["lr"])   # p -= lr * g, all at once
        return loss

    def _momentum(self, p, g, momentum, dampening, nesterov):
        """buf = momentum * buf + (1 - dampening) * g (buf = g at the first step)."""
        state = self.state[p]
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = state["momentum_buffer"] = g.clone()
        else:
            buf.mul_(momentum).add_(g, alpha=1 - dampening)
        return g.add(buf, alpha=momentum) if nesterov else buf


def _plain_step(params, alpha):
    """p += alpha * p.grad (alpha = -lr) for each parameter with a gradient, on arrays in one
    loop: what _foreach_add_ does for plain SGD, about 0.5 us less per parameter (a gradient
    of another shape or device takes _foreach_add_, which says what is wrong)."""
    for p in params:
        g = p.grad
        if g is None:
            continue
        d, gd = p._data, g._data
        if gd.shape != d.shape or g.device is not p.device:
            _foreach_add_([p], [g], alpha=alpha)
            continue
        d += alpha * gd
        p._bump_version()
