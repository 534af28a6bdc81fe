"""complex64/complex128 as dtypes, against torch: names and aliases, promotion with reals,
ints, bools and Python scalars, tensor() inference, creation functions, casts, printing."""
import warnings

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]


def _name(dt):
    return str(dt).split(".")[-1]


def test_dtype_objects_and_aliases():
    for name in ("complex64", "complex128", "cfloat", "cdouble"):
        assert _name(getattr(labkit, name)) == _name(getattr(torch, name))
    for name in ("complex64", "complex128"):
        lk, t = getattr(labkit, name), getattr(torch, name)
        assert lk.is_complex == t.is_complex is True
        assert lk.is_floating_point == t.is_floating_point is False
        assert lk.itemsize == t.itemsize
        assert _name(lk.to_real()) == _name(t.to_real())
    assert _name(labkit.float32.to_complex()) == "complex64"
    assert _name(labkit.float64.to_complex()) == "complex128"


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", ["complex64", "complex128"])
def test_promote_types_with_complex(a, b):
    mine = labkit.promote_types(getattr(labkit, a), getattr(labkit, b))
    assert _name(mine) == _name(torch.promote_types(getattr(torch, a), getattr(torch, b)))


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", ["complex64", "complex128"])
def test_tensor_tensor_promotion(a, b, device):
    x = labkit.ones(2, dtype=getattr(labkit, a), device=device)
    y = labkit.ones(2, dtype=getattr(labkit, b), device=device)
    tx, ty = torch.ones(2, dtype=getattr(torch, a)), torch.ones(2, dtype=getattr(torch, b))
    assert _name((x + y).dtype) == _name((tx + ty).dtype)
    assert _name((y * x).dtype) == _name((ty * tx).dtype)
    assert _name(labkit.result_type(x, y)) == _name(torch.result_type(tx, ty))


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("scalar", [1j, 2 + 0.5j, complex(1, 0)], ids=str)
def test_python_complex_scalar_promotion(a, scalar, device):
    """A Python complex keeps a tensor's precision: float64 + 1j is complex128, float16 + 1j
    is complex32 in torch (labkit has no complex32: it says so)."""
    x = labkit.ones(2, dtype=getattr(labkit, a), device=device)
    tx = torch.ones(2, dtype=getattr(torch, a))
    want = (tx * scalar).dtype
    if want == torch.complex32:
        with pytest.raises((RuntimeError, TypeError), match="complex32|ComplexHalf"):
            x * scalar
        return
    assert _name((x * scalar).dtype) == _name(want)
    assert _name((scalar + x).dtype) == _name((scalar + tx).dtype)
    np.testing.assert_allclose((x * scalar).cpu().numpy(), (tx * scalar).numpy())


def test_zero_dim_complex_does_not_override_dimensioned_float(device):
    """A 0-d tensor of a higher category still wins the category (complex over float), but
    the size comes from the dimensioned tensor: float32 + 0-d complex128 is complex64."""
    for fdt, cdt in [("float32", "complex128"), ("float64", "complex64"), ("int64", "complex128"),
                     ("float16", "complex64")]:
        x = labkit.ones(3, dtype=getattr(labkit, fdt), device=device)
        s = labkit.tensor(1 + 2j, dtype=getattr(labkit, cdt), device=device)
        tx, ts = torch.ones(3, dtype=getattr(torch, fdt)), torch.tensor(1 + 2j,
                                                                        dtype=getattr(torch, cdt))
        if (tx + ts).dtype == torch.complex32:
            continue
        assert _name((x + s).dtype) == _name((tx + ts).dtype), (fdt, cdt)
        c = labkit.ones(3, dtype=getattr(labkit, cdt), device=device)
        z = labkit.tensor(2.0, dtype=labkit.float64, device=device)
        tc = torch.ones(3, dtype=getattr(torch, cdt))
        assert _name((c * z).dtype) == _name((tc * torch.tensor(2.0, dtype=torch.float64)).dtype)


@pytest.mark.parametrize("data", [1j, [1, 2j], [[1.5, 2], [3j, 4]], [True, 1j], [1 + 0j],
                                  np.array([1 + 1j], dtype=np.complex64),
                                  np.array([1 + 1j], dtype=np.complex128)], ids=str)
