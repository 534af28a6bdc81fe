"""Whole models built from the new layers, trained for a few SGD steps on labkit and on torch
from the same weights (float64): the losses and the final weights must agree step by step.
This is what a tutorial does with them, so it is what must transfer."""
import numpy as np
import pytest

import labkit
from labkit import nn
from nn_oracle import close

torch = pytest.importorskip("torch")


def classifier(m):
    return m.Sequential(
        m.Conv2d(3, 8, 3, padding="same", bias=False), m.BatchNorm2d(8), m.ReLU(),
        m.MaxPool2d(2, ceil_mode=True),
        m.Conv2d(8, 8, 3, padding=1, groups=4, padding_mode="reflect"), m.GroupNorm(2, 8),
        m.SiLU(), m.Dropout2d(0.0),
        m.Conv2d(8, 8, 1), m.AvgPool2d(2, ceil_mode=True, count_include_pad=False),
        m.AdaptiveAvgPool2d((1, 1)), m.Flatten(), m.Linear(8, 4), m.LogSoftmax(dim=1))


def decoder(m):
    return m.Sequential(
        m.ConvTranspose2d(4, 6, 4, stride=2, padding=1), m.BatchNorm2d(6), m.LeakyReLU(0.2),
        m.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
        m.ReflectionPad2d(1), m.Conv2d(6, 3, 3), m.ELU(), m.Conv2d(3, 3, 1), m.Tanh())


def mlp(m):
    return m.Sequential(
        m.Linear(6, 16), m.LayerNorm(16), m.GELU(approximate="tanh"), m.Linear(16, 16),
        m.Softplus(), m.Linear(16, 8), m.Mish(), m.Hardtanh(-2, 2), m.Linear(8, 1), m.Sigmoid())


CASES = {   # model, input shape, loss on (output, target) for each library, target maker
    "classifier": (classifier, (5, 3, 9, 7), lambda m: m.NLLLoss(),
                   lambda rng: rng.integers(0, 4, 5)),
    "decoder": (decoder, (2, 4, 3, 3), lambda m: m.SmoothL1Loss(beta=0.5),
                lambda rng: rng.uniform(-1, 1, (2, 3, 12, 12))),
    "mlp": (mlp, (8, 6), lambda m: m.BCELoss(),
            lambda rng: (rng.uniform(size=(8, 1)) > 0.5).astype(np.float64)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_training_steps_match_torch(device, name):
    build, shape, make_loss, make_target = CASES[name]
    torch.manual_seed(0)
    ref = build(torch.nn).double()
    mine = build(nn).double().to(device)
    assert list(mine.state_dict()) == list(ref.state_dict())
    mine.load_state_dict({k: labkit.tensor(v.numpy(), device=device)
                          for k, v in ref.state_dict().items()})
    opt_l = labkit.optim.SGD(mine.parameters(), lr=0.1, momentum=0.9)
    opt_t = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    loss_l, loss_t = make_loss(nn), make_loss(torch.nn)
    rng = np.random.default_rng(0)
    for step in range(3):
        x, y = rng.standard_normal(shape), make_target(rng)
        out_l = mine(labkit.tensor(x, device=device))
        out_t = ref(torch.tensor(x))
        lv = loss_l(out_l, labkit.tensor(y, device=device))
        tv = loss_t(out_t, torch.tensor(y))
        close(lv, tv, f"loss at step {step}", rtol=1e-8)
        opt_l.zero_grad()
        opt_t.zero_grad()
        lv.backward()
        tv.backward()
        opt_l.step()
        opt_t.step()
    state = mine.state_dict()
    for k, v in ref.state_dict().items():
        close(state[k], v, f"{k} after training", rtol=1e-7, atol=1e-9)
    mine.eval(), ref.eval()
    x = rng.standard_normal(shape)
    close(mine(labkit.tensor(x, device=device)), ref(torch.tensor(x)), "eval output", rtol=1e-7)


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_models_match_eager(name):
    """labkit.jit.compile replays the new layers (several reshape their parameters, which made
    views the tracer once mistook for untraced in-place changes)."""
    build, shape, _, _ = CASES[name]
    model = build(nn).double().eval()
    compiled = labkit.jit.compile(model)
    for seed in range(2):
        x = np.random.default_rng(seed).standard_normal(shape)
        xe = labkit.tensor(x, requires_grad=True)
        xc = labkit.tensor(x, requires_grad=True)
        ye, yc = model(xe), compiled(xc)
        np.testing.assert_allclose(yc.detach().numpy(), ye.detach().numpy(), rtol=1e-12)
        ye.sum().backward()
        yc.sum().backward()
        np.testing.assert_allclose(xc.grad.numpy(), xe.grad.numpy(), rtol=1e-12)
