"""What tutorial repositories (tests/compat/programs/repo_*.py: mrdbourke, yunjey, MorvanZhou,
Atcold...) met on labkit, each compared with torch: numpy scalars in arithmetic, torch.tensor of
lists holding numpy scalars, the *_like factories' `input=`, the shape errors students trigger
on purpose (shape and dtype: their words are torch's, so a search finds them), and the legacy
resize_."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def lib_dtype(t):
    return str(t.dtype).split(".")[-1]


# --- numpy scalars count as Python numbers ------------------------------------------------
SCALAR_CASES = {
    "f32 / np.float64": lambda lib: lib.ones(3) / np.sqrt(np.float64(8)),
    "np.float64 * f32": lambda lib: np.float64(2.5) * lib.ones(3),
    "np.float64 - f32": lambda lib: np.float64(1) - lib.arange(3.0),
    "f32 ** np.float64": lambda lib: lib.arange(3.0) ** np.float64(2),
    "f32 + np.int64": lambda lib: lib.ones(2) + np.int64(3),
    "int32 + np.int64": lambda lib: lib.ones(2, dtype=lib.int32) + np.int64(3),
    "int32 * np.float64": lambda lib: lib.ones(2, dtype=lib.int32) * np.float64(1.5),
    "uint8 + np.int64 wraps": lambda lib: lib.tensor([250], dtype=lib.uint8) + np.int64(10),
    "f16 * np.float32": lambda lib: lib.ones(2, dtype=lib.float16) * np.float32(3),
    "f64 tensor / np.float32": lambda lib: lib.ones(2, dtype=lib.float64) / np.float32(3),
    "0-d f32 * np.float64": lambda lib: lib.tensor(2.0) * np.float64(0.1),
    "int64 > np.float64": lambda lib: lib.arange(3) > np.float64(0.5),
}


@pytest.mark.parametrize("name", list(SCALAR_CASES))
def test_numpy_scalar_promotes_like_a_python_number(name):
    make = SCALAR_CASES[name]
    mine, theirs = make(labkit), make(torch)
    assert lib_dtype(mine) == lib_dtype(theirs)
    np.testing.assert_allclose(mine.numpy().astype(float), theirs.numpy().astype(float), rtol=1e-6)


def test_numpy_scalar_keeps_the_gradient_dtype():
    """Atcold's attention: Q / np.sqrt(d_k) with Q float32, then a float32 matmul and backward."""
    for lib in (labkit, torch):
        lib.manual_seed(0)
        q = lib.randn(2, 4, requires_grad=True)
        out = (q / np.sqrt(np.float64(4))) @ lib.ones(4, 3)
        out.sum().backward()
        assert lib_dtype(out) == "float32" and lib_dtype(q.grad) == "float32"


TENSOR_LISTS = {
    "[np.float64, float]": lambda: [np.float64(0.5), 1.0],
    "[float, np.float32]": lambda: [1.0, np.float32(0.5)],
    "[np.int32, int]": lambda: [np.int32(1), 2],
    "[np.int32, float]": lambda: [np.int32(1), 2.0],
    "[np.float16]": lambda: [np.float16(1)],
    "nested np.float64": lambda: [[np.float64(1)], [2.0]],
    "[np.bool_, bool]": lambda: [np.bool_(True), False],
    "[np.uint8, np.int8]": lambda: [np.uint8(3), np.int8(1)],
    "[np.int64, np.float32]": lambda: [np.int64(1), np.float32(2)],
    "[np.float64, np.float32]": lambda: [np.float64(1), np.float32(2)],
    "float64 arrays": lambda: [np.ones(2), np.zeros(2)],
    "int64 arrays": lambda: [np.arange(2), np.arange(2)],
    "[0-d float64 tensor, float]": lambda: "tensor",
    "python floats only": lambda: [[1.5, 2.0], [3.0, 4.0]],
}


@pytest.mark.parametrize("name", list(TENSOR_LISTS))
def test_tensor_of_a_list_with_numpy_scalars_keeps_their_dtype(name):
    data = TENSOR_LISTS[name]()
    if data == "tensor":
        mine = labkit.tensor([labkit.tensor(1.0, dtype=labkit.float64), 2.0])
        theirs = torch.tensor([torch.tensor(1.0, dtype=torch.float64), 2.0])
    else:
        mine, theirs = labkit.tensor(data), torch.tensor(data)
    assert lib_dtype(mine) == lib_dtype(theirs)
    assert mine.tolist() == theirs.tolist()


# --- factories ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "rand_like",
                                  "randn_like"])
def test_like_factories_take_input_by_keyword(name):
    """mrdbourke 00: torch.zeros_like(input=zero_to_ten)."""
    src = labkit.arange(10.0) if name in ("rand_like", "randn_like") else labkit.arange(10)
    ref = torch.arange(10.0) if name in ("rand_like", "randn_like") else torch.arange(10)
    mine, theirs = getattr(labkit, name)(input=src), getattr(torch, name)(input=ref)
    assert tuple(mine.shape) == tuple(theirs.shape) and lib_dtype(mine) == lib_dtype(theirs)
    full_mine = labkit.full_like(input=src, fill_value=7)
    full_theirs = torch.full_like(input=ref, fill_value=7)
    assert full_mine.tolist() == full_theirs.tolist()


# --- the shape errors tutorials trigger on purpose ----------------------------------------
def _error(lib, fn):
    with pytest.raises(Exception) as info:
        fn(lib)
    return info.value


