"""bfloat16 (numpy's via ml_dtypes): dtype, casts, printing, save/load, and each op's result
dtype and value against torch's bfloat16."""
import subprocess
import sys

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def _pair(shape=(3, 4), seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return labkit.tensor(a).bfloat16(), torch.tensor(a).bfloat16()


def test_import_labkit_does_not_load_ml_dtypes():
    code = "import labkit, sys; assert 'ml_dtypes' not in sys.modules; print(labkit.bfloat16)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "labkit.bfloat16"


def test_dtype_surface():
    x, t = _pair()
    assert x.dtype == labkit.bfloat16 and str(x.dtype) == "labkit.bfloat16"
    assert x.is_floating_point() and labkit.bfloat16.is_floating_point
    assert x.element_size() == t.element_size() == 2
    assert np.array_equal(x.float().numpy(), t.float().numpy())     # same rounding (nearest even)
    assert x.half().dtype == labkit.float16 and x.to(labkit.float32).dtype == labkit.float32
    assert labkit.zeros(2, dtype=labkit.bfloat16).dtype == labkit.bfloat16
    assert labkit.tensor([1.5], dtype=labkit.bfloat16).dtype == labkit.bfloat16
    assert labkit.ones(2).to(dtype=labkit.bfloat16).dtype == labkit.bfloat16


def test_rounding_matches_torch_including_overflow_and_subnormals():
    vals = np.array([1 / 3, 1e-40, 3.4e38, -0.0, 65504.0, 1e-8, 257.0, np.inf, np.nan],
                    np.float32)
    mine = labkit.tensor(vals).bfloat16().float().numpy()
    ref = torch.tensor(vals).bfloat16().float().numpy()
    assert np.array_equal(mine, ref, equal_nan=True)


def test_printing():
    x = labkit.tensor([1.0, 2.5, -3.0]).bfloat16()
    assert repr(x) == "tensor([ 1.0000,  2.5000, -3.0000], dtype=labkit.bfloat16)"
    assert "grad_fn=<ToCopyBackward0>" in repr(labkit.ones(2, requires_grad=True).bfloat16())


def test_promotion_as_torch():
    for other in ("float16", "float32", "float64", "int64", "bool"):
        a = labkit.ones(2, dtype=labkit.bfloat16) + labkit.ones(2, dtype=getattr(labkit, other))
        b = torch.ones(2, dtype=torch.bfloat16) + torch.ones(2, dtype=getattr(torch, other))
        assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1], other
    assert (labkit.ones(2, dtype=labkit.bfloat16) * 2.5).dtype == labkit.bfloat16
    from labkit.engine.promotion import promote_types
    assert promote_types(labkit.bfloat16, labkit.float16) == labkit.float32


OPS = {
    "add": lambda m, x: x + x, "mul_scalar": lambda m, x: x * 0.5, "matmul": lambda m, x: x @ x.T,
    "relu": lambda m, x: x.relu(), "exp": lambda m, x: x.exp(), "tanh": lambda m, x: x.tanh(),
    "sum": lambda m, x: x.sum(), "mean": lambda m, x: x.mean(dim=0), "softmax": lambda m, x:
    m.softmax(x, -1), "linear": lambda m, x: m.nn.functional.linear(x, x), "max": lambda m, x:
    x.max(), "sigmoid": lambda m, x: x.sigmoid(), "neg": lambda m, x: -x,
    "transpose": lambda m, x: x.t(), "reshape": lambda m, x: x.reshape(-1),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_dtype_and_value(name):
    x, t = _pair()
    mine, ref = OPS[name](labkit, x), OPS[name](torch, t)
    assert str(mine.dtype).split(".")[1] == str(ref.dtype).split(".")[1]
    # numpy's bfloat16 ops round once per op, as torch's CPU kernels: values agree to 1 ulp
    np.testing.assert_allclose(mine.float().numpy(), ref.float().numpy(), rtol=2 ** -7, atol=1e-2)


def test_backward_through_bfloat16_as_torch():
    a = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    w = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32)
    xs = labkit.tensor(a, requires_grad=True)
    ws = labkit.tensor(w, requires_grad=True)
    xt = torch.tensor(a, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    labkit.nn.functional.linear(xs.bfloat16(), ws.bfloat16()).relu().float().sum().backward()
    torch.nn.functional.linear(xt.bfloat16(), wt.bfloat16()).relu().float().sum().backward()
    assert xs.grad.dtype == labkit.float32
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=2 ** -7, atol=1e-2)
    np.testing.assert_allclose(ws.grad.numpy(), wt.grad.numpy(), rtol=2 ** -7, atol=1e-2)


def test_module_bfloat16_and_half():
    m = labkit.nn.Linear(3, 2)
    p = m.weight
    m.bfloat16()
    assert m.weight is p and m.weight.dtype == labkit.bfloat16
    assert m(labkit.ones(1, 3, dtype=labkit.bfloat16)).dtype == labkit.bfloat16
    assert m.half().weight.dtype == labkit.float16


def test_save_load_round_trip_is_bit_exact(tmp_path):
    x, _ = _pair()
    p = labkit.nn.Parameter(x.clone())
    labkit.save({"x": x, "p": p, "arr": x.numpy()}, tmp_path / "c.pt")
    back = labkit.load(tmp_path / "c.pt")
    assert back["x"].dtype == labkit.bfloat16 and back["p"].requires_grad
    assert np.array_equal(back["x"].numpy().view(np.uint16), x.numpy().view(np.uint16))
    assert back["arr"].dtype.name == "bfloat16"


def test_requires_grad_on_bfloat16_leaf():
    x = labkit.ones(2, dtype=labkit.bfloat16, requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.dtype == labkit.bfloat16 and x.grad.float().tolist() == [2.0, 2.0]
