"""Making tensors: dtype inference, memory sharing, the factory functions, seeding, repr."""
import numpy as np
import pytest

import labkit


def name(dtype):
    return str(dtype).split(".")[-1]


# --- dtype inference -------------------------------------------------------------------------

@pytest.mark.parametrize("data,expected", [
    ([1.0, 2.0], "float32"), (1.5, "float32"), ([1, 2], "int64"), (3, "int64"),
    ([True, False], "bool"), (True, "bool"), ([1, 2.5], "float32"), ([[1, 2], [3, 4]], "int64"),
    (np.array([1.0, 2.0]), "float64"), (np.array([1.0], dtype=np.float32), "float32"),
    (np.array([1, 2], dtype=np.int32), "int32"), (np.float64(1.5), "float64"),
    (np.array([True]), "bool"), (np.int64(3), "int64"), ([], "float32"),
], ids=repr)
def test_tensor_dtype_inference(data, expected):
    assert name(labkit.tensor(data).dtype) == expected
    torch = pytest.importorskip("torch")
    assert name(torch.tensor(data).dtype) == expected  # the oracle agrees


def test_tensor_of_tensors_and_dtype_argument():
    t = labkit.tensor([labkit.tensor(1.0), labkit.tensor(2.0)])
    assert t.tolist() == [1.0, 2.0] and t.dtype == labkit.float32
    assert labkit.tensor([1, 2], dtype=labkit.float64).dtype == labkit.float64
    assert labkit.tensor([1.7, -1.7], dtype=labkit.int64).tolist() == [1, -1]
    assert labkit.tensor([1, 0], dtype=labkit.bool).tolist() == [True, False]
    assert labkit.tensor([1.0], dtype="float64").dtype == labkit.float64
    assert labkit.tensor([1.0], dtype=float).dtype == labkit.float64  # Python float is double
    assert labkit.tensor(labkit.tensor([1.0], dtype=labkit.float64)).dtype == labkit.float64


def test_dtype_aliases():
    assert labkit.float is labkit.float32 and labkit.double is labkit.float64
    assert labkit.long is labkit.int64 and labkit.half is labkit.float16
    assert labkit.float32.is_floating_point and not labkit.int64.is_floating_point
    assert labkit.float32 == np.float32 and labkit.float32 != labkit.float64
    assert repr(labkit.float32) == "labkit.float32"


# --- memory sharing ----------------------------------------------------------------------------

def test_from_numpy_shares_memory_both_ways():
    a = np.zeros(3)
    t = labkit.from_numpy(a)
    assert t.dtype == labkit.float64
    a[0] = 5.0
    assert t[0].item() == 5.0
    t[1] = 7.0
    assert a[1] == 7.0
    t.add_(1)
    assert a.tolist() == [6.0, 8.0, 1.0]


def test_tensor_copies():
    a = np.zeros(3)
    t = labkit.tensor(a)
    a[0] = 5.0
    assert t.tolist() == [0.0, 0.0, 0.0]
    u = labkit.tensor(t)
    t.add_(1)
    assert u.tolist() == [0.0, 0.0, 0.0]


def test_as_tensor_shares_when_it_can():
    a = np.zeros(3)
    t = labkit.as_tensor(a)
    a[0] = 5.0
    assert t[0].item() == 5.0
    c = labkit.as_tensor(a, dtype=labkit.float32)   # another dtype: a copy
    a[1] = 7.0
    assert c[1].item() == 0.0 and c.dtype == labkit.float32
    x = labkit.ones(2)
    assert labkit.as_tensor(x) is x
    assert labkit.as_tensor([1, 2]).dtype == labkit.int64


def test_numpy_shares_memory():
    t = labkit.zeros(3)
    t.numpy()[0] = 4.0
    assert t[0].item() == 4.0
    assert np.asarray(t).tolist() == [4.0, 0.0, 0.0]


def test_tolist_item_and_conversions():
    t = labkit.tensor([[1.5, 2.0]])
    assert t.tolist() == [[1.5, 2.0]] and isinstance(t.tolist()[0][0], float)
    assert labkit.tensor(3).item() == 3 and isinstance(labkit.tensor(3).item(), int)
    assert float(labkit.tensor([2.5])) == 2.5 and int(labkit.tensor(7.9)) == 7


# --- factories ---------------------------------------------------------------------------------

