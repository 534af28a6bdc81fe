"""labkit.engine.promotion against torch.result_type: every dtype pair, in every priority
position (dimensioned tensor, 0-d tensor, Python scalar), and the binary ops that use it."""
import itertools

import numpy as np
import pytest

import labkit
from labkit.engine.promotion import promote_types, result_type

torch = pytest.importorskip("torch")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
SCALARS = [True, 3, -1, 2.5]


def _pair(name, zero_d):
    shape = () if zero_d else (2,)
    return (labkit.zeros(shape, dtype=getattr(labkit, name)),
            torch.zeros(shape, dtype=getattr(torch, name)))


@pytest.mark.parametrize("a,b", list(itertools.product(NAMES, NAMES)))
def test_promote_types_every_pair(a, b):
    want = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert str(promote_types(a, b)).split(".")[1].replace("bool_", "bool") == str(want).split(".")[1]


def _name(d):
    return str(d).split(".")[1].replace("bool_", "bool")


@pytest.mark.parametrize("za,zb", [(False, False), (False, True), (True, False), (True, True)])
def test_result_type_tensor_pairs(za, zb):
    """dimensioned before 0-d: a 0-d tensor widens only across a category boundary."""
    for a, b in itertools.product(NAMES, NAMES):
        la, ta = _pair(a, za)
        lb, tb = _pair(b, zb)
        assert _name(result_type(la, lb)) == _name(torch.result_type(ta, tb)), (a, za, b, zb)


@pytest.mark.parametrize("zero_d", [False, True])
def test_result_type_tensor_and_python_scalar(zero_d):
    for a, s in itertools.product(NAMES, SCALARS):
        la, ta = _pair(a, zero_d)
        assert _name(result_type(la, s)) == _name(torch.result_type(ta, s)), (a, zero_d, s)
        assert _name(result_type(s, la)) == _name(torch.result_type(s, ta)), (s, a, zero_d)


def test_result_type_three_operands():
    """A dimensioned tensor and two 0-d tensors at once: torch's addcmul promotes all three
    together, so its result dtype is the oracle."""
    for a, b, c in itertools.product(NAMES[1:], NAMES[1:], ["uint8", "int64", "float64"]):
        la, ta = _pair(a, False)
        lb, tb = _pair(b, True)
        lc, tc = _pair(c, True)
        assert _name(result_type(la, lb, lc)) == _name(torch.addcmul(ta, tb, tc).dtype), (a, b, c)


def _t(name, zero_d, values):
    arr = np.asarray(values if not zero_d else values[0], dtype=name)
    return labkit.tensor(arr), torch.tensor(arr)


OPS = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
       "div": lambda x, y: x / y, "eq": lambda x, y: x == y, "lt": lambda x, y: x < y,
       "maximum": lambda x, y: x.maximum(y) if hasattr(x, "maximum") else x}


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "eq", "lt"])
def test_binary_ops_follow_the_table(op):
    """Values and dtypes of the arithmetic and comparison ops for every dtype pair and
    priority position, with values (255, 1, 3) that show wrap-around and 0-d promotion."""
    fn = OPS[op]
    for a, b in itertools.product(NAMES, NAMES):
        if op == "sub" and "bool" in (a, b):
            continue
        for za, zb in [(False, False), (False, True), (True, False)]:
            la, ta = _t(a, za, [255 if a == "uint8" else 1, 1, 3] if a != "bool" else [1, 0, 1])
            lb, tb = _t(b, zb, [2, 3, 1] if b != "bool" else [1, 1, 0])
            want = fn(ta, tb)
            got = fn(la, lb)
            assert _name(got.dtype) == _name(want.dtype), (op, a, za, b, zb)
            np.testing.assert_allclose(got.numpy().astype(float), want.numpy().astype(float),
                                       rtol=1e-3, err_msg=str((op, a, za, b, zb)))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "eq", "lt"])
def test_binary_ops_with_python_scalars(op):
    fn = OPS[op]
    for a, s in itertools.product(NAMES, [True, 300, -1, 2.5]):
        if op == "sub" and (a == "bool" or s is True):
            continue
        for zero_d in (False, True):
            la, ta = _t(a, zero_d, [1, 0, 1] if a == "bool" else [7, 1, 3])
            for left in (True, False):
                if left:
                    want, got = fn(ta, s), fn(la, s)
                else:
                    want, got = fn(s, ta), fn(s, la)
                assert _name(got.dtype) == _name(want.dtype), (op, a, zero_d, s, left)
                np.testing.assert_allclose(got.numpy().astype(float), want.numpy().astype(float),
                                           rtol=1e-3, err_msg=str((op, a, zero_d, s, left)))
