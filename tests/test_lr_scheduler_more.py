"""MultiStepLR, LinearLR, SequentialLR, OneCycleLR, CosineAnnealingWarmRestarts and
ReduceLROnPlateau against torch: the lr (and momentum/betas where a schedule moves them) of
every param group over 20+ steps must equal torch's."""
import math
import warnings

import pytest

import labkit

torch = pytest.importorskip("torch")


def _opt(lib, name="SGD", **kw):
    a = lib.zeros(2, requires_grad=True)
    b = lib.zeros(3, requires_grad=True)
    kw.setdefault("lr", 0.1)
    return getattr(lib.optim, name)([{"params": [a]}, {"params": [b], "lr": 0.5}], **kw)


def _run(make, steps=20, name="SGD", opt_kw=None, metrics=None):
    """make(lib, opt) -> scheduler; the per-step (lr, momentum) of each group, for each lib."""
    out = []
    for lib in (torch, labkit):
        opt = _opt(lib, name, **(opt_kw or {}))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sched = make(lib.optim.lr_scheduler, opt)
        seen = []
        for i in range(steps):
            seen.append([(g["lr"], g.get("momentum"), g.get("betas")) for g in opt.param_groups])
            opt.step()
            sched.step(*([metrics[i]] if metrics else []))
        seen.append([(g["lr"], g.get("momentum"), g.get("betas")) for g in opt.param_groups])
        assert sched.get_last_lr() == [g["lr"] for g in opt.param_groups]
        out.append(seen)
    ref, mine = out
    for step, (r, m) in enumerate(zip(ref, mine)):
        for (rl, rm, rb), (ml, mm, mb) in zip(r, m):
            assert ml == pytest.approx(rl, rel=1e-12, abs=1e-15), f"lr at step {step}"
            assert (mm is None) == (rm is None)
            if rm is not None:
                assert mm == pytest.approx(rm, rel=1e-12), f"momentum at step {step}"
            if rb is not None:
                assert tuple(mb) == pytest.approx(tuple(rb), rel=1e-12), f"betas at step {step}"
    return mine


@pytest.mark.parametrize("kw", [dict(milestones=[3, 7, 12]), dict(milestones=[5, 5, 9],
                                                                   gamma=0.5)])
def test_multistep(kw):
    _run(lambda s, o: s.MultiStepLR(o, **kw))


@pytest.mark.parametrize("kw", [dict(), dict(start_factor=0.1, end_factor=0.9, total_iters=8),
                                dict(start_factor=1.0, end_factor=0.0, total_iters=25)])
def test_linear(kw):
    _run(lambda s, o: s.LinearLR(o, **kw), steps=25)


@pytest.mark.parametrize("kw", [dict(T_0=5), dict(T_0=3, T_mult=2, eta_min=0.01)])
def test_cosine_warm_restarts(kw):
    _run(lambda s, o: s.CosineAnnealingWarmRestarts(o, **kw), steps=30)


def test_cosine_warm_restarts_fractional_epochs():
    for lib in (torch, labkit):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=2)
        lrs = []
        for epoch in range(10):
            for batch in range(3):
                opt.step()
                sched.step(epoch + batch / 3)
                lrs.append(opt.param_groups[1]["lr"])
        if lib is torch:
            ref = lrs
    assert lrs == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("kw", [
    dict(max_lr=1.0, total_steps=20),
    dict(max_lr=[0.5, 2.0], epochs=4, steps_per_epoch=5, anneal_strategy="linear"),
    dict(max_lr=1.0, total_steps=20, three_phase=True, pct_start=0.25, div_factor=10.0),
])
def test_one_cycle_sgd_momentum(kw):
    _run(lambda s, o: s.OneCycleLR(o, **kw), steps=19, opt_kw=dict(momentum=0.9))


def test_one_cycle_adam_betas_and_too_many_steps():
    _run(lambda s, o: s.OneCycleLR(o, max_lr=0.1, total_steps=20), steps=19, name="Adam")
    opt = _opt(labkit, momentum=0.9)
    sched = labkit.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
    with pytest.raises(ValueError, match="Tried to step 4 times"):
        for _ in range(4):
            opt.step()
            sched.step()
    with pytest.raises(ValueError, match="momentum"):
        labkit.optim.lr_scheduler.OneCycleLR(_opt(labkit, "Adagrad"), max_lr=1.0, total_steps=3)


@pytest.mark.parametrize("kw", [
    dict(),
    dict(mode="max", factor=0.5, patience=2, threshold=0.1, threshold_mode="abs", cooldown=2),
    dict(patience=1, min_lr=[0.05, 0.2], cooldown=1),
])
def test_reduce_on_plateau(kw):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.8, 0.81, 0.82, 0.83, 0.85, 0.86, 0.9, 0.7, 0.7,
               0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7]
    if kw.get("mode") == "max":
        metrics = [-m for m in metrics]
    _run(lambda s, o: s.ReduceLROnPlateau(o, **kw), steps=25, metrics=metrics)


@pytest.mark.parametrize("make", [
    lambda s, o: s.SequentialLR(o, [s.LinearLR(o, start_factor=0.1, total_iters=4),
                                    s.ExponentialLR(o, gamma=0.9)], milestones=[5]),
    lambda s, o: s.SequentialLR(o, [s.ConstantLR(o, factor=0.5, total_iters=3)
                                    if hasattr(s, "ConstantLR") and s is torch.optim.lr_scheduler
                                    else s.LinearLR(o, start_factor=0.5, end_factor=0.5,
                                                    total_iters=3),
                                    s.StepLR(o, step_size=4, gamma=0.5),
                                    s.CosineAnnealingLR(o, T_max=6, eta_min=0.01)],
                                milestones=[3, 11]),
    lambda s, o: s.SequentialLR(o, [s.LinearLR(o, start_factor=0.2, total_iters=5),
                                    s.MultiStepLR(o, milestones=[2, 6])], milestones=[4]),
], ids=["warmup-exponential", "three", "linear-multistep"])
def test_sequential(make):
    _run(make, steps=22)


def test_sequential_errors():
    opt, other = _opt(labkit), _opt(labkit)
    s = labkit.optim.lr_scheduler
    with pytest.raises(ValueError, match="one more"):
        s.SequentialLR(opt, [s.StepLR(opt, 2)], milestones=[3])
    with pytest.raises(ValueError, match="same optimizer"):
        s.SequentialLR(opt, [s.StepLR(opt, 2), s.StepLR(other, 2)], milestones=[3])
    with pytest.raises(ValueError, match="ReduceLROnPlateau"):
        s.SequentialLR(opt, [s.StepLR(opt, 2), s.ReduceLROnPlateau(opt)], milestones=[3])
    with pytest.raises(ValueError, match="Starting multiplicative factor"):
        s.LinearLR(opt, start_factor=0)
    with pytest.raises(ValueError, match="T_0"):
        s.CosineAnnealingWarmRestarts(opt, T_0=0)
    with pytest.raises(ValueError, match="Factor"):
        s.ReduceLROnPlateau(opt, factor=1.0)
    assert math.isinf(s.ReduceLROnPlateau(opt).best)
