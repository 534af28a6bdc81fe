"""torch.div(..., rounding_mode=) and Tensor.div_(..., rounding_mode=) against torch: floor is
Python's exact a // b (not floor(a / b)), trunc rounds toward zero, integer dtypes stay integer,
the gradient is zero, and the errors match."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("mode", ["floor", "trunc", None])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((), (2,)), ((0, 3), (3,))])
def test_float_values_dtypes_and_zero_gradients(mode, shapes, device):
    check_op(lambda a, b: labkit.div(a, b, rounding_mode=mode),
             lambda a, b: torch.div(a, b, rounding_mode=mode),
             [rand_array(shapes[0], 1, -9, 9), rand_array(shapes[1], 2, away_from=[0.0])], device=device)


@pytest.mark.parametrize("mode", ["floor", "trunc"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_integers_stay_integers(mode, dtype):
    a_vals, b_vals = [-7, 7, 5, 0, -9, 100], [2, -2, -3, 4, 3, 7]
    if dtype == "uint8":
        a_vals, b_vals = [abs(v) for v in a_vals], [abs(v) for v in b_vals]
    for other in (b_vals, 2, -3, 2.5):
        mine = labkit.tensor(a_vals, dtype=getattr(labkit, dtype))
        theirs = torch.tensor(a_vals, dtype=getattr(torch, dtype))
        mo = labkit.tensor(other, dtype=mine.dtype) if isinstance(other, list) else other
        to = torch.tensor(other, dtype=theirs.dtype) if isinstance(other, list) else other
        r_mine, r_theirs = mine.div(mo, rounding_mode=mode), theirs.div(to, rounding_mode=mode)
        assert r_mine.tolist() == r_theirs.tolist()
        assert str(r_mine.dtype).split(".")[-1] == str(r_theirs.dtype).split(".")[-1]


def test_floor_is_exact_where_floor_of_the_quotient_rounds_up():
    assert labkit.div(labkit.tensor([1.0]), 0.1, rounding_mode="floor").item() == \
        torch.div(torch.tensor([1.0]), 0.1, rounding_mode="floor").item() == 9.0


def test_in_place_and_aliases():
    for mode in ("floor", "trunc"):
        out = []
        for lib in (labkit, torch):
            a = lib.tensor([-7, 9])
            a.div_(2, rounding_mode=mode)
            b = lib.tensor([-7.0, 9.0])
            b.divide_(lib.tensor([2.0, -4.0]), rounding_mode=mode)
            out.append((a.tolist(), b.tolist(), lib.divide(lib.tensor([7]), 2).tolist(),
                        lib.true_divide(lib.tensor([7]), 2).tolist()))
        assert out[0] == out[1]


@pytest.mark.parametrize("call", [
    lambda lib: lib.div(lib.tensor([1]), lib.tensor([2]), rounding_mode="round"),
    lambda lib: lib.div(lib.tensor([1, 2]), lib.tensor([0, 1]), rounding_mode="trunc"),
    lambda lib: lib.div(lib.tensor([1, 2]), lib.tensor([0, 1]), rounding_mode="floor"),
    lambda lib: lib.tensor([1, 2]).div_(2.5, rounding_mode="floor"),
    lambda lib: lib.tensor([1, 2]).div_(2),
])
def test_errors_like_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(labkit)


def test_division_by_zero_in_floats_gives_torchs_inf_and_nan():
    a = np.array([1.0, -1.0, 0.0])
    for mode in ("floor", "trunc"):
        mine = labkit.div(labkit.tensor(a), 0.0, rounding_mode=mode).numpy()
        theirs = torch.div(torch.tensor(a), 0.0, rounding_mode=mode).numpy()
        np.testing.assert_array_equal(mine, theirs)
