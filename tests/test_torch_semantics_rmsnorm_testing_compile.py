"""nn.RMSNorm / F.rms_norm against torch (values, gradients, half precision, eps=None, errors,
repr); torch.testing.assert_close (tolerances per dtype, torch's messages and exception types);
torch.compile (runs eagerly, wraps modules as OptimizedModule with "_orig_mod." keys)."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape,normalized", [((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)), ((5,), (5,)),
                                              ((0, 4), (4,))])
@pytest.mark.parametrize("eps", [None, 1e-5, 0.5])
def test_rms_norm_values_and_gradients(shape, normalized, eps, device):
    n = normalized
    check_op(lambda x, w: labkit.nn.functional.rms_norm(x, normalized, w, eps),
             lambda x, w: torch.nn.functional.rms_norm(x, normalized, w, eps),
             [rand_array(shape, 1), rand_array(n, 2)], device=device)
    check_op(lambda x: labkit.nn.functional.rms_norm(x, normalized, eps=eps),
             lambda x: torch.nn.functional.rms_norm(x, normalized, eps=eps), [rand_array(shape, 3)])


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_rms_norm_module_in_low_precision(dtype):
    x = rand_array((3, 8), 4)
    mine = labkit.nn.RMSNorm(8, dtype=getattr(labkit, dtype))(labkit.tensor(x, dtype=getattr(labkit, dtype)))
    theirs = torch.nn.RMSNorm(8, dtype=getattr(torch, dtype))(torch.tensor(x, dtype=getattr(torch, dtype)))
    assert mine.dtype.name == dtype
    np.testing.assert_allclose(mine.float().detach().numpy(), theirs.float().detach().numpy(),
                               rtol=1e-2 if dtype != "float32" else 1e-6, atol=1e-6)


def test_rms_norm_module_repr_parameters_and_errors():
    for args in [(4,), ((2, 3),), (4, 1e-6, False)]:
        mine, theirs = labkit.nn.RMSNorm(*args), torch.nn.RMSNorm(*args)
        assert repr(mine) == repr(theirs)
        assert [n for n, _ in mine.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    for lib in (torch, labkit):
        with pytest.raises(RuntimeError):
            lib.nn.functional.rms_norm(lib.ones(2, 3), (4,))
        with pytest.raises(RuntimeError):
            lib.nn.functional.rms_norm(lib.ones(2, 3), (3,), lib.ones(2))
        with pytest.raises(TypeError):
            lib.nn.functional.rms_norm(lib.ones(2, 3), 3)


def _message(lib, *args, **kwargs):
    try:
        lib.testing.assert_close(*args, **kwargs)
    except Exception as e:
        return type(e), str(e).replace("torch.", "labkit.")
    return None


@pytest.mark.parametrize("make", [
    lambda lib: (lib.tensor([1.0, 2.0, 3.0]), lib.tensor([1.0, 2.1, 3.0])),
    lambda lib: (lib.ones(2), lib.ones(3)),
    lambda lib: (lib.ones(2), lib.ones(2, dtype=lib.float64)),
    lambda lib: (lib.tensor([1, 2]), lib.tensor([1, 3])),
    lambda lib: (lib.tensor([float("nan")]), lib.tensor([float("nan")])),
    lambda lib: ([lib.ones(1)], [lib.ones(1) * 2]),
    lambda lib: ({"a": lib.ones(1)}, {"a": lib.ones(1)}),
    lambda lib: (1.0, 1.0000001),
    lambda lib: (lib.ones(2, 2), lib.ones(2, 2).t()),
    lambda lib: (lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0]).requires_grad_()),
    lambda lib: (lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0 + 1e-6])),
    lambda lib: (lib.tensor([1.0, 2.0], dtype=lib.float16), lib.tensor([1.0, 2.001], dtype=lib.float16)),
], ids=["close", "shape", "dtype", "int", "nan", "list", "dict", "scalars", "view", "grad",
        "float32-tol", "float16-tol"])
def test_assert_close_passes_and_fails_like_torch(make):
    assert _message(labkit, *make(labkit)) == _message(torch, *make(torch))


@pytest.mark.parametrize("kwargs", [dict(rtol=0.1), dict(equal_nan=True), dict(msg="custom"),
                                    dict(check_dtype=False), dict(rtol=0.0, atol=0.2)])
def test_assert_close_options_like_torch(kwargs):
    for make in (lambda lib: (lib.tensor([float("nan"), 1.0]), lib.tensor([float("nan"), 1.1])),
                 lambda lib: (lib.ones(2), lib.ones(2, dtype=lib.float64))):
        mine = _message(labkit, *make(labkit), **kwargs)
        theirs = _message(torch, *make(torch), **kwargs)
        assert (mine and mine[0]) == (theirs and theirs[0])
    with pytest.raises(TypeError):
        labkit.testing.assert_close(labkit.tensor(1.0), 1.0)


def test_compile_runs_eagerly_and_wraps_modules_like_torch():
    lk, th = labkit.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    c_lk, c_th = labkit.compile(lk), torch.compile(th, backend="eager")
    assert type(c_lk).__name__ == type(c_th).__name__ == "OptimizedModule"
    assert c_lk._orig_mod is lk and c_th._orig_mod is th
    assert list(c_lk.state_dict()) == list(c_th.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    assert c_lk.in_features == 3 and c_lk.weight is lk.weight
    x = labkit.randn(4, 3)
    assert labkit.equal(c_lk(x), lk(x))

    @labkit.compile(mode="reduce-overhead")
    def f(a):
        return a * 2
    assert f(labkit.ones(2)).tolist() == [2.0, 2.0]
    assert labkit.compile(lk, disable=True) is lk
    for lib in (torch, labkit):
        with pytest.raises(RuntimeError):
            lib.compile(lk if lib is labkit else th, mode="fastest")
