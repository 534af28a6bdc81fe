"""Optimizers and schedulers against torch.optim: the same parameters, the same loss, several
steps, the same trajectory (float64, 1e-10 relative); state_dict round trips; lr sequences."""
import copy
import math
import warnings

import numpy as np
import pytest

import labkit
from labkit import nn, optim

torch = pytest.importorskip("torch")

STEPS = 6
RTOL = 1e-10


def loss_of(M, w, b):
    """A loss whose gradient depends on the parameters (so weight decay and curvature matter)."""
    a = M.tensor(np.linspace(-1, 1, 12).reshape(3, 4))
    return ((a @ w).tanh() ** 2).sum() + (w ** 4).sum() * 0.1 + ((b - 0.3) ** 2).sum()


def trajectory(M, make_opt, steps=STEPS, opt_out=None):
    rng = np.random.default_rng(0)
    w = M.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    b = M.tensor(rng.standard_normal(3), requires_grad=True)
    opt = make_opt(M.optim, [w, b])
    path = []
    for _ in range(steps):
        opt.zero_grad()
        loss_of(M, w, b).backward()
        opt.step()
        path.append(np.concatenate([w.detach().numpy().ravel(), b.detach().numpy().ravel()]))
    if opt_out is not None:
        opt_out.append((opt, w, b))
    return np.array(path)


CONFIGS = {
    "SGD": lambda O, p: O.SGD(p, lr=0.1),
    "SGD momentum": lambda O, p: O.SGD(p, lr=0.1, momentum=0.9),
    "SGD dampening": lambda O, p: O.SGD(p, lr=0.1, momentum=0.8, dampening=0.3),
    "SGD nesterov": lambda O, p: O.SGD(p, lr=0.05, momentum=0.9, nesterov=True),
    "SGD weight decay": lambda O, p: O.SGD(p, lr=0.1, momentum=0.5, weight_decay=0.01),
    "SGD maximize": lambda O, p: O.SGD(p, lr=0.01, maximize=True),
    "SGD param groups": lambda O, p: O.SGD([{"params": [p[0]]}, {"params": [p[1]], "lr": 0.3}],
                                           lr=0.1, momentum=0.9),
    "Adam": lambda O, p: O.Adam(p, lr=0.1),
    "Adam betas eps": lambda O, p: O.Adam(p, lr=0.05, betas=(0.8, 0.9), eps=1e-3),
    "Adam weight decay": lambda O, p: O.Adam(p, lr=0.1, weight_decay=0.1),
    "Adam amsgrad": lambda O, p: O.Adam(p, lr=0.1, amsgrad=True),
    "AdamW": lambda O, p: O.AdamW(p, lr=0.1),
    "AdamW amsgrad": lambda O, p: O.AdamW(p, lr=0.1, weight_decay=0.5, amsgrad=True),
    "RMSprop": lambda O, p: O.RMSprop(p, lr=0.01),
    "RMSprop momentum centered": lambda O, p: O.RMSprop(p, lr=0.01, momentum=0.9, centered=True),
    "RMSprop weight decay": lambda O, p: O.RMSprop(p, lr=0.01, alpha=0.9, weight_decay=0.1),
    "Adagrad": lambda O, p: O.Adagrad(p, lr=0.1),
    "Adagrad decay init": lambda O, p: O.Adagrad(p, lr=0.1, lr_decay=0.1, weight_decay=0.1,
                                                 initial_accumulator_value=0.5),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_trajectory_matches_torch(name):
    mine = trajectory(labkit, CONFIGS[name])
    ref = trajectory(torch, CONFIGS[name])
    assert not np.allclose(ref[0], ref[-1]), "the parameters should move"
    np.testing.assert_allclose(mine, ref, rtol=RTOL, atol=1e-14)


@pytest.mark.parametrize("name", ["SGD momentum", "Adam amsgrad", "RMSprop momentum centered",
                                  "Adagrad decay init", "AdamW"])
def test_optimizer_state_dict_resumes_the_same_trajectory(name):
    """Stop after 3 steps, save the state, load it into a freshly built optimizer (through a
    checkpoint file), and continue: the path is the one of an uninterrupted run."""
    full = trajectory(labkit, CONFIGS[name], steps=STEPS)
    made = []
    trajectory(labkit, CONFIGS[name], steps=3, opt_out=made)
    opt, w, b = made[0]
    state = copy.deepcopy(opt.state_dict())
    w2 = labkit.tensor(w.detach().numpy(), requires_grad=True)
    b2 = labkit.tensor(b.detach().numpy(), requires_grad=True)
    fresh = CONFIGS[name](labkit.optim, [w2, b2])
    fresh.load_state_dict(state)
    assert fresh.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
    rest = []
    for _ in range(STEPS - 3):
        fresh.zero_grad()
        loss_of(labkit, w2, b2).backward()
        fresh.step()
        rest.append(np.concatenate([w2.detach().numpy().ravel(), b2.detach().numpy().ravel()]))
    np.testing.assert_allclose(np.array(rest), full[3:], rtol=1e-13)


def test_state_dict_layout_matches_torch():
    made = {}
    for M in (labkit, torch):
        out = []
        trajectory(M, CONFIGS["SGD param groups"], steps=2, opt_out=out)
        made[M.__name__] = out[0][0].state_dict()
    mine, ref = made["labkit"], made["torch"]
    assert [g["params"] for g in mine["param_groups"]] == [g["params"] for g in ref["param_groups"]]
    for g, h in zip(mine["param_groups"], ref["param_groups"]):
        for k in ("lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize"):
            assert g[k] == h[k], k
    assert sorted(mine["state"]) == sorted(ref["state"]) == [0, 1]
    np.testing.assert_allclose(mine["state"][1]["momentum_buffer"].numpy(),
                               ref["state"][1]["momentum_buffer"].numpy(), rtol=RTOL)


def test_load_state_dict_rejects_another_models_state():
    w = labkit.zeros(2, requires_grad=True)
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    other = optim.SGD([labkit.zeros(2, requires_grad=True), labkit.zeros(1, requires_grad=True)],
                      lr=0.1)
    with pytest.raises(ValueError, match="doesn't match|does not belong"):
        opt.load_state_dict(other.state_dict())
    two_groups = optim.SGD([{"params": [labkit.zeros(1, requires_grad=True)]},
                            {"params": [labkit.zeros(1, requires_grad=True)]}], lr=1)
    with pytest.raises(ValueError, match="parameter group"):
        opt.load_state_dict(two_groups.state_dict())


def test_step_updates_in_place_without_recording_and_zero_grad():
    model = nn.Linear(3, 2)
    w = model.weight
    before = w.detach().numpy().copy()
    opt = optim.SGD(model.parameters(), lr=0.5)
    model(labkit.randn(4, 3)).sum().backward()
    opt.step()
    assert model.weight is w and w.is_leaf and w.grad_fn is None and w.requires_grad
    np.testing.assert_allclose(w.detach().numpy(), before - 0.5 * w.grad.numpy(), rtol=1e-6)
    opt.zero_grad(set_to_none=False)
    assert not w.grad.numpy().any()
    opt.zero_grad()
    assert w.grad is None
    opt.step()                         # parameters without a gradient are skipped


def test_step_with_closure():
    w = labkit.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        return loss
    with labkit.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 5.0
    np.testing.assert_allclose(w.detach().numpy(), [0.8, -1.6], rtol=1e-6)


def test_optimizer_construction_errors_teach():
    w = labkit.zeros(2, requires_grad=True)
    with pytest.raises(TypeError, match="single Tensor"):
        optim.SGD(w, lr=0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([w * 2], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)
    with pytest.raises(TypeError, match="set"):
        optim.SGD({w}, lr=0.1)
    with pytest.raises(ValueError, match="Nesterov"):
        optim.SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="betas"):
        optim.Adam([w], betas=(0.9, 1.0))
    assert "Parameter Group 0\n    amsgrad: False" in repr(optim.Adam([w]))


SCHEDULERS = {
    "StepLR": lambda S, o: S.StepLR(o, step_size=3, gamma=0.5),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, T_max=10, eta_min=0.001),
    "LambdaLR": lambda S, o: S.LambdaLR(o, lambda epoch: 1 / (1 + epoch)),
    "LambdaLR per group": lambda S, o: S.LambdaLR(o, [lambda e: 0.9 ** e, lambda e: e + 1]),
}


