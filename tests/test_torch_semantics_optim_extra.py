"""Rprop, ASGD and the schedulers ConstantLR, MultiplicativeLR, PolynomialLR, CyclicLR,
ChainedScheduler against torch: parameters and optimizer state after several steps (two param
groups, maximize, weight decay), lr (and momentum) sequences step for step, state_dict round
trips, and torch's errors."""
import warnings

import numpy as np
import pytest

import labkit
from conftest import rand_array

torch = pytest.importorskip("torch")


def _run(lib, name, kw, steps=10):
    w0, b0 = rand_array((5,), 1), rand_array((2, 3), 2)
    w = lib.tensor(w0, requires_grad=True)
    b = lib.tensor(b0, requires_grad=True)
    opt = getattr(lib.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.03}], **kw)
    for i in range(steps):
        opt.zero_grad()
        noise = lib.tensor(np.sin(np.arange(5.0) * (i + 1)))
        loss = ((w - 1) ** 4).sum() + (w * noise).sum() + (b ** 2).sum() * (1 + i % 3)
        loss.backward()
        opt.step()
    return opt, (w, b)


@pytest.mark.parametrize("name, kw", [
    ("Rprop", {}), ("Rprop", {"lr": 0.1, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2), "maximize": True}),
    ("ASGD", {}), ("ASGD", {"lr": 0.05, "t0": 3, "weight_decay": 0.1, "lambd": 0.01, "alpha": 0.5}),
    ("ASGD", {"maximize": True}),
])
def test_optimizers_match_torch(name, kw):
    mine, ours = _run(labkit, name, kw)
    ref, theirs = _run(torch, name, kw)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-12, atol=1e-14)
        assert sorted(mine.state[p]) == sorted(ref.state[q])
        for key in ref.state[q]:
            a, b = mine.state[p][key], ref.state[q][key]
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], key
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14, err_msg=key)
    # a state_dict round trip continues identically
    sd = mine.state_dict()
    again, params = _run(labkit, name, kw, steps=0)
    again.load_state_dict(sd)
    assert again.state_dict()["param_groups"] == sd["param_groups"]


@pytest.mark.parametrize("name, kw, exc", [
    ("Rprop", {"lr": -1.0}, ValueError), ("Rprop", {"etas": (1.2, 0.5)}, ValueError),
    ("ASGD", {"lr": -1.0}, ValueError), ("ASGD", {"weight_decay": -1.0}, ValueError),
])
def test_optimizer_errors(name, kw, exc):
    for lib in (torch, labkit):
        with pytest.raises(exc):
            getattr(lib.optim, name)([lib.zeros(1, requires_grad=True)], **kw)


def _lrs(lib, make, steps=25, opt_name="SGD", opt_kw=None):
    opt_kw = opt_kw if opt_kw is not None else {"lr": 0.1, "momentum": 0.9}
    w = lib.zeros(2, requires_grad=True)
    opt = getattr(lib.optim, opt_name)([{"params": [w]}, {"params": [lib.zeros(1, requires_grad=True)], "lr": 0.5}], **opt_kw)
    sched = make(lib, opt)
    seq = []
    for _ in range(steps):
        opt.step()
        sched.step()
        seq.append([(g["lr"], g.get("momentum"), g.get("betas")) for g in opt.param_groups]
                   + [tuple(sched.get_last_lr())])
    return seq, sched


SCHEDULES = [
    lambda L, o: L.optim.lr_scheduler.ConstantLR(o),
    lambda L, o: L.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=3),
    lambda L, o: L.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.9),
    lambda L, o: L.optim.lr_scheduler.MultiplicativeLR(o, [lambda e: 0.9, lambda e: 1.0 - 0.01 * e]),
    lambda L, o: L.optim.lr_scheduler.PolynomialLR(o),
    lambda L, o: L.optim.lr_scheduler.PolynomialLR(o, total_iters=12, power=2.0),
    lambda L, o: L.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=4),
    lambda L, o: L.optim.lr_scheduler.CyclicLR(o, [0.01, 0.02], 0.2, step_size_up=3, step_size_down=5, mode="triangular2"),
    lambda L, o: L.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.9, cycle_momentum=False),
    lambda L, o: L.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=3, scale_fn=lambda x: 0.5 ** x, scale_mode="iterations"),
    lambda L, o: L.optim.lr_scheduler.ChainedScheduler([L.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4),
                                                        L.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)]),
]


@pytest.mark.parametrize("make", SCHEDULES)
def test_schedules_match_torch(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine, _ = _lrs(labkit, make)
        ref, _ = _lrs(torch, make)
    np.testing.assert_allclose(np.array([[x for x in row if isinstance(x, float)] for row in [
        [v for g in r for v in (g if isinstance(g, tuple) else (g,)) if v is not None] for r in mine]]),
        np.array([[x for x in row if isinstance(x, float)] for row in [
            [v for g in r for v in (g if isinstance(g, tuple) else (g,)) if v is not None] for r in ref]]),
        rtol=1e-12)


def test_cyclic_lr_cycles_adam_betas():
    make = lambda L, o: L.optim.lr_scheduler.CyclicLR(o, 0.001, 0.01, step_size_up=2)  # noqa: E731
    mine, _ = _lrs(labkit, make, 9, "Adam", {"lr": 0.1})
    ref, _ = _lrs(torch, make, 9, "Adam", {"lr": 0.1})
    for a, b in zip(mine, ref):
        assert a[0][0] == pytest.approx(b[0][0]) and a[0][2][0] == pytest.approx(b[0][2][0])


@pytest.mark.parametrize("make", [SCHEDULES[2], SCHEDULES[5], SCHEDULES[7], SCHEDULES[10]])
def test_schedule_state_dict_resumes(make):
    seq, sched = _lrs(labkit, make, 7)
    sd = sched.state_dict()
    w = labkit.zeros(2, requires_grad=True)
    opt = labkit.optim.SGD([{"params": [w]}, {"params": [labkit.zeros(1, requires_grad=True)], "lr": 0.5}], lr=0.1, momentum=0.9)
    fresh = make(labkit, opt)
    fresh.load_state_dict(sd)
    assert _plain(fresh.state_dict()) == _plain(sd)
    assert _plain(sd) != _plain(make(labkit, opt).state_dict())   # it did change something


def _plain(state):
    """A state_dict without the (unsaved) functions it may refer to."""
    if isinstance(state, dict):
        return {k: _plain(v) for k, v in state.items() if not callable(v)}
    if isinstance(state, list):
        return [_plain(v) for v in state]
    return state


def test_schedule_errors():
    for lib in (torch, labkit):
        S = lib.optim.lr_scheduler
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        with pytest.raises(ValueError):
            S.ConstantLR(opt, factor=1.5)
        with pytest.raises(TypeError):
            S.MultiplicativeLR(opt, 0.9)
        with pytest.raises(ValueError):
            S.MultiplicativeLR(opt, [lambda e: 1.0, lambda e: 1.0])
        with pytest.raises(ValueError):
            S.CyclicLR(opt, 0.01, 0.1, mode="sawtooth")
        with pytest.raises(ValueError):
            S.CyclicLR(lib.optim.Adagrad([lib.zeros(1, requires_grad=True)]), 0.01, 0.1)
        with pytest.raises(ValueError):
            S.ChainedScheduler([])
        other = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        with pytest.raises(ValueError):
            S.ChainedScheduler([S.ConstantLR(opt), S.ConstantLR(other)])
        with pytest.raises(ValueError):
            S.ChainedScheduler([S.ReduceLROnPlateau(opt)])
