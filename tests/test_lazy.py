"""Lazy modules against torch: the same class after the first forward, the same parameter
shapes and state_dict keys, the same outputs with torch's weights, and torch's errors."""
import numpy as np
import pytest

import labkit as lk
import labkit.nn as nn
from conftest import assert_close, to_numpy

torch = pytest.importorskip("torch")

# (lazy class name, constructor kwargs, input shape)
CASES = [
    ("LazyLinear", dict(out_features=4), (2, 5)),
    ("LazyLinear", dict(out_features=3, bias=False), (2, 6, 7)),
    ("LazyLinear", dict(out_features=1), (7,)),
    ("LazyConv1d", dict(out_channels=4, kernel_size=3), (2, 3, 9)),
    ("LazyConv1d", dict(out_channels=4, kernel_size=3, groups=2, bias=False), (2, 6, 9)),
    ("LazyConv1d", dict(out_channels=2, kernel_size=2), (3, 8)),          # unbatched
    ("LazyConv2d", dict(out_channels=8, kernel_size=3, padding=1), (2, 3, 6, 6)),
    ("LazyConv2d", dict(out_channels=4, kernel_size=(1, 3), stride=2, groups=2), (1, 4, 5, 7)),
    ("LazyConvTranspose2d", dict(out_channels=6, kernel_size=3, stride=2), (1, 2, 4, 4)),
    ("LazyConvTranspose2d", dict(out_channels=4, kernel_size=2, groups=2, bias=False),
     (2, 4, 3, 3)),
    ("LazyBatchNorm1d", dict(), (4, 3)),
    ("LazyBatchNorm1d", dict(affine=False), (4, 3, 5)),
    ("LazyBatchNorm1d", dict(track_running_stats=False), (4, 3)),
    ("LazyBatchNorm2d", dict(momentum=None), (2, 5, 3, 3)),
]
IDS = [f"{n}-{i}" for i, (n, _, _) in enumerate(CASES)]


def _pair(name, kwargs):
    return getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)


def _dt(d):
    return str(d).split(".")[-1]


def _weights(tm):
    return {k: v.detach().numpy().copy() for k, v in tm.state_dict().items()}


@pytest.mark.parametrize("name,kwargs,shape", CASES, ids=IDS)
def test_before_first_forward_like_torch(name, kwargs, shape):
    m, tm = _pair(name, kwargs)
    assert repr(m) == repr(tm)
    assert m.has_uninitialized_params() and tm.has_uninitialized_params()
    assert list(m.state_dict()) == list(tm.state_dict())
    assert ([type(v).__name__ for v in m.state_dict().values()]
            == [type(v).__name__ for v in tm.state_dict().values()])
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in tm.named_parameters()]
    for p, tp in zip(m.parameters(), tm.parameters()):
        assert type(p).__name__ == type(tp).__name__ and repr(p) == repr(tp)
        assert _dt(p.dtype) == _dt(tp.dtype) and p.requires_grad == tp.requires_grad


@pytest.mark.parametrize("name,kwargs,shape", CASES, ids=IDS)
def test_first_forward_becomes_the_ordinary_class(name, kwargs, shape):
    m, tm = _pair(name, kwargs)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    y, ty = m(lk.tensor(x)), tm(torch.tensor(x))
    assert type(m).__name__ == type(tm).__name__ == name[len("Lazy"):]
    assert isinstance(m, getattr(nn, name[len("Lazy"):]))
    assert repr(m) == repr(tm)
    assert tuple(y.shape) == tuple(ty.shape)
    sd, tsd = m.state_dict(), tm.state_dict()
    assert list(sd) == list(tsd)
    for k in sd:
        assert type(sd[k]) is lk.Tensor and tuple(sd[k].shape) == tuple(tsd[k].shape), k
        assert _dt(sd[k].dtype) == _dt(tsd[k].dtype), k
    for p in m.parameters():
        assert type(p) is nn.Parameter and p.requires_grad
    # initialised as the ordinary layer: same bounds (uniform +-1/sqrt(fan_in)) or ones/zeros
    for (k, v), tv in zip(sd.items(), tsd.values()):
        if "running" in k or k == "num_batches_tracked" or name.startswith("LazyBatch"):
            assert_close(to_numpy(v), tv.numpy(), rtol=1e-5, atol=1e-7, what=k)  # ones/zeros, stats
        else:
            assert float(v.abs().max()) <= _bound(tm) + 1e-6 and (v.numel() < 2 or float(v.std()) > 0), k