FACTORIES = {
    "zeros": lambda M, **kw: M.zeros(2, 3, **kw),
    "zeros_tuple": lambda M, **kw: M.zeros((2, 3), **kw),
    "ones": lambda M, **kw: M.ones(4, **kw), "ones_list": lambda M, **kw: M.ones([2, 2], **kw),
    "full": lambda M, **kw: M.full((2, 2), 3.5, **kw),
    "full_int": lambda M, **kw: M.full((3,), 7, **kw),
    "arange": lambda M, **kw: M.arange(5, **kw),
    "arange_start": lambda M, **kw: M.arange(2, 7, **kw),
    "arange_step": lambda M, **kw: M.arange(0, 10, 3, **kw),
    "arange_float": lambda M, **kw: M.arange(0, 1, 0.25, **kw),
    "arange_neg": lambda M, **kw: M.arange(5, 0, -2, **kw),
    "linspace": lambda M, **kw: M.linspace(-1, 1, 5, **kw),
    "linspace_1": lambda M, **kw: M.linspace(0, 3, 1, **kw),
    "eye": lambda M, **kw: M.eye(3, **kw), "eye_rect": lambda M, **kw: M.eye(2, 4, **kw),
    "zeros_0d": lambda M, **kw: M.zeros((), **kw), "ones_empty": lambda M, **kw: M.ones(0, 3, **kw),
}


@pytest.mark.parametrize("fn", sorted(FACTORIES))
@pytest.mark.parametrize("dtype", [None, "float64", "int64"])
def test_factories_match_torch(fn, dtype, device):
    torch = pytest.importorskip("torch")
    if fn == "arange_float" and dtype == "int64":
        pytest.skip("torch refuses a fractional step with an integer dtype (step becomes 0)")
    kw_l = {} if dtype is None else {"dtype": getattr(labkit, dtype)}
    kw_t = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    mine, ref = FACTORIES[fn](labkit, device=device, **kw_l), FACTORIES[fn](torch, **kw_t)
    assert tuple(mine.shape) == tuple(ref.shape)
    assert name(mine.dtype) == name(ref.dtype)
    assert mine.device.type == device
    np.testing.assert_allclose(mine.cpu().numpy(), ref.numpy(), rtol=1e-6)


@pytest.mark.parametrize("fn", ["zeros", "ones", "full", "arange_float", "linspace", "eye",
                                "zeros_0d"])
