"""Torch's keyword spellings of shape arguments (x.reshape(shape=...), x.view(size=...),
x.permute(dims=...), x.expand(size=...), x.split(split_size=...)) and numpy-style aliases
torch accepts (axis=, keepdims=): valid torch code must run, with torch's values."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

CALLS = [
    "x.reshape(shape=(4, 3))", "x.reshape(4, 3)", "x.reshape((4, 3))", "L.reshape(x, (2, -1))",
    "x.view(size=(4, 3))", "x.view(-1)", "x.view((2, 6))",
    "x.permute(dims=(1, 0))", "x.permute(1, 0)", "x.permute((1, 0))", "L.permute(x, (1, 0))",
    "x.expand(size=(2, 3, 4))", "x.expand(2, 3, 4)", "x.expand((2, -1, -1))",
    "x.split(split_size=2, dim=1)[1]", "x.split(2, 1)[0]", "L.split(x, [1, 2], dim=0)[1]",
    "x.sum(axis=0)", "x.mean(axis=1, keepdims=True)", "x.max(axis=0).values", "x.std(axis=0)",
    "L.cat([x, x], axis=0)", "x.argmax(axis=1)", "x.cumsum(axis=0)", "x.amax(axis=0)",
    "x.all(axis=1)",
]


@pytest.mark.parametrize("call", CALLS)
def test_keyword_spellings_run_with_torchs_values(call):
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = [eval(call, {"L": L, "x": L.tensor(arr)}) for L in (labkit, torch)]
    assert tuple(got[0].shape) == tuple(got[1].shape)
    np.testing.assert_array_equal(got[0].numpy(), got[1].numpy())


def test_split_without_a_size_is_a_type_error_as_torch():
    for L in (labkit, torch):
        with pytest.raises(TypeError, match="missing 1 required positional argument"):
            L.ones(3).split()


@pytest.mark.parametrize("expr", ["s[1:]", "s[::-1]", "s + (5,)", "(1,) + s", "s * 2", "2 * s",
                                  "s[0]", "s[-1]", "s == (2, 3, 4)", "s.numel()"])
def test_size_arithmetic_and_slices_stay_sizes_as_torch(expr):
    got = [eval(expr, {"s": L.ones(2, 3, 4).shape}) for L in (labkit, torch)]
    assert got[0] == got[1]
    assert type(got[0]).__name__ == type(got[1]).__name__


def test_size_plus_a_list_is_a_type_error_as_torch():
    for L in (labkit, torch):
        with pytest.raises(TypeError):
            L.ones(2).shape + [5]
