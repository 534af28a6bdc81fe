"""Adadelta, Adamax, NAdam, RAdam, LBFGS, SGD(maximize=) and add_param_group against torch:
the same float64 model, data and hyperparameters; parameters compared after each of 20 steps,
and the optimizer's state (names and values) at the end."""
import numpy as np
import pytest

import labkit
from conftest import assert_close

torch = pytest.importorskip("torch")


def _models():
    def build(lib):
        return lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2)).double()
    torch.manual_seed(0)
    tm, lm = build(torch), build(labkit)
    lm.load_state_dict({k: labkit.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    return tm, lm


def _data(lib):
    rng = np.random.default_rng(0)
    return lib.tensor(rng.standard_normal((8, 3))), lib.tensor(rng.standard_normal((8, 2)))


def _closure(lib, model, opt):
    x, y = _data(lib)

    def closure():
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        return loss
    return closure


def _compare_state(lopt, topt):
    ls, ts = lopt.state_dict(), topt.state_dict()
    knobs = {"foreach", "capturable", "differentiable", "fused"}   # torch's kernel choices
    for lg, tg in zip(ls["param_groups"], ts["param_groups"]):
        assert sorted(set(lg) - knobs) == sorted(set(tg) - knobs)
        for k in lg:
            assert lg[k] == tg[k], k
    assert sorted(ls["state"]) == sorted(ts["state"])
    for i, tstate in ts["state"].items():
        assert sorted(ls["state"][i]) == sorted(tstate), f"state keys of parameter {i}"
        for k, v in tstate.items():
            mine = ls["state"][i][k]
            if isinstance(v, torch.Tensor):
                assert_close(mine, v, rtol=1e-6, what=k)
            elif isinstance(v, list):
                assert len(mine) == len(v)
            elif isinstance(v, float):
                assert mine == pytest.approx(v, rel=1e-6), k
            else:
                assert mine == v, k


def _trajectory(name, kwargs, steps=20, groups=None, rtol=1e-7):
    tm, lm = _models()
    if groups:
        tparams = [dict(g, params=list(tm[i].parameters())) for i, g in groups]
        lparams = [dict(g, params=list(lm[i].parameters())) for i, g in groups]
    else:
        tparams, lparams = tm.parameters(), lm.parameters()
    topt = getattr(torch.optim, name)(tparams, **kwargs)
    lopt = getattr(labkit.optim, name)(lparams, **kwargs)
    tclosure, lclosure = _closure(torch, tm, topt), _closure(labkit, lm, lopt)
    for step in range(steps):
        tloss = topt.step(tclosure)
        lloss = lopt.step(lclosure)
        assert float(lloss) == pytest.approx(float(tloss.detach()), rel=rtol), \
            f"loss at step {step}"
        for (n, lp), tp in zip(lm.named_parameters(), tm.parameters()):
            assert_close(lp.detach(), tp.detach(), rtol=rtol, atol=1e-12,
                         what=f"{n} after step {step + 1}")
    _compare_state(lopt, topt)
    return lopt, topt


CASES = [
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.05, maximize=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.9), weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.9, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01, maximize=True)),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_trajectory_matches_torch(name, kwargs):
    _trajectory(name, kwargs)


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "NAdam", "RAdam"])
def test_param_groups_with_their_own_hyperparameters(name):
    _trajectory(name, dict(lr=0.02), groups=[(0, dict(lr=0.05)), (2, dict())])


@pytest.mark.parametrize("kwargs", [
    dict(), dict(line_search_fn="strong_wolfe"), dict(lr=0.5, max_iter=5, history_size=3),
    dict(max_iter=4, history_size=2, line_search_fn="strong_wolfe"),
], ids=["plain", "strong_wolfe", "short_history", "wolfe_short_history"])
def test_lbfgs_matches_torch(kwargs):
    # each step runs up to 20 iterations on a non-convex net: the last-bit differences of the
    # dot products (BLAS vs numpy summation order) grow ~30x per step, from 1e-14 at step 1
    # to 1e-9 at step 5 (same iteration counts), so two steps are compared at rtol 1e-7
    lopt, topt = _trajectory("LBFGS", kwargs, steps=2)
    ls, ts = lopt.state[lopt._params[0]], topt.state[topt._params[0]]
    assert ls["func_evals"] == ts["func_evals"] and ls["n_iter"] == ts["n_iter"]


def test_lbfgs_minimises_rosenbrock_like_torch():
    def rosen(lib, xy):
        return (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2
    ends = []
    for lib in (torch, labkit):
        xy = lib.tensor([-1.5, 2.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([xy], lr=1, max_iter=100, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = rosen(lib, xy)
            loss.backward()
            return loss
        for _ in range(3):
            opt.step(closure)
        ends.append(xy.detach().numpy())
    assert_close(ends[1], ends[0], rtol=1e-6)
    assert np.allclose(ends[1], [1, 1], atol=1e-5)


def test_lbfgs_errors():
    w = labkit.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="parameter groups"):
        labkit.optim.LBFGS([{"params": [w]}, {"params": [labkit.zeros(1, requires_grad=True)]}])
    with pytest.raises(RuntimeError, match="closure"):
        labkit.optim.LBFGS([w]).step()


def test_add_param_group_after_construction():
    """A head added later (fine-tuning): its own lr, the defaults for the rest; trajectories
    and state match torch."""
    tm, lm = _models()
    topt = torch.optim.NAdam(tm[0].parameters(), lr=0.01)
    lopt = labkit.optim.NAdam(lm[0].parameters(), lr=0.01)
    tclosure, lclosure = _closure(torch, tm, topt), _closure(labkit, lm, lopt)
    for step in range(10):
        if step == 3:
            topt.add_param_group({"params": tm[2].parameters(), "lr": 0.05})
            lopt.add_param_group({"params": lm[2].parameters(), "lr": 0.05})
        topt.step(tclosure)
        lopt.step(lclosure)
    for lp, tp in zip(lm.parameters(), tm.parameters()):
        assert_close(lp.detach(), tp.detach())
    _compare_state(lopt, topt)
    with pytest.raises(ValueError, match="more than one parameter group"):
        lopt.add_param_group({"params": lm[2].weight})


def test_state_dict_roundtrip_continues_the_trajectory():
    tm, lm = _models()
    lopt = labkit.optim.RAdam(lm.parameters(), lr=0.01)
    closure = _closure(labkit, lm, lopt)
    for _ in range(3):
        lopt.step(closure)
    saved = lopt.state_dict()
    fresh = labkit.optim.RAdam(lm.parameters(), lr=0.01)
    fresh.load_state_dict(saved)
    assert float(fresh.state[next(lm.parameters())]["step"]) == 3.0


def test_hyperparameter_errors():
    p = [labkit.zeros(1, requires_grad=True)]
    for cls, kw in [("Adadelta", dict(rho=1.5)), ("Adamax", dict(betas=(1.0, 0.9))),
                    ("NAdam", dict(momentum_decay=-1)), ("RAdam", dict(lr=-1))]:
        with pytest.raises(ValueError):
            getattr(labkit.optim, cls)(p, **kw)
