"""torch.tensor(list holding tensors) against torch: each tensor stands for its one value,
whatever its shape (tensor([t]) with t of shape (1,) or (1, 1) is 1-D), at any nesting depth,
mixed with Python numbers, keeping the tensors' dtypes by promotion; a tensor of several (or
zero) elements is torch's ValueError. MIT 6.S191 lab 1's loop `x = torch.tensor([x], ...)`
relies on the shape staying (1,)."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def _cases(lib):
    return {
        "one (1,)": lambda: lib.tensor([lib.ones(1)]),
        "two (1,)": lambda: lib.tensor([lib.ones(1), lib.full((1,), 3.0)]),
        "(1, 1)": lambda: lib.tensor([lib.ones(1, 1) * 2]),
        "0-d": lambda: lib.tensor([lib.tensor(5)]),
        "nested": lambda: lib.tensor([[lib.ones(1)], [lib.zeros(1, 1)]]),
        "with numbers": lambda: lib.tensor([lib.ones(1), 2.5, 3]),
        "number first": lambda: lib.tensor([2, lib.tensor([7])]),
        "int32": lambda: lib.tensor([lib.tensor([4], dtype=lib.int32)]),
        "int32 and float": lambda: lib.tensor([lib.tensor([4], dtype=lib.int32), 1.5]),
        "float64": lambda: lib.tensor([lib.tensor([[0.1]], dtype=lib.float64)]),
        "bool": lambda: lib.tensor([lib.tensor([True]), lib.tensor(False)]),
        "requires grad": lambda: lib.tensor([lib.ones(1, requires_grad=True) * 3]),
        "dtype=": lambda: lib.tensor([lib.ones(1)], dtype=lib.float64),
    }


@pytest.mark.parametrize("name", list(_cases(torch)))
def test_matches_torch(name):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = _cases(torch)[name]()
        a = _cases(labkit)[name]()
    assert tuple(a.shape) == tuple(t.shape)
    assert str(a.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(a.numpy(), t.numpy())
    assert not a.requires_grad


@pytest.mark.parametrize("shape", [(2,), (1, 2), (0,)])
def test_several_elements_is_an_error(shape):
    for lib in (torch, labkit):
        with pytest.raises(ValueError, match="only one element tensors"):
            lib.tensor([lib.ones(shape)])


def test_gradient_descent_loop_keeps_its_shape():
    out = []
    for lib in (torch, labkit):
        lib.manual_seed(0)
        x = lib.tensor([0.5])
        for _ in range(20):
            x = lib.tensor([x], requires_grad=True)
            loss = (x - 4) ** 2
            loss.backward()
            x = x.item() - 1e-1 * x.grad
        out.append((tuple(x.shape), float(x)))
    assert out[0][0] == out[1][0] == (1,)
    assert abs(out[0][1] - out[1][1]) < 1e-6
