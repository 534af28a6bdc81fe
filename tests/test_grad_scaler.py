"""GradScaler against torch.amp.GradScaler('cpu'): the same scale sequence, skipped steps and
unscaled gradients on the same gradients (inf and nan included); misuse errors as torch's."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

GRADS = [[1.0, 2.0], [np.inf, 1.0], [0.5, 0.5], [1.0, np.nan], [3.0, 1.0], [1.0, 1.0],
         [1.0, 1.0], [1.0, 1.0], [-np.inf, 0.0], [2.0, 2.0], [1e-3, 1.0], [4.0, 4.0]]


def _train(m, scaler_kwargs, grads):
    p = m.nn.Parameter(m.tensor([1.0, -1.0]))
    opt = m.optim.SGD([p], lr=0.1)
    scaler = m.amp.GradScaler("cpu", **scaler_kwargs)
    seen = []
    for g in grads:
        opt.zero_grad()
        loss = (p * m.tensor(np.asarray(g, np.float32))).sum()
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        unscaled = p.grad.detach().clone().numpy()
        scaler.step(opt)
        scaler.update()
        seen.append((scaler.get_scale(), p.detach().clone().numpy(), unscaled,
                     scaler.state_dict()["_growth_tracker"]))
    return seen


@pytest.mark.parametrize("kwargs", [
    {"init_scale": 2.0 ** 16, "growth_interval": 3},
    {"init_scale": 1000.0, "growth_factor": 3.0, "backoff_factor": 0.3, "growth_interval": 2},
    {"init_scale": 3.0e38, "growth_interval": 1},        # growth that would overflow: kept
])
def test_scale_sequence_and_skipped_steps_as_torch(kwargs):
    mine, ref = _train(labkit, kwargs, GRADS), _train(torch, kwargs, GRADS)
    for i, ((s, p, g, t), (s_t, p_t, g_t, t_t)) in enumerate(zip(mine, ref)):
        assert s == s_t and t == t_t, f"step {i}: scale {s} vs torch {s_t}"
        np.testing.assert_array_equal(g, g_t)              # unscaled: bit-equal, inf/nan too
        # skipped steps leave p as torch's; SGD's own rounding may differ in the last bit
        np.testing.assert_allclose(p, p_t, rtol=1e-6)


def test_state_dict_round_trip_and_disabled():
    s = labkit.amp.GradScaler("cpu", init_scale=8.0, growth_interval=5)
    sd = s.state_dict()
    t = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=5)
    assert sd == t.state_dict()
    s2 = labkit.amp.GradScaler("cpu")
    s2.load_state_dict(sd)
    assert s2.get_scale() == 8.0 and s2.get_growth_interval() == 5
    off = labkit.amp.GradScaler("cpu", enabled=False)
    assert off.state_dict() == {} and off.get_scale() == 1.0
    x = labkit.ones(1)
    assert off.scale(x) is x
    with pytest.raises(RuntimeError, match="state dict is empty"):
        s2.load_state_dict({})


def test_scale_keeps_the_loss_dtype_as_torch():
    s, t = labkit.amp.GradScaler("cpu"), torch.amp.GradScaler("cpu")
    for dt in ("float16", "bfloat16", "float32"):
        a = s.scale(labkit.ones(2, dtype=getattr(labkit, dt)))
        b = t.scale(torch.ones(2, dtype=getattr(torch, dt)))
        assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1]
    assert [x.item() for x in s.scale([labkit.ones(()), labkit.ones(())])] == [65536.0] * 2


def _misuse(m):
    p = m.nn.Parameter(m.ones(2))
    opt = m.optim.SGD([p], lr=0.1)
    return p, opt, m.amp.GradScaler("cpu")


@pytest.mark.parametrize("m", ["labkit", "torch"])
def test_misuse_errors_as_torch(m):
    mod = labkit if m == "labkit" else torch
    p, opt, s = _misuse(mod)
    s.scale(p.sum()).backward()
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        s.unscale_(opt)
    s.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        s.step(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
        s.unscale_(opt)
    s.update()
    with pytest.raises(RuntimeError, match="Closure"):
        s.step(opt, closure=lambda: None)


@pytest.mark.parametrize("m", ["labkit", "torch"])
def test_float16_parameters_without_master_copy_are_refused(m):
    mod = labkit if m == "labkit" else torch
    p = mod.nn.Parameter(mod.ones(2, dtype=mod.float16))
    opt = mod.optim.SGD([p], lr=0.1)
    s = mod.amp.GradScaler("cpu")
    s.scale(p.float().sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        s.step(opt)


def test_update_before_any_step_is_an_error():
    s = labkit.amp.GradScaler("cpu")
    s.scale(labkit.ones(()))
    with pytest.raises(RuntimeError, match="No inf checks"):
        s.update()


def _tiny_grads(m, scale):
    """d(loss)/dw = 1e-5 * 1e-3 = 1e-8 per element, computed in float16 (below its smallest
    subnormal, 6e-8), then unscaled in float32."""
    w = m.nn.Parameter(m.ones(3))
    c = m.full((3,), 1e-3)
    loss = (w.half() * c.half()).float().sum() * 1e-5
    opt = m.optim.SGD([w], lr=1.0)
    s = m.amp.GradScaler("cpu", init_scale=scale, enabled=scale != 1.0)
    s.scale(loss).backward()
    s.unscale_(opt)
    return w.grad.numpy()


def test_loss_scaling_rescues_float16_gradients_as_torch():
    assert not _tiny_grads(labkit, 1.0).any() and not _tiny_grads(torch, 1.0).any()
    mine, ref = _tiny_grads(labkit, 2.0 ** 16), _tiny_grads(torch, 2.0 ** 16)
    np.testing.assert_array_equal(mine, ref)
    np.testing.assert_allclose(mine, 1e-8, rtol=2e-3)
