"""torch's calling forms: input=/other=, axis=/keepdims=, out=, size=; Tensor.type(),
new_zeros and friends, set_default_dtype / set_default_device, torch.accelerator, and the
module-level masked_fill / clamp_ / relu_ and in-place functions."""
import warnings

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def _same(got, want):
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), rtol=1e-6)


X = np.arange(12.0).reshape(3, 4) - 5


@pytest.mark.parametrize("call", [
    lambda M, x: M.matmul(input=x, other=x.T),
    lambda M, x: M.add(input=x, other=x, alpha=2),
    lambda M, x: M.mul(x, other=2.0),
    lambda M, x: x.add(other=x),
    lambda M, x: M.sum(input=x, dim=1),
    lambda M, x: M.sum(x, axis=1, keepdims=True),
    lambda M, x: x.sum(axis=0),
    lambda M, x: x.mean(axis=(0, 1), keepdims=True),
    lambda M, x: M.mean(x, axis=-1),
    lambda M, x: x.max(axis=1).values,
    lambda M, x: M.argmax(x, axis=0),
    lambda M, x: M.softmax(x, axis=1),
    lambda M, x: M.cat([x, x], axis=1),
    lambda M, x: M.stack([x, x], axis=-1),
    lambda M, x: x.std(axis=1, keepdims=True),
    lambda M, x: M.cumsum(x, axis=0),
    lambda M, x: x.prod(axis=1),
    lambda M, x: M.maximum(input=x, other=-x),
    lambda M, x: M.where(x > 0, input=x, other=-x),
    lambda M, x: M.clamp(input=x, min=-1, max=2),
])
def test_keyword_forms(call):
    got, want = call(labkit, labkit.tensor(X)), call(torch, torch.tensor(X))
    _same(got, want)


@pytest.mark.parametrize("call", [
    lambda M, x, o: M.add(x, x, out=o),
    lambda M, x, o: M.mul(x, 3.0, out=o),
    lambda M, x, o: M.sub(x, 1, out=o),
    lambda M, x, o: M.div(x, 2, out=o),
    lambda M, x, o: M.matmul(x, M.eye(4, dtype=x.dtype) * 2, out=o),
    lambda M, x, o: M.exp(x, out=o),
    lambda M, x, o: M.clamp(x, 0, 3, out=o),
    lambda M, x, o: M.pow(x, 2, out=o),
    lambda M, x, o: M.abs(x, out=o),
    lambda M, x, o: M.sqrt(M.abs(x), out=o),
    lambda M, x, o: M.tanh(x, out=o),
    lambda M, x, o: M.square(x, out=o),
])
def test_out_writes_into_the_given_tensor(call):
    x, t = labkit.tensor(X), torch.tensor(X)
    o, ot = labkit.empty(3, 4, dtype=labkit.float64), torch.empty(3, 4, dtype=torch.float64)
    v = o._version
    r, rt = call(labkit, x, o), call(torch, t, ot)
    assert r is o and rt is ot and o._version > v
    _same(o, ot)


def test_out_for_reductions_and_joins():
    x, t = labkit.tensor(X), torch.tensor(X)
    for f in (lambda M, x, o: M.sum(x, 1, out=o), lambda M, x, o: M.mean(x, dim=0, out=o),
              lambda M, x, o: M.cat([x, x], out=o), lambda M, x, o: M.stack([x, x], out=o),
              lambda M, x, o: M.mm(x, x.T, out=o)):
        o, ot = labkit.empty(0, dtype=labkit.float64), torch.empty(0, dtype=torch.float64)
        f(labkit, x, o)
        f(torch, t, ot)
        _same(o, ot)


def test_out_with_a_wrong_shape_is_resized_with_torch_warning():
    o = labkit.empty(5)
    with pytest.warns(UserWarning, match="resized"):
        labkit.add(labkit.ones(2, 3), 1, out=o)
    assert o.shape == (2, 3) and o.tolist() == [[2.0] * 3] * 2
    o = labkit.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        labkit.add(labkit.ones(2), 1, out=o)


