"""Adadelta, Adamax, NAdam, RAdam and SGD(maximize=True) on the same small regression, and a
param group added after construction (a new head with its own lr)."""
import torch

torch.manual_seed(0)
X = torch.randn(64, 3)
w_true = torch.tensor([[1.0], [-2.0], [0.5]])
Y = X @ w_true


def train(make, steps=150):
    model = torch.nn.Linear(3, 1)
    with torch.no_grad():
        model.weight.zero_()
        model.bias.zero_()
    opt = make(model.parameters())
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        opt.step()
    return loss.item(), opt


results = {}
for name, make in {
    "Adadelta": lambda p: torch.optim.Adadelta(p, lr=1.0),
    "Adamax": lambda p: torch.optim.Adamax(p, lr=0.05),
    "NAdam": lambda p: torch.optim.NAdam(p, lr=0.05),
    "RAdam": lambda p: torch.optim.RAdam(p, lr=0.05),
    "SGD": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.5),
}.items():
    results[name], opt = train(make)
    assert len(opt.state) == 2          # state for the weight and the bias
print({k: round(v, 5) for k, v in results.items()})
start = (Y ** 2).mean().item()
assert all(v < 0.5 * start for v in results.values())
assert max(results["Adamax"], results["NAdam"], results["SGD"]) < 0.01

# maximize=True climbs: maximising -loss is minimising loss
w = torch.zeros(3, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, maximize=True)
for _ in range(100):
    opt.zero_grad()
    (-((w - torch.tensor([1.0, 2.0, 3.0])) ** 2).sum()).backward()
    opt.step()
assert torch.allclose(w, torch.tensor([1.0, 2.0, 3.0]), atol=1e-4)

body, head = torch.nn.Linear(3, 3), torch.nn.Linear(3, 1)
opt = torch.optim.NAdam(body.parameters(), lr=1e-3)
opt.add_param_group({"params": head.parameters(), "lr": 1e-2})
assert [g["lr"] for g in opt.param_groups] == [1e-3, 1e-2]
assert opt.param_groups[1]["betas"] == (0.9, 0.999)
