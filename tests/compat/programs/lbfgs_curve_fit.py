"""Fit a curve with L-BFGS: the optimizer calls the closure several times per step, and the
strong-Wolfe line search picks each step length."""
import math

import torch

torch.manual_seed(0)
x = torch.linspace(-3, 3, 50, dtype=torch.float64)
y = 1.5 * torch.sin(0.8 * x) + 0.3 + 0.01 * torch.randn(50, dtype=torch.float64)
params = torch.tensor([1.0, 1.0, 0.0], dtype=torch.float64, requires_grad=True)
optimizer = torch.optim.LBFGS([params], lr=1, max_iter=50, history_size=10,
                              line_search_fn="strong_wolfe")
calls = 0


def closure():
    global calls
    calls += 1
    optimizer.zero_grad()
    a, b, c = params
    loss = ((a * torch.sin(b * x) + c - y) ** 2).mean()
    loss.backward()
    return loss


for _ in range(3):
    loss = optimizer.step(closure)
a, b, c = params.tolist()
print(f"a={a:.3f} b={b:.3f} c={c:.3f} after {calls} closure calls, loss {closure().item():.2e}")
assert math.isclose(a, 1.5, abs_tol=0.02) and math.isclose(b, 0.8, abs_tol=0.02)
assert math.isclose(c, 0.3, abs_tol=0.02) and calls > 3
assert optimizer.state[params]["n_iter"] > 3