def test_factories_with_requires_grad(fn, device):
    t = FACTORIES[fn](labkit, device=device, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    (t * 2).sum().backward()
    assert t.grad.shape == t.shape


def test_empty_has_the_right_shape_dtype_and_device(device):
    e = labkit.empty(2, 3, dtype=labkit.float64, device=device)
    assert tuple(e.shape) == (2, 3) and e.dtype == labkit.float64 and e.device.type == device
    assert labkit.empty(0).numel() == 0


def test_like_functions(device):
    torch = pytest.importorskip("torch")
    base_l = labkit.tensor([[1, 2], [3, 4]], device=device)
    base_t = torch.tensor([[1, 2], [3, 4]])
    for f in ("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"):
        kw = {"dtype": labkit.float64} if f in ("rand_like", "randn_like") else {}
        kwt = {"dtype": torch.float64} if kw else {}
        mine, ref = getattr(labkit, f)(base_l, **kw), getattr(torch, f)(base_t, **kwt)
        assert tuple(mine.shape) == tuple(ref.shape) and name(mine.dtype) == name(ref.dtype), f
        assert mine.device == base_l.device
    mine = labkit.full_like(base_l, 7)
    assert mine.tolist() == [[7, 7], [7, 7]] and mine.dtype == labkit.int64
    f = labkit.zeros_like(base_l, dtype=labkit.float32, requires_grad=True)
    assert f.requires_grad and f.dtype == labkit.float32
    g = labkit.ones_like(labkit.ones(3, dtype=labkit.float64))
    assert g.dtype == labkit.float64


# --- random -----------------------------------------------------------------------------------

@pytest.mark.parametrize("draw", [lambda: labkit.rand(3, 2), lambda: labkit.randn(4),
                                  lambda: labkit.randint(0, 10, (5,)), lambda: labkit.randperm(6),
                                  lambda: labkit.randn(2, dtype=labkit.float64),
                                  lambda: labkit.rand_like(labkit.zeros(3))])
def test_manual_seed_reproduces_draws(draw):
    labkit.manual_seed(123)
    a = draw().tolist()
    b = draw().tolist()
    labkit.manual_seed(123)
    assert draw().tolist() == a and draw().tolist() == b
    labkit.manual_seed(124)
    assert draw().tolist() != a or len(a) <= 1


def test_initial_seed_and_seed():
    labkit.manual_seed(42)
    assert labkit.initial_seed() == 42
    s = labkit.seed()
    assert labkit.initial_seed() == s
    labkit.manual_seed(0)


def test_a_generator_is_independent_of_the_global_stream():
    g = labkit.Generator().manual_seed(7)
    a = labkit.randn(3, generator=g).tolist()
    labkit.manual_seed(1)
    labkit.randn(5)
    g2 = labkit.Generator().manual_seed(7)
    assert labkit.randn(3, generator=g2).tolist() == a
    state = g.get_state()
    x = labkit.rand(2, generator=g).tolist()
    g.set_state(state)
    assert labkit.rand(2, generator=g).tolist() == x


def test_random_ranges_and_dtypes(device):
    labkit.manual_seed(0)
    r = labkit.rand(1000, device=device).cpu().numpy()
    assert r.dtype == np.float32 and r.min() >= 0 and r.max() < 1
    n = labkit.randn(20000, dtype=labkit.float64, device=device).cpu().numpy()
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05
    i = labkit.randint(3, 7, (1000,), device=device)
    assert i.dtype == labkit.int64 and set(i.tolist()) == {3, 4, 5, 6}
    assert labkit.randint(5, size=(4,)).max().item() < 5
    p = labkit.randperm(10, device=device)
    assert sorted(p.tolist()) == list(range(10)) and p.dtype == labkit.int64
    assert labkit.randn(2, 3, requires_grad=True).requires_grad
    assert labkit.rand((2, 3)).shape == (2, 3)


# --- repr ----------------------------------------------------------------------------------------

REPRS = {
    "float": lambda M: M.tensor([1.0, 2.0]),
    "requires_grad": lambda M: M.tensor([1.0, 2.0], requires_grad=True),
    "decimals": lambda M: M.tensor([0.5, 0.25]),
    "negative_decimals": lambda M: M.tensor([-1.5, 2.0]),
    "int": lambda M: M.tensor([1, 2, 3]),
    "bool": lambda M: M.tensor([True, False]),
    "scalar": lambda M: M.tensor(3.5),
    "int_scalar": lambda M: M.tensor(4),
    "float64": lambda M: M.tensor([1.0, 2.0], dtype=M.float64),
    "float64_grad": lambda M: M.tensor([1.5], dtype=M.float64, requires_grad=True),
    "int32": lambda M: M.tensor([1], dtype=M.int32),
    "matrix": lambda M: M.tensor([[1.0, 2.0], [3.0, 4.0]]),
    "matrix_int": lambda M: M.tensor([[1, 20], [300, 4]]),
    "mixed_widths": lambda M: M.tensor([1.2345678, 100.0]),
    "empty": lambda M: M.zeros(0),
    "grad_fn": lambda M: M.tensor([1.0, 2.0], requires_grad=True) * 2,
    "sci_small": lambda M: M.tensor([1e-5, 1.0]),
    "sci_big": lambda M: M.tensor([1e10, 1.0]),
    "nan_inf": lambda M: M.tensor([float("nan"), float("inf"), 1.0]),
}


@pytest.mark.parametrize("case", sorted(REPRS))
def test_repr_like_torch(case):
    torch = pytest.importorskip("torch")
    expected = repr(REPRS[case](torch)).replace("torch.", "labkit.")
    assert repr(REPRS[case](labkit)) == expected


def test_repr_example_from_the_brief():
    assert repr(labkit.tensor([1.0, 2.0], requires_grad=True)) == \
        "tensor([1., 2.], requires_grad=True)"


def test_format_of_a_scalar():
    assert f"{labkit.tensor(3.14159):.2f}" == "3.14"


@pytest.mark.parametrize("data", [np.array([1], np.uint32), np.array([1j], np.complex256)])
def test_a_dtype_labkit_lacks_is_refused_at_creation(data):
    """torch has uint32 tensors; labkit has not: say so when the tensor is made (complex
    tensors: tests/test_complex_dtypes.py),
    not later from .dtype or an op."""
    for make in (labkit.tensor, labkit.as_tensor):
        with pytest.raises(TypeError, match="not supported"):
            make(data)