def test_out_refuses_autograd_like_torch():
    for M in (torch, labkit):
        a = M.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="out=... arguments don't support automatic"):
            M.mul(a, 2, out=M.empty(2))
        with pytest.raises(RuntimeError, match="out=... arguments don't support automatic"):
            M.add(M.ones(2), 1, out=M.empty(2, requires_grad=True))
        with M.no_grad():
            out = M.empty(2)
            M.mul(a, 2, out=out)
        assert out.tolist() == [2.0, 2.0]


def test_out_refuses_a_narrowing_cast_like_torch():
    with pytest.raises(RuntimeError, match="can't be cast"):
        torch.add(torch.ones(2), 1, out=torch.empty(2, dtype=torch.long))
    with pytest.raises(RuntimeError, match="can't be cast"):
        labkit.add(labkit.ones(2), 1, out=labkit.empty(2, dtype=labkit.int64))
    o = labkit.empty(2, dtype=labkit.float64)
    labkit.add(labkit.ones(2), 1, out=o)        # widening is fine, as in torch
    assert o.dtype == labkit.float64 and o.tolist() == [2.0, 2.0]


def test_size_keyword():
    for name in ("zeros", "ones", "empty", "rand", "randn"):
        assert getattr(labkit, name)(size=(2, 3)).shape == getattr(torch, name)(size=(2, 3)).shape
    with pytest.raises(TypeError, match="twice"):
        labkit.zeros(2, size=(2,))


@pytest.mark.parametrize("dtype,name", [("float32", "FloatTensor"), ("float64", "DoubleTensor"),
                                        ("float16", "HalfTensor"), ("int64", "LongTensor"),
                                        ("int32", "IntTensor"), ("int16", "ShortTensor"),
                                        ("int8", "CharTensor"), ("uint8", "ByteTensor"),
                                        ("bool", "BoolTensor")])
def test_type_strings_are_torch_strings(dtype, name):
    x = labkit.zeros(2, dtype=getattr(labkit, dtype if dtype != "bool" else "bool"))
    t = torch.zeros(2, dtype=getattr(torch, dtype))
    assert x.type() == t.type() == f"torch.{name}"
    assert x.float().type(f"torch.{name}").dtype == x.dtype
    assert labkit.ones(2).type(x.dtype).dtype == x.dtype


def test_type_errors_and_cuda_strings():
    with pytest.raises(ValueError, match="invalid type"):
        labkit.ones(2).type("torch.NotATensor")
    if labkit.cuda.is_available():
        assert labkit.ones(2, device="cuda").type() == "torch.cuda.FloatTensor"


def test_new_factories_take_dtype_and_device_from_self(device):
    x = labkit.ones(2, dtype=labkit.float64, device=device)
    t = torch.ones(2, dtype=torch.float64)
    for f in (lambda M, x: x.new_zeros(3, 2), lambda M, x: x.new_ones((2,)),
              lambda M, x: x.new_full((2, 2), 7), lambda M, x: x.new_tensor([1, 2]),
              lambda M, x: x.new_zeros(2, dtype=M.int64)):
        got, want = f(labkit, x), f(torch, t)
        assert got.device == x.device
        _same(got, want)
    e = x.new_empty(4)
    assert e.shape == (4,) and e.dtype == labkit.float64 and e.device == x.device
    assert x.new_zeros(2, requires_grad=True).requires_grad


def test_set_default_dtype():
    assert labkit.get_default_dtype() == labkit.float32
    try:
        labkit.set_default_dtype(labkit.float64)
        torch.set_default_dtype(torch.float64)
        for f in (lambda M: M.tensor([1.5]), lambda M: M.zeros(2), lambda M: M.randn(2),
                  lambda M: M.arange(0.0, 1.0, 0.5), lambda M: M.full((2,), 1.5),
                  lambda M: M.linspace(0, 1, 3), lambda M: M.tensor([1, 2]),
                  lambda M: M.Tensor([1, 2]), lambda M: M.arange(3).sqrt(),
                  lambda M: M.arange(3) * 0.5, lambda M: M.arange(3) / 2,
                  lambda M: M.ones(2, dtype=M.float32) * 0.5, lambda M: M.arange(3).float(),
                  lambda M: M.atan2(M.arange(3), M.arange(3))):
            got, want = f(labkit), f(torch)
            assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        assert labkit.get_default_dtype() == labkit.float64
    finally:
        labkit.set_default_dtype(labkit.float32)
        torch.set_default_dtype(torch.float32)
    assert labkit.zeros(1).dtype == labkit.float32
    with pytest.raises(TypeError):
        torch.set_default_dtype(torch.int64)
    with pytest.raises(TypeError, match="floating-point"):
        labkit.set_default_dtype(labkit.int64)


