"""The 'Introduction to TorchScript' tutorial: a scripted decision gate inside a traced cell,
a scripted loop around the traced cell, and a trace of the whole; the control flow of the
scripted parts must survive in the trace, and the traced cell shows its submodules."""
import warnings

import torch

warnings.simplefilter("ignore", DeprecationWarning)   # torch.jit is deprecated in torch 2.x
torch.manual_seed(0)


class MyDecisionGate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        else:
            return -x


class MyCell(torch.nn.Module):
    def __init__(self, dg):
        super().__init__()
        self.dg = dg
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x, h):
        new_h = torch.tanh(self.dg(self.linear(x)) + h)
        return new_h, new_h


x, h = torch.rand(3, 4), torch.rand(3, 4)
scripted_gate = torch.jit.script(MyDecisionGate())
traced_cell = torch.jit.trace(MyCell(scripted_gate), (x, h))
print(traced_cell.code)
assert isinstance(traced_cell.linear.weight, torch.nn.Parameter)
assert [n for n, _ in traced_cell.named_parameters()] == ["linear.weight", "linear.bias"]


class MyRNNLoop(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = torch.jit.trace(MyCell(scripted_gate), (x, h))

    def forward(self, xs):
        h, y = torch.zeros(3, 4), torch.zeros(3, 4)
        for i in range(xs.size(0)):
            y, h = self.cell(xs[i], h)
        return y, h


class WrapRNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.loop = torch.jit.script(MyRNNLoop())

    def forward(self, xs):
        y, h = self.loop(xs)
        return torch.relu(y)


wrap = WrapRNN()
traced = torch.jit.trace(wrap, (torch.rand(10, 3, 4)))
print(traced.code)
for xs in (torch.rand(10, 3, 4), -5 * torch.rand(10, 3, 4)):
    assert torch.allclose(traced(xs), wrap(xs))
y, h = wrap.loop(torch.rand(6, 3, 4))
assert y.shape == (3, 4) and torch.equal(y, h)