def _bound(tm):
    """torch's init bound for weight and bias: 1 / sqrt(fan_in)."""
    w = tm.weight
    return 1 / np.sqrt(w.shape[1] * int(np.prod(w.shape[2:])))


@pytest.mark.parametrize("name,kwargs,shape", CASES, ids=IDS)
def test_torch_weights_give_torch_outputs_and_grads(name, kwargs, shape):
    m, tm = _pair(name, kwargs)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    tm(torch.tensor(x))                                   # materialize torch's (random) weights
    sd = {k: lk.tensor(v) for k, v in _weights(tm).items()}
    if name.startswith("LazyBatch") and kwargs.get("track_running_stats", True):
        sd["num_batches_tracked"] = lk.tensor(0)
        tm.num_batches_tracked.zero_()
        tm.running_mean.zero_(), tm.running_var.fill_(1)
        sd["running_mean"], sd["running_var"] = lk.zeros(shape[1]), lk.ones(shape[1])
    m.load_state_dict(sd)                                 # materializes from the shapes
    assert type(m).__name__ == name and not m.has_uninitialized_params()   # class: on forward
    xl, xt = lk.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = m(xl), tm(xt)
    assert type(m).__name__ == name[len("Lazy"):]
    assert_close(to_numpy(y), ty.detach().numpy(), rtol=1e-5, atol=1e-5)
    g = np.random.default_rng(2).standard_normal(tuple(ty.shape)).astype(np.float32)
    y.backward(lk.tensor(g)), ty.backward(torch.tensor(g))
    assert_close(to_numpy(xl.grad), xt.grad.numpy(), rtol=1e-4, atol=1e-5)
    for (n, p), tp in zip(m.named_parameters(), tm.parameters()):
        assert_close(to_numpy(p.grad), tp.grad.numpy(), rtol=1e-4, atol=1e-5, what=n)
    for k, v in m.state_dict().items():
        assert_close(to_numpy(v), tm.state_dict()[k].numpy(), rtol=1e-5, atol=1e-6, what=k)