def test_set_default_device(device):
    try:
        labkit.set_default_device(device)
        assert labkit.zeros(2).device == labkit.device(device)
        assert labkit.tensor([1.0]).device == labkit.device(device)
        assert labkit.get_default_device() == labkit.device(device)
    finally:
        labkit.set_default_device(None)
    assert labkit.zeros(2).device == labkit.device("cpu")


def test_accelerator_follows_cuda():
    assert labkit.accelerator.is_available() == labkit.cuda.is_available()
    acc = labkit.accelerator.current_accelerator()
    if labkit.cuda.is_available():
        assert acc == labkit.device("cuda")
    else:
        assert acc is None and torch.accelerator.current_accelerator() is None
    device = labkit.accelerator.current_accelerator() or "cpu"   # the tutorial idiom
    assert labkit.zeros(1, device=device).device.type in ("cpu", "cuda")
    labkit.accelerator.synchronize()


def test_module_level_inplace_and_masked_fill():
    x, t = labkit.tensor(X), torch.tensor(X)
    _same(labkit.masked_fill(x, x > 0, 0.0), torch.masked_fill(t, t > 0, 0.0))
    assert labkit.clamp_(x, -1, 1) is x and labkit.relu_(x) is x
    torch.clamp_(t, -1, 1)
    torch.relu_(t)
    _same(x, t)
    for name in ("exp_", "sigmoid_", "sqrt_", "abs_", "tanh_"):
        y, u = labkit.tensor(X).abs(), torch.tensor(X).abs()
        assert getattr(labkit, name)(y) is y
        getattr(torch, name)(u)
        _same(y, u)


def test_module_level_all_and_any():
    x, t = labkit.tensor(X), torch.tensor(X)
    for f in (lambda M, x: M.all(x > -10), lambda M, x: M.any(x > 5),
              lambda M, x: M.all(x > 0, dim=1), lambda M, x: M.any(x > 0, axis=0)):
        got, want = f(labkit, x), f(torch, t)
        assert got.tolist() == want.tolist() and got.dtype == labkit.bool


def test_out_and_aliases_on_the_new_functions():
    x, t = labkit.tensor(X), torch.tensor(X)
    for f in (lambda M, x, o: M.cumprod(x, axis=1, out=o), lambda M, x, o: M.tan(x, out=o),
              lambda M, x, o: M.addcmul(x, x, x, value=0.5, out=o)):
        o, ot = labkit.empty(3, 4, dtype=labkit.float64), torch.empty(3, 4, dtype=torch.float64)
        assert f(labkit, x, o) is o
        f(torch, t, ot)
        _same(o, ot)
    _same(x.median(axis=1).values, t.median(axis=1).values)


def _scripted(x):
    return labkit.sum(x * 2, axis=0) + labkit.cumsum(x, 0).sum() + labkit.logsumexp(x, 0)


def test_wrapped_functions_script_save_and_load(tmp_path):
    """labkit.jit.script finds the keyword-accepting functions again by their labkit name."""
    x = labkit.randn(3)
    scripted = labkit.jit.script(_scripted)
    labkit.jit.save(scripted, tmp_path / "f.lkjit")
    loaded = labkit.jit.load(tmp_path / "f.lkjit")
    assert abs(loaded(x).item() - _scripted(x).item()) < 1e-6
    assert abs(scripted(x).item() - _scripted(x).item()) < 1e-6
