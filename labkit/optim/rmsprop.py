"""RMSprop: divide each gradient by the root of a running average of its squares, so every
parameter moves at a similar pace (Hinton's lecture-notes optimizer, Adam's ancestor)."""
from ..engine.creation import zeros_like
from .optimizer import Optimizer, step_tensor


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, *, maximize=False):
        if lr < 0 or eps < 0 or momentum < 0 or weight_decay < 0 or alpha < 0:
            raise ValueError(f"RMSprop: lr, alpha, eps, momentum and weight_decay must be >= 0, "
                             f"got lr={lr}, alpha={alpha}, eps={eps}, momentum={momentum}, "
                             f"weight_decay={weight_decay}.")
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay,
                                      momentum=momentum, centered=centered, maximize=maximize))

    def _update(self, p, group):
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        momentum, centered = group["momentum"], group["centered"]
        g = -p.grad if group["maximize"] else p.grad
        state = self.state[p]
        if not state:
            state["step"] = step_tensor(p)
            state["square_avg"] = zeros_like(p)
            if momentum > 0:
                state["momentum_buffer"] = zeros_like(p)
            if centered:
                state["grad_avg"] = zeros_like(p)
        state["step"].add_(1)
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).add_(g * (1 - alpha) * g)
        if centered:                                   # divide by the std, not the rms
            grad_avg = state["grad_avg"]
            grad_avg.add_(g - grad_avg, alpha=1 - alpha)
            avg = (square_avg - grad_avg * grad_avg).sqrt()
        else:
            avg = square_avg.sqrt()
        avg.add_(eps)
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf.mul_(momentum).add_(g / avg)
            p.add_(buf, alpha=-lr)
        else:
            p.add_(g / avg, alpha=-lr)
