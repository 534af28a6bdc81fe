"""jit.compile of a whole training step settles after at most 2 traces for every optimizer
(the step count is a 0-d tensor counted in place, as in torch's capturable optimizers), and
gives the eager trajectory bit for bit; the step count is kept, saved and loaded as torch keeps it."""
import os
import warnings

import numpy as np
import pytest

import labkit
from labkit import jit, nn, optim
from labkit.nn import functional as F

OPTIMIZERS = {
    "SGD": lambda p: optim.SGD(p, lr=0.1),
    "SGD momentum nesterov": lambda p: optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    "Adam": lambda p: optim.Adam(p, lr=1e-2),
    "Adam amsgrad weight_decay": lambda p: optim.Adam(p, lr=1e-2, amsgrad=True,
                                                      weight_decay=0.1),
    "AdamW": lambda p: optim.AdamW(p, lr=1e-2),
    "RMSprop centered momentum": lambda p: optim.RMSprop(p, lr=1e-2, centered=True,
                                                         momentum=0.5),
    "Adagrad lr_decay": lambda p: optim.Adagrad(p, lr=1e-1, lr_decay=0.01),
    "Adadelta weight_decay": lambda p: optim.Adadelta(p, lr=1.0, weight_decay=0.01),
    "Adamax": lambda p: optim.Adamax(p, lr=1e-2),
    "NAdam": lambda p: optim.NAdam(p, lr=1e-2),
    "NAdam decoupled": lambda p: optim.NAdam(p, lr=1e-2, weight_decay=0.1,
                                             decoupled_weight_decay=True),
    "RAdam": lambda p: optim.RAdam(p, lr=1e-2),
}


def _setup(make_opt, device):
    labkit.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)).to(device)
    x, y = labkit.randn(16, 4).to(device), labkit.randn(16, 1).to(device)
    return model, make_opt(model.parameters()), x, y


def make_step(model, opt, x, y):
    def step():
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_100_compiled_steps_trace_at_most_twice_and_match_eager(name, device):
    if device == "cuda" and os.environ.get("LABKIT_FAKE_CUDA") == "1":
        pytest.skip("fake cupy cannot compile CUDA C (a fused group is an ElementwiseKernel)")
    model, opt, x, y = _setup(OPTIMIZERS[name], device)
    compiled = jit.compile(make_step(model, opt, x, y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(100):
            compiled()
    assert compiled.traces <= 2, f"{name}: {compiled.traces} traces in 100 steps"
    eager_model, eager_opt, _, _ = _setup(OPTIMIZERS[name], device)
    eager = make_step(eager_model, eager_opt, x, y)
    for _ in range(100):
        eager()
    for a, b in zip(model.parameters(), eager_model.parameters()):   # the same bits: the
        np.testing.assert_array_equal(a.detach().cpu().numpy(),        # JIT changes speed,
                                      b.detach().cpu().numpy())        # never results


@pytest.mark.parametrize("name", ["Adam", "RMSprop centered momentum", "Adagrad lr_decay"])
def test_the_step_count_is_a_0d_float32_tensor_as_in_torch(name, device):
    torch = pytest.importorskip("torch")
    model, opt, x, y = _setup(OPTIMIZERS[name], device)
    step = make_step(model, opt, x, y)
    for _ in range(3):
        step()
    count = opt.state_dict()["state"][0]["step"]
    assert isinstance(count, labkit.Tensor) and count.shape == () and count.item() == 3.0
    assert count.dtype == labkit.float32 and count.device == labkit.device(device)
    tmodel = torch.nn.Linear(2, 1)
    topt = {"Adam": torch.optim.Adam, "RMSprop centered momentum": torch.optim.RMSprop,
            "Adagrad lr_decay": torch.optim.Adagrad}[name](tmodel.parameters())
    tmodel(torch.ones(1, 2)).sum().backward()
    topt.step()
    tcount = topt.state_dict()["state"][0]["step"]
    assert tcount.shape == () and tcount.dtype == torch.float32


def test_an_int_step_from_an_older_state_dict_loads_as_a_tensor():
    model, opt, x, y = _setup(OPTIMIZERS["Adam"], "cpu")
    step = make_step(model, opt, x, y)
    step()
    sd = opt.state_dict()
    for s in sd["state"].values():
        s["step"] = 1                                   # as labkit wrote it before
    fresh = optim.Adam(model.parameters(), lr=1e-2)
    fresh.load_state_dict(sd)
    assert fresh.state_dict()["state"][0]["step"].item() == 1.0
    make_step(model, fresh, x, y)()
    assert fresh.state_dict()["state"][0]["step"].item() == 2.0
