"""default_collate and default_convert: the same structures, shapes, dtypes and values as
torch.utils.data's, and errors that say which field of which sample does not fit."""
import collections

import numpy as np
import pytest

import labkit
from labkit.utils.data import default_collate, default_convert

Point = collections.namedtuple("Point", "x y")


def _samples(lib):
    """The same batches, built from labkit or torch tensors."""
    t = lambda a: lib.tensor(np.asarray(a))                      # noqa: E731
    return [
        [t([1.0, 2.0]), t([3.0, 4.0])],                             # tensors
        [np.arange(3), np.arange(3) + 1],                            # numpy int arrays
        [np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)],
        [np.float32(1.5), np.float32(2.5)],                          # numpy scalars
        [np.int16(3), np.int16(4)],
        [1, 2, 3],                                                   # ints -> int64
        [1.5, 2.5],                                                  # floats -> float64
        [True, False],                                               # bools -> bool
        ["a", "b"],                                                  # strings stay a list
        [(t([1.0]), 0), (t([2.0]), 1)],                              # (x, y) tuples -> list
        [[1, 2.0], [3, 4.0]],                                        # lists, field by field
        [{"x": np.array([1.0, 2.0]), "y": 3}, {"x": np.array([4.0, 5.0]), "y": 6}],
        [Point(1, 2.0), Point(3, 4.0)],                              # namedtuples kept
        [{"pair": (1, [2.0, 3.0])}, {"pair": (4, [5.0, 6.0])}],      # nested
    ]


def _norm(x):
    """A structure's skeleton with its leaves as (dtype name, shape, values)."""
    if hasattr(x, "detach"):
        a = x.detach().numpy()
        return ("tensor", str(x.dtype).split(".")[-1], a.shape, a.tolist())
    if isinstance(x, dict):
        return {k: _norm(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__, [_norm(v) for v in x])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_norm(v) for v in x])
    return x


@pytest.mark.parametrize("case", range(len(_samples(labkit))))
def test_default_collate_matches_torch(case):
    torch = pytest.importorskip("torch")
    from torch.utils.data import default_collate as torch_collate
    ours = default_collate(_samples(labkit)[case])
    theirs = torch_collate(_samples(torch)[case])
    assert _norm(ours) == _norm(theirs)


@pytest.mark.parametrize("sample", [np.arange(3), np.float64(2.0), {"a": np.ones(2)},
                                    (np.zeros(1), "s"), 7])
def test_default_convert_matches_torch(sample):
    pytest.importorskip("torch")
    from torch.utils.data import default_convert as torch_convert
    assert _norm(default_convert(sample)) == _norm(torch_convert(sample))


def test_collate_stacks_to_a_new_first_dim():
    batch = default_collate([labkit.ones(2, 3)] * 4)
    assert tuple(batch.shape) == (4, 2, 3)


@pytest.mark.parametrize("batch, error, match", [
    ([labkit.ones(3), labkit.ones(3), labkit.ones(5)], RuntimeError,
     r"samples 0 and 2 have different shapes, \[3\] and \[5\].*pad"),
    ([{"ids": np.ones(2)}, {"ids": np.ones(4)}], RuntimeError,
     r"different shapes in field \['ids'\], \[2\] and \[4\]"),
    ([[1, 2], [1, 2, 3]], RuntimeError, "sequences of different lengths, 2 and 3"),
    ([{"a": 1}, {"b": 1}], KeyError, "different keys"),
    ([None, None], TypeError, "found NoneType"),
    ([object()], TypeError, "collate_fn"),
    ([np.array(["x"])], TypeError, "dtype <U1"),
    ([], ValueError, "empty batch"),
])
def test_collate_errors_name_the_cause_and_the_fix(batch, error, match):
    with pytest.raises(error, match=match):
        default_collate(batch)


def test_another_librarys_tensors_collate_into_labkit_tensors():
    """torchvision's ToTensor gives torch tensors: the DataLoader batches their values as
    labkit tensors (dtype and shape kept, a tensor that requires grad read without it), in
    tuples and dicts alike; torch's own DataLoader gives the same values."""
    torch = pytest.importorskip("torch")
    samples = [(torch.arange(6, dtype=torch.float32).reshape(2, 3) * i, i,
                {"m": torch.tensor([i, 2 * i], dtype=torch.int16),
                 "g": torch.tensor(0.5 * i, requires_grad=True)}) for i in range(4)]
    mine = next(iter(labkit.utils.data.DataLoader(samples, batch_size=3)))
    theirs = next(iter(torch.utils.data.DataLoader(samples, batch_size=3)))
    assert isinstance(mine[0], labkit.Tensor) and isinstance(mine[2]["m"], labkit.Tensor)
    for m, t in ((mine[0], theirs[0]), (mine[1], theirs[1]), (mine[2]["m"], theirs[2]["m"]),
                 (mine[2]["g"], theirs[2]["g"])):
        assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        assert tuple(m.shape) == tuple(t.shape)
        np.testing.assert_array_equal(m.numpy(), t.detach().numpy())
    assert not mine[2]["g"].requires_grad
