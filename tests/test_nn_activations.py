"""The activations of torch.nn.functional and their modules against torch (float64): values,
gradients, second derivatives, extreme inputs (no overflow), and torch's errors."""
import numpy as np
import pytest

import labkit
import labkit.nn.functional as F
from labkit import nn
from nn_oracle import check_fn, data, run_pair, twin_layers

torch = pytest.importorskip("torch")
TF = torch.nn.functional

KINKS = {"hardtanh": (-1, 1), "relu6": (0, 6), "hardsigmoid": (-3, 3), "hardswish": (-3, 3),
         "elu": (0,), "selu": (0,), "celu": (0,)}


def away(x, points):
    for p in points:
        x = np.where(np.abs(x - p) < 0.1, p + 0.2, x)
    return x


FUNCTIONS = {   # name: (labkit call, torch call)
    "softplus": (lambda F, x: F.softplus(x), None),
    "softplus_beta": (lambda F, x: F.softplus(x, beta=2.0, threshold=3.0), None),
    "logsigmoid": (lambda F, x: F.logsigmoid(x), None),
    "elu": (lambda F, x: F.elu(x), None),
    "elu_alpha": (lambda F, x: F.elu(x, alpha=0.5), None),
    "selu": (lambda F, x: F.selu(x), None),
    "celu": (lambda F, x: F.celu(x, alpha=2.0), None),
    "silu": (lambda F, x: F.silu(x), None),
    "mish": (lambda F, x: F.mish(x), None),
    "hardtanh": (lambda F, x: F.hardtanh(x), None),
    "hardtanh_range": (lambda F, x: F.hardtanh(x, -2.0, 0.5), None),
    "relu6": (lambda F, x: F.relu6(x), None),
    "hardsigmoid": (lambda F, x: F.hardsigmoid(x), None),
    "hardswish": (lambda F, x: F.hardswish(x), None),
    "softsign": (lambda F, x: F.softsign(x), None),
    "tanhshrink": (lambda F, x: F.tanhshrink(x), None),
    "softmin": (lambda F, x: F.softmin(x, dim=1), None),
    "glu": (lambda F, x: F.glu(x, dim=-1), None),
    "gelu_tanh": (lambda F, x: F.gelu(x, approximate="tanh"), None),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_functional(device, name):
    f = FUNCTIONS[name][0]
    x = away(data((3, 4), low=-8, high=8), KINKS.get(name.split("_")[0], ()))
    x[0, :2] = [0.3, -0.05] if name.startswith(("hardtanh", "relu6", "elu", "selu", "celu")) \
        else [0.0, 7.9]
    # torch's hardsigmoid backward multiplies by 1/6 rounded to float32 even in float64, and
    # has no second derivative
    hs = name == "hardsigmoid"
    check_fn(lambda t: f(F, t), lambda t: f(TF, t), [x], device, rtol=1e-7 if hs else 1e-9,
             double=not hs)


@pytest.mark.parametrize("name", ["softplus", "logsigmoid", "elu", "selu", "mish", "silu",
                                  "softsign"])
def test_extreme_inputs_stay_finite(device, name):
    x = np.array([-1000.0, -50.0, -1e-3, 0.0, 1e-3, 50.0, 1000.0])
    check_fn(lambda t: getattr(F, name)(t), lambda t: getattr(TF, name)(t), [x], device,
             double=False)


def test_float32_stays_float32():
    for name in ("softplus", "logsigmoid", "elu", "hardtanh", "silu", "mish"):
        assert getattr(F, name)(labkit.randn(3)).dtype == labkit.float32, name


@pytest.mark.parametrize("make", [
    lambda m: m.Softplus(), lambda m: m.Softplus(beta=0.5, threshold=5), lambda m: m.ELU(),
    lambda m: m.ELU(alpha=0.3), lambda m: m.SELU(), lambda m: m.CELU(1.5), lambda m: m.SiLU(),
    lambda m: m.Mish(), lambda m: m.Hardtanh(), lambda m: m.Hardtanh(-0.5, 2.0),
    lambda m: m.ReLU6(), lambda m: m.Hardswish(),
    lambda m: m.LogSigmoid(), lambda m: m.Softsign(), lambda m: m.Tanhshrink(),
    lambda m: m.Softmax(dim=1), lambda m: m.LogSoftmax(dim=1), lambda m: m.Softmin(dim=-1),
    lambda m: m.GLU(), lambda m: m.GELU(approximate="tanh"), lambda m: m.Identity(3, k=4),
    lambda m: m.PReLU(), lambda m: m.PReLU(4, init=0.1), lambda m: m.Unflatten(-1, (3, 2)),
])
def test_modules(device, make):
    mine, ref = twin_layers(make(nn), make(torch.nn), device)
    run_pair(mine, ref, away(data((3, 4, 6), low=-7, high=7), (-3, -1, -0.5, 0, 1, 2, 3, 6)),
             device)
    assert repr(mine) == repr(ref)


@pytest.mark.parametrize("call", [
    lambda F, t: F.hardtanh(t(3), 1.0, -1.0),
    lambda F, t: F.glu(t(3, 5)),
])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as ref:
        call(TF, lambda *s: torch.ones(*s, dtype=torch.float64))
    with pytest.raises(type(ref.value)):
        call(F, lambda *s: labkit.ones(*s, dtype=labkit.float64))


def test_inplace_activations_change_their_input_as_torch():
    # (more forms, with gradients: tests/test_torch_semantics_signatures.py)
    x = labkit.tensor([-1.0, 0.5, 2.0])
    assert F.elu(x, inplace=True) is x
    np.testing.assert_allclose(x.numpy(), TF.elu(torch.tensor([-1.0, 0.5, 2.0])).numpy())


def test_prelu_second_order(device):
    x = away(data((3, 4, 2)), (0,))
    check_fn(lambda x, w: F.prelu(x, w), lambda x, w: TF.prelu(x, w), [x, data((4,), seed=2)],
             device)


def test_prelu_channel_mismatch_matches_torch():
    with pytest.raises(RuntimeError):
        TF.prelu(torch.ones(2, 3), torch.ones(4))
    with pytest.raises(RuntimeError, match="channel size"):
        F.prelu(labkit.ones(2, 3), labkit.ones(4))