SHAPE_ERRORS = {
    "matmul 3x2 @ 3x2": lambda lib: lib.matmul(lib.rand(3, 2), lib.rand(3, 2)),
    "mm 3x0 @ 2x2": lambda lib: lib.mm(lib.rand(3, 0), lib.rand(2, 2)),
    "batch @ matrix": lambda lib: lib.rand(2, 3, 4) @ lib.rand(5, 6),
    "vector @ matrix": lambda lib: lib.rand(4) @ lib.rand(5, 6),
    "Linear(3, 6) on (3, 2)": lambda lib: lib.nn.Linear(3, 6)(lib.rand(3, 2)),
    "Linear(3, 6) on (4, 5, 2)": lambda lib: lib.nn.Linear(3, 6)(lib.rand(4, 5, 2)),
    "Linear(3, 6) on (2,)": lambda lib: lib.nn.Linear(3, 6)(lib.rand(2)),
    "F.linear": lambda lib: lib.nn.functional.linear(lib.rand(3, 2), lib.rand(6, 3)),
    "dot 2-D": lambda lib: lib.rand(2, 2).dot(lib.rand(2, 2)),
    "dot 2-D and 1-D": lambda lib: lib.dot(lib.rand(2, 2), lib.rand(4)),
    "dot lengths": lambda lib: lib.rand(3).dot(lib.rand(4)),
    "Linear on uint8": lambda lib: lib.nn.Linear(3, 2)(lib.ones(2, 3, dtype=lib.uint8)),
    "Linear on uint8, wrong shape too": lambda lib: lib.nn.Linear(3, 2)(lib.ones(28, 28, dtype=lib.uint8)),
    "Linear on float64": lambda lib: lib.nn.Linear(3, 2)(lib.ones(2, 3, dtype=lib.float64)),
    "Linear on int64 batch": lambda lib: lib.nn.Linear(3, 2)(lib.ones(4, 2, 3, dtype=lib.long)),
    "matmul float32 @ float64": lambda lib: lib.rand(2, 3) @ lib.rand(3, 2).double(),
    "mm float32 @ uint8": lambda lib: lib.mm(lib.rand(2, 3), lib.ones(3, 2, dtype=lib.uint8)),
    "batch float32 @ float64": lambda lib: lib.rand(2, 2, 3) @ lib.rand(3, 2).double(),
    "mean of int64": lambda lib: lib.tensor([1, 2]).mean(),
    "mean of bool": lambda lib: lib.tensor([True, False]).mean(),
    "mean of uint8 over a dim": lambda lib: lib.ones(2, 3, dtype=lib.uint8).mean(dim=0),
    "var of int64": lambda lib: lib.tensor([1, 2]).var(),
    "std of int32": lambda lib: lib.tensor([1, 2], dtype=lib.int32).std(),
}


@pytest.mark.parametrize("name", list(SHAPE_ERRORS))
def test_shape_errors_carry_torchs_words(name):
    mine, theirs = _error(labkit, SHAPE_ERRORS[name]), _error(torch, SHAPE_ERRORS[name])
    assert type(mine) is type(theirs)
    assert str(theirs).rstrip(".") in str(mine), (str(mine), str(theirs))


def test_dot_of_non_tensors_is_a_type_error():
    for lib in (labkit, torch):
        with pytest.raises(TypeError):
            lib.dot(lib.ones(2), [1.0, 2.0])


# --- resize_ (Atcold's tensor tutorial) ---------------------------------------------------
@pytest.mark.parametrize("new", [(3, 8), (24,), (2, 2, 6), (2, 5), (0,), (4, 8)])
def test_resize_in_place_as_torch(new):
    mine, theirs = labkit.arange(24.0).view(2, 3, 4), torch.arange(24.0).view(2, 3, 4)
    alias_m, alias_t = labkit.Tensor(mine), torch.Tensor(theirs)
    out_m, out_t = alias_m.resize_(*new), alias_t.resize_(*new)
    assert out_m is alias_m and tuple(out_m.shape) == tuple(out_t.shape) == new
    n = min(24, int(np.prod(new)))
    assert out_m.flatten()[:n].tolist() == out_t.flatten()[:n].tolist()
    if np.prod(new) <= 24:      # same memory: a write through the resized tensor shows in both
        out_m.zero_(), out_t.zero_()
        assert mine.tolist() == theirs.tolist()


def test_resize_takes_a_size_and_resize_as_():
    mine, theirs = labkit.arange(6.0), torch.arange(6.0)
    assert mine.resize_(labkit.Size([2, 3])).tolist() == theirs.resize_(torch.Size([2, 3])).tolist()
    assert mine.resize_as_(labkit.ones(3, 2)).tolist() == \
        theirs.resize_as_(torch.ones(3, 2)).tolist()


def test_resize_refuses_a_tensor_that_requires_grad():
    for lib in (labkit, torch):
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            lib.ones(2, 3, requires_grad=True).resize_(3, 2)


# --- clamp_ with tensor bounds (bentrevett's normalize_image) ------------------------------
@pytest.mark.parametrize("bounds", ["0-d both", "min only", "broadcast rows/cols"])
def test_clamp_in_place_with_tensor_bounds(bounds):
    results = []
    for lib in (labkit, torch):
        lib.manual_seed(0)
        x = lib.rand(2, 3)
        lo, hi = {"0-d both": (lib.tensor(0.3), lib.tensor(0.6)),
                  "min only": (lib.full((3,), 0.4), None),
                  "broadcast rows/cols": (lib.zeros(3), lib.full((2, 1), 0.5))}[bounds]
        a = lib.rand(2, 3, requires_grad=True)
        b = a * 2
        out = b.clamp_(min=lo, max=hi)
        g = lib.arange(6.0).view(2, 3)
        b.backward(g)
        results.append((x.clamp_(min=lo, max=hi).tolist(), out is b, b.tolist(), a.grad.tolist()))
    assert results[0] == results[1]