def lr_sequence(M, name, steps=35):
    w, b = (M.zeros(2, requires_grad=True) for _ in range(2))
    opt = M.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)
    sched = SCHEDULERS[name](M.optim.lr_scheduler, opt)
    seq = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        seq.append(sched.get_last_lr())
    return seq, opt, sched


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_sequence_matches_torch(name):
    mine, opt, _ = lr_sequence(labkit, name)
    ref, _, _ = lr_sequence(torch, name)
    np.testing.assert_allclose(np.array(mine), np.array(ref), rtol=1e-12, atol=1e-15)
    assert opt.param_groups[0]["lr"] == mine[-1][0]


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "LambdaLR"])
def test_scheduler_state_dict_round_trip(name):
    full, _, _ = lr_sequence(labkit, name, steps=20)
    _, opt, sched = lr_sequence(labkit, name, steps=8)
    state = sched.state_dict()
    assert "optimizer" not in state
    w, b = (labkit.zeros(2, requires_grad=True) for _ in range(2))
    opt2 = optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)
    opt2.load_state_dict(opt.state_dict())
    sched2 = SCHEDULERS[name](optim.lr_scheduler, opt2)
    sched2.load_state_dict(state)
    seq = []
    for _ in range(12):
        opt2.step()
        sched2.step()
        seq.append(sched2.get_last_lr())
    np.testing.assert_allclose(np.array(seq), np.array(full[9:]), rtol=1e-12)


def test_scheduler_warns_when_stepped_before_the_optimizer():
    opt = optim.SGD([labkit.zeros(1, requires_grad=True)], lr=1.0)
    sched = optim.lr_scheduler.StepLR(opt, 1)
    with pytest.warns(UserWarning, match="before optimizer.step"):
        sched.step()
    opt2 = optim.SGD([labkit.zeros(1, requires_grad=True)], lr=1.0)
    sched2 = optim.lr_scheduler.StepLR(opt2, 1)
    opt2.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched2.step()
    with pytest.raises(TypeError, match="not an Optimizer"):
        optim.lr_scheduler.StepLR("sgd", 1)
    with pytest.raises(KeyError, match="initial_lr"):
        optim.lr_scheduler.StepLR(optim.SGD([labkit.zeros(1, requires_grad=True)]), 1,
                                  last_epoch=3)


def test_training_a_model_with_each_optimizer_lowers_the_loss():
    x = labkit.randn(32, 3)
    y = (x ** 2).sum(1, keepdim=True)
    for make in (lambda p: optim.SGD(p, lr=0.05, momentum=0.9), lambda p: optim.Adam(p, 0.02),
                 lambda p: optim.AdamW(p, 0.02), lambda p: optim.RMSprop(p, 0.005),
                 lambda p: optim.Adagrad(p, 0.1)):
        labkit.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
        opt = make(model.parameters())
        losses = []
        for _ in range(60):
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert losses[-1] < 0.5 * losses[0] and math.isfinite(losses[-1])
