"""The complex guard: an op torch refuses for complex tensors (complex numbers have no order)
raises torch's exception type in labkit too, naming the op and saying what to do; an op torch
computes but labkit has not verified for complex says so instead of computing numpy's answer
(numpy orders complex numbers lexicographically, and real-only gradients would be wrong)."""
import warnings

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

Z = np.array([1 + 2j, -1 - 0.5j, 0.3j])

# ops that torch refuses for complex input: (label, call)
REFUSED = {
    "lt": lambda m, x: x < 0,
    "ge": lambda m, x: x >= x,
    "max": lambda m, x: x.max(),
    "max_dim": lambda m, x: x.max(0),
    "min_dim": lambda m, x: x.min(0),
    "amax": lambda m, x: m.amax(x, 0),
    "argmax": lambda m, x: x.argmax(),
    "sort": lambda m, x: x.sort(),
    "argsort": lambda m, x: x.argsort(),
    "topk": lambda m, x: x.topk(1),
    "median": lambda m, x: x.median(),
    "cummax": lambda m, x: x.cummax(0),
    "maximum": lambda m, x: m.maximum(x, x),
    "clamp": lambda m, x: x.clamp(0, 1),
    "relu": lambda m, x: m.relu(x),
    "leaky_relu": lambda m, x: m.nn.functional.leaky_relu(x),
    "gelu": lambda m, x: m.nn.functional.gelu(x),
    "softmax": lambda m, x: m.softmax(x, 0),
    "floor": lambda m, x: x.floor(),
    "round": lambda m, x: x.round(),
    "sign": lambda m, x: x.sign(),
    "remainder": lambda m, x: x % 2,
    "floor_divide": lambda m, x: x // 2,
    "erf": lambda m, x: m.erf(x),
    "atan2": lambda m, x: m.atan2(x, x),
    "unique": lambda m, x: m.unique(x),
    "nansum": lambda m, x: x.nansum(),
    "deg2rad": lambda m, x: m.deg2rad(x),
    "isin": lambda m, x: m.isin(x, x),
    "searchsorted": lambda m, x: m.searchsorted(x, x),
    "abs_": lambda m, x: x.clone().abs_(),
    "cdist": lambda m, x: m.cdist(x[None, :, None], x[None, :, None]),
    "mse_loss": lambda m, x: m.nn.functional.mse_loss(x, x * 0.5),
    "cosine_similarity": lambda m, x: m.nn.functional.cosine_similarity(x, x, dim=0),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_as_torch(name, device):
    f = REFUSED[name]
    with pytest.raises(Exception) as t_err:
        f(torch, torch.tensor(Z))
    with pytest.raises(Exception) as err:
        f(labkit, labkit.tensor(Z, device=device))
    assert type(err.value) is type(t_err.value), (t_err.value, err.value)
    msg = str(err.value)
    assert "complex" in msg.lower() or "Complex" in msg, msg
    assert len(msg) > 60, f"the error should say what to do: {msg}"


def test_refusal_names_the_op_and_the_way_out():
    with pytest.raises(NotImplementedError) as err:
        labkit.tensor(Z).clamp(0, 1)
    msg = str(err.value)
    assert msg.startswith("clamp"), msg
    assert "ComplexDouble" in msg and "(3,)" in msg
    assert "z.abs()" in msg and "z.real" in msg


# ops torch computes for complex tensors and labkit has not verified yet: refused, honestly
NOT_YET = {
    "prod": lambda m, x: x.prod(),
    "cumprod": lambda m, x: x.cumprod(0),
    "lerp": lambda m, x: m.lerp(x, x * 2, 0.5),
    "silu": lambda m, x: m.nn.functional.silu(x),
    "cov": lambda m, x: m.cov(x),
    "det": lambda m, x: m.linalg.det(m.outer(x, x) + m.eye(3)),
}


@pytest.mark.parametrize("name", sorted(NOT_YET))
def test_not_yet_refused_without_blaming_torch(name):
    f = NOT_YET[name]
    f(torch, torch.tensor(Z))                       # torch computes it
    with pytest.raises(NotImplementedError, match="labkit has no complex version yet") as err:
        f(labkit, labkit.tensor(Z))
    assert "torch has" in str(err.value)


SILENT_BEFORE = {     # once computed a wrong answer on complex input
    "vdot": lambda m, x: m.vdot(x, x * 2j),
    "trapezoid": lambda m, x: m.trapezoid(x),
    "dot": lambda m, x: m.dot(x, x),
    "norm": lambda m, x: x.norm(),
    "logsumexp": lambda m, x: m.logsumexp(x, 0),
    "cumsum": lambda m, x: x.cumsum(0),
    "diff": lambda m, x: m.diff(x),
    "sum_of_squares": lambda m, x: (x * x).sum(),
    "l1_loss": lambda m, x: m.nn.functional.l1_loss(x, x * 0.5),
}


@pytest.mark.parametrize("name", sorted(SILENT_BEFORE))
def test_computed_ops_match_torch(name, device):
    f = SILENT_BEFORE[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine = f(labkit, labkit.tensor(Z, device=device))
        ref = f(torch, torch.tensor(Z))
    assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    np.testing.assert_allclose(mine.cpu().numpy(), ref.resolve_conj().numpy(), rtol=1e-12)


def test_real_ops_untouched_by_the_guard():
    """Real tensors never meet the guard's refusal (and a custom Function is never refused)."""
    x = labkit.tensor([3.0, 1.0, 2.0])
    assert x.sort().values.tolist() == [1.0, 2.0, 3.0]
    assert float(x.clamp(0, 2).max()) == 2.0

    class Twice(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            return z * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    np.testing.assert_allclose(Twice.apply(labkit.tensor(Z)).numpy(), Z * 2)