def test_nested_load_state_dict_materializes_each_lazy_child():
    tm = torch.nn.Sequential(torch.nn.LazyConv2d(4, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                             torch.nn.LazyLinear(2))
    x = np.random.default_rng(3).standard_normal((2, 3, 5, 5)).astype(np.float32)
    ty = tm(torch.tensor(x))
    m = nn.Sequential(nn.LazyConv2d(4, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(2))
    m.load_state_dict({k: lk.tensor(v) for k, v in _weights(tm).items()})
    assert_close(to_numpy(m(lk.tensor(x))), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert [type(c).__name__ for c in m] == [type(c).__name__ for c in tm]


def test_optimizer_built_before_the_first_forward_trains_like_torch():
    """torch allows it: the parameters are the same objects once materialized."""
    x = np.random.default_rng(4).standard_normal((8, 3)).astype(np.float32)
    tm = torch.nn.LazyLinear(2)
    topt = torch.optim.SGD(tm.parameters(), lr=0.1)
    m = nn.LazyLinear(2)
    opt = lk.optim.SGD(m.parameters(), lr=0.1)
    topt.step(), opt.step()                              # no grads yet: skipped, as in torch
    tm(torch.tensor(x))
    m.load_state_dict({k: lk.tensor(v) for k, v in _weights(tm).items()})
    for _ in range(3):
        topt.zero_grad(), opt.zero_grad()
        tm(torch.tensor(x)).pow(2).sum().backward()
        m(lk.tensor(x)).pow(2).sum().backward()
        topt.step(), opt.step()
    for p, tp in zip(m.parameters(), tm.parameters()):
        assert_close(to_numpy(p), tp.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_initialize_parameters_directly_keeps_the_lazy_class_until_forward():
    m, tm = nn.LazyLinear(3), torch.nn.LazyLinear(3)
    m.initialize_parameters(lk.randn(2, 7)), tm.initialize_parameters(torch.randn(2, 7))
    assert type(m).__name__ == type(tm).__name__ == "LazyLinear"
    assert tuple(m.weight.shape) == tuple(tm.weight.shape) == (3, 7)
    assert not m.has_uninitialized_params()
    m(lk.randn(2, 7))
    assert type(m) is nn.Linear


def test_to_before_the_first_forward_changes_the_dtype_like_torch():
    m, tm = nn.LazyLinear(3).double(), torch.nn.LazyLinear(3).double()
    assert _dt(m.weight.dtype) == _dt(tm.weight.dtype) == "float64"
    m(lk.randn(2, 2, dtype=lk.float64))
    assert m.weight.dtype == lk.float64
    m2, tm2 = nn.LazyBatchNorm2d(dtype=lk.float64), torch.nn.LazyBatchNorm2d(dtype=torch.float64)
    m2(lk.randn(2, 3, 2, 2, dtype=lk.float64)), tm2(torch.randn(2, 3, 2, 2, dtype=torch.float64))
    for k, v in m2.state_dict().items():
        assert _dt(v.dtype) == _dt(tm2.state_dict()[k].dtype), k


def test_errors_like_torch():
    m, tm = nn.LazyLinear(4), torch.nn.LazyLinear(4)
    with pytest.raises(RuntimeError, match="uninitialized parameter") as e:
        m.weight.shape
    with pytest.raises(RuntimeError) as te:
        tm.weight.shape
    assert str(e.value) == str(te.value)
    with pytest.raises(ValueError, match="uninitialized parameter"):
        m.weight + 1
    with pytest.raises(ValueError):
        tm.weight + 1
    with pytest.raises(ValueError, match="uninitialized"):
        m.weight.numel()
    # an uninitialized state_dict cannot be loaded into an initialized module
    with pytest.raises(RuntimeError, match="shape of an uninitialized"):
        nn.Linear(3, 4).load_state_dict(nn.LazyLinear(4).state_dict())
    with pytest.raises(RuntimeError, match="shape of an uninitialized"):
        torch.nn.Linear(3, 4).load_state_dict(torch.nn.LazyLinear(4).state_dict())
    # a lazy module takes the checkpoint's shapes as they are (torch checks nothing more)
    sd = {"weight": lk.zeros(4, 2, 3, 3), "bias": lk.zeros(5)}
    m, tm = nn.LazyConv2d(4, 3), torch.nn.LazyConv2d(4, 3)
    m.load_state_dict(sd), tm.load_state_dict({k: torch.tensor(v.numpy()) for k, v in sd.items()})
    assert [tuple(p.shape) for p in m.parameters()] == [tuple(p.shape) for p in tm.parameters()]
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(lk.randn(1, 3, 5, 5))


def test_module_paths_like_torch():
    assert nn.parameter.UninitializedParameter is nn.UninitializedParameter
    assert issubclass(nn.UninitializedParameter, nn.Parameter)
    assert issubclass(nn.LazyLinear, nn.LazyModuleMixin) and issubclass(nn.LazyLinear, nn.Linear)


def test_lazy_modules_on_each_device(device):
    x = np.random.default_rng(5).standard_normal((2, 3, 4, 4)).astype(np.float32)
    m = nn.Sequential(nn.LazyConv2d(4, 3, device=device), nn.LazyBatchNorm2d(device=device),
                      nn.Flatten(), nn.LazyLinear(2, device=device))
    y = m(lk.tensor(x, device=device))
    assert str(y.device) == str(lk.device(device))
    assert all(str(t.device) == str(y.device) for t in m.state_dict().values())
    m2 = nn.LazyLinear(2).to(device)                   # moved while still uninitialized
    m2(lk.randn(3, 5, device=device))
    assert str(m2.weight.device) == str(y.device)


def test_adagrad_refuses_uninitialized_parameters_like_torch():
    """Adagrad makes its state when built, so it needs the shapes: torch raises ValueError."""
    with pytest.raises(ValueError):
        torch.optim.Adagrad(torch.nn.LazyLinear(2).parameters())
    with pytest.raises(ValueError, match="dummy batch"):
        lk.optim.Adagrad(nn.LazyLinear(2).parameters())
    m = nn.LazyLinear(2)
    m(lk.randn(1, 3))                                  # the dry run
    lk.optim.Adagrad(m.parameters())