def test_tensor_infers_complex(data):
    mine, ref = labkit.tensor(data), torch.tensor(data)
    assert _name(mine.dtype) == _name(ref.dtype)
    assert tuple(mine.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(mine.numpy(), ref.numpy())


def test_default_complex_follows_default_float():
    old = labkit.get_default_dtype()
    try:
        labkit.set_default_dtype(labkit.float64)
        assert labkit.tensor([1j]).dtype == labkit.complex128
        assert (labkit.ones(2) * 1j).dtype == labkit.complex128
    finally:
        labkit.set_default_dtype(old)
    assert labkit.tensor([1j]).dtype == labkit.complex64


@pytest.mark.parametrize("make", ["zeros", "ones", "empty", "full", "randn", "rand", "eye",
                                  "arange", "zeros_like", "randn_like", "linspace"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_creation_with_complex_dtype(make, dtype, device):
    dl, dt = getattr(labkit, dtype), getattr(torch, dtype)
    args = {"zeros": ((2, 3),), "ones": ((2, 3),), "empty": ((2, 3),), "full": ((2, 3), 1 - 2j),
            "randn": ((2, 3),), "rand": ((2, 3),), "eye": (3,), "linspace": (0, 1j, 5)}
    if make == "arange":
        with pytest.raises(RuntimeError) as t_err:
            torch.arange(4, dtype=dt)
        with pytest.raises(NotImplementedError, match="arange"):
            labkit.arange(4, dtype=dl, device=device)
        assert "not implemented" in str(t_err.value)
        return
    if make.endswith("_like"):
        base = getattr(labkit, make)(labkit.ones(2, 3, device=device), dtype=dl)
        tbase = getattr(torch, make)(torch.ones(2, 3), dtype=dt)
    else:
        base = getattr(labkit, make)(*args[make], dtype=dl, device=device)
        tbase = getattr(torch, make)(*args[make], dtype=dt)
    assert _name(base.dtype) == _name(tbase.dtype) and tuple(base.shape) == tuple(tbase.shape)
    if make in ("zeros", "ones", "full", "eye", "zeros_like", "linspace"):
        np.testing.assert_allclose(base.cpu().numpy(), tbase.numpy(), atol=1e-6)


def test_full_with_complex_fill_infers_complex():
    assert _name(labkit.full((2,), 1j).dtype) == _name(torch.full((2,), 1j).dtype)
    with pytest.raises(RuntimeError):
        torch.full((2,), 1j, dtype=torch.float32)
    with pytest.raises(RuntimeError, match="full"):
        labkit.full((2,), 1j, dtype=labkit.float32)


def test_randn_complex_statistics_and_torch_numbers():
    """randn complex: real and imaginary parts each have variance 1/2 (E|z|^2 = 1), as torch;
    with the same seed labkit draws torch's numbers."""
    labkit.manual_seed(0)
    z = labkit.randn(20000, dtype=labkit.complex64)
    assert abs(float(z.real.var()) - 0.5) < 0.03 and abs(float(z.imag.var()) - 0.5) < 0.03
    assert abs(float(z.abs().square().mean()) - 1) < 0.05
    labkit.manual_seed(3)
    torch.manual_seed(3)
    np.testing.assert_allclose(labkit.randn(5, dtype=labkit.complex64).numpy(),
                               torch.randn(5, dtype=torch.complex64).numpy(), rtol=1e-6)
    labkit.manual_seed(3)
    torch.manual_seed(3)
    np.testing.assert_allclose(labkit.rand(5, dtype=labkit.complex128).numpy(),
                               torch.rand(5, dtype=torch.complex128).numpy(), rtol=1e-12)


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", ["complex64", "complex128"])
def test_cast_to_complex(src, dst, device):
    data = np.array([0, 1, 2, 1], dtype=np.float64)
    x = labkit.tensor(data, device=device).to(getattr(labkit, src))
    tx = torch.tensor(data).to(getattr(torch, src))
    y, ty = x.to(getattr(labkit, dst)), tx.to(getattr(torch, dst))
    assert _name(y.dtype) == _name(ty.dtype)
    np.testing.assert_array_equal(y.cpu().numpy(), ty.numpy())


@pytest.mark.parametrize("dst", ["float32", "float64", "int64", "float16"])
def test_cast_complex_to_real_warns_and_keeps_real_part(dst):
    z = np.array([1.5 + 2j, -3 - 1j])
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        y = labkit.tensor(z).to(getattr(labkit, dst))
    with warnings.catch_warnings():          # torch warns once per process (TORCH_WARN_ONCE)
        warnings.simplefilter("ignore")
        ty = torch.tensor(z).to(getattr(torch, dst))
    assert _name(y.dtype) == _name(ty.dtype)
    np.testing.assert_array_equal(y.numpy(), ty.numpy())


def test_cast_complex_to_bool_is_nonzero_test():
    z = [0j, 1j, 2 + 0j, 0 + 0j]
    np.testing.assert_array_equal(labkit.tensor(z).bool().numpy(),
                                  torch.tensor(z).bool().numpy())


def test_cast_gradient_real_to_complex_and_back():
    for src, dst in [("float32", "complex64"), ("float64", "complex64"), ("complex128", "complex64")]:
        x = labkit.tensor([1.0, 2.0], dtype=getattr(labkit, src), requires_grad=True)
        tx = torch.tensor([1.0, 2.0], dtype=getattr(torch, src), requires_grad=True)
        (x.to(getattr(labkit, dst)) * (1 + 2j)).abs().sum().backward()
        (tx.to(getattr(torch, dst)) * (1 + 2j)).abs().sum().backward()
        assert _name(x.grad.dtype) == _name(tx.grad.dtype)
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)


def test_is_complex_and_is_floating_point(device):
    z = labkit.zeros(2, dtype=labkit.complex64, device=device)
    assert z.is_complex() and not z.is_floating_point()
    assert labkit.is_complex(z) and not labkit.is_complex(labkit.zeros(2))
    assert z.element_size() == torch.zeros(2, dtype=torch.complex64).element_size()
    assert labkit.zeros(2, dtype=labkit.complex128).element_size() == 16


@pytest.mark.parametrize("data", [
    [1 + 2j, -3.5 - 0.25j], 1 - 1j, [[0j, 1e-8 + 1e8j]], [], [[1.123456789 + 2j]],
    [float("nan") + 1j, complex(float("inf"), -1)]], ids=str)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_printing_matches_torch(data, dtype):
    mine = labkit.tensor(data, dtype=getattr(labkit, dtype))
    ref = torch.tensor(data, dtype=getattr(torch, dtype))
    assert repr(mine).replace("labkit.", "torch.") == repr(ref)


def test_printing_with_grad_fn():
    z = labkit.tensor([1 + 1j], requires_grad=True)
    assert "grad_fn=<MulBackward0>" in repr(z * 2)
    assert repr(z).replace("labkit.", "torch.") == repr(torch.tensor([1 + 1j], requires_grad=True))


def test_item_tolist_and_python_conversions():
    z = labkit.tensor([1 + 2j, 3j])
    tz = torch.tensor([1 + 2j, 3j])
    assert z.tolist() == tz.tolist()
    assert z[0].item() == tz[0].item() and isinstance(z[0].item(), complex)
    assert complex(z[1]) == complex(tz[1])
    assert complex(labkit.tensor(2.0)) == complex(torch.tensor(2.0))


@pytest.mark.parametrize("value", [1 + 2j, 3j, 2.5 + 0j, complex(float("nan"), 0), -0j])
@pytest.mark.parametrize("conv", [float, int])
def test_python_number_of_a_complex_tensor_is_torchs(value, conv):
    """torch converts a complex value with no imaginary part, and raises RuntimeError for
    the rest (and for int() of a non-finite real part)."""
    try:
        want = conv(torch.tensor(value))
    except RuntimeError:
        with pytest.raises(RuntimeError, match="without overflow"):
            conv(labkit.tensor(value))
        return
    got = conv(labkit.tensor(value))
    assert type(got) is type(want) and (got == want or (got != got and want != want))


def test_numpy_roundtrip_keeps_dtype():
    for dt in (np.complex64, np.complex128):
        a = np.array([1 + 2j, 3 - 4j], dtype=dt)
        x = labkit.from_numpy(a)
        assert _name(x.dtype) == _name(torch.from_numpy(a).dtype)
        assert x.numpy().dtype == dt


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_random_fills_and_complex_linear_layer(dtype):
    """uniform_/normal_ fill the real view (normal_ with std / sqrt(2)), as torch, so a
    complex nn.Linear draws torch's numbers."""
    for seed, call in ((1, lambda m, t: t.uniform_(-2, 3)), (2, lambda m, t: t.normal_(1, 2))):
        labkit.manual_seed(seed)
        torch.manual_seed(seed)
        mine = call(labkit, labkit.empty(4, 3, dtype=getattr(labkit, dtype)))
        ref = call(torch, torch.empty(4, 3, dtype=getattr(torch, dtype)))
        np.testing.assert_allclose(mine.numpy(), ref.numpy(), rtol=1e-6)
    labkit.manual_seed(0)
    torch.manual_seed(0)
    lin = labkit.nn.Linear(3, 2, dtype=getattr(labkit, dtype))
    tlin = torch.nn.Linear(3, 2, dtype=getattr(torch, dtype))
    np.testing.assert_allclose(lin.weight.detach().numpy(), tlin.weight.detach().numpy(),
                               rtol=1e-6)
    np.testing.assert_allclose(lin.bias.detach().numpy(), tlin.bias.detach().numpy(), rtol=1e-6)
