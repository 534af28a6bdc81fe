"""bincount and one_hot (labkit.nn.functional.one_hot too) against torch: values, dtypes,
edge cases and errors."""
import numpy as np
import pytest

import labkit
import labkit.nn.functional as F

torch = pytest.importorskip("torch")


def _same(got, want):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy())


@pytest.mark.parametrize("data,kw", [([0, 1, 1, 3], {}), ([2, 2], {"minlength": 5}), ([], {}),
                                     ([], {"minlength": 3}), ([4], {"minlength": 2})], ids=str)
def test_bincount(device, data, kw):
    got = labkit.bincount(labkit.tensor(data, dtype=labkit.int64, device=device), **kw)
    _same(got, torch.bincount(torch.tensor(data, dtype=torch.int64), **kw))


@pytest.mark.parametrize("wdtype", ["float32", "float64", "int64"])
def test_bincount_with_weights(device, wdtype):
    x, w = np.array([0, 2, 2, 1]), np.array([0.5, 1, 2, 3]).astype(wdtype)
    got = labkit.tensor(x, device=device).bincount(labkit.tensor(w, device=device))
    _same(got, torch.tensor(x).bincount(torch.tensor(w)))


@pytest.mark.parametrize("call", [
    lambda M: M.bincount(M.tensor([-1, 2])),
    lambda M: M.bincount(M.tensor([[1, 2]])),
    lambda M: M.bincount(M.tensor([1.0, 2.0])),
    lambda M: M.bincount(M.tensor([1, 2]), M.tensor([1.0])),
])
def test_bincount_errors_like_torch(call):
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError, match="bincount"):
        call(labkit)


@pytest.mark.parametrize("data,n", [([0, 2, 1], -1), ([0, 2, 1], 5), ([[1, 0], [0, 0]], 2),
                                    (3, 4), ([], 3)], ids=str)
def test_one_hot(device, data, n):
    got = F.one_hot(labkit.tensor(data, dtype=labkit.int64, device=device), n)
    _same(got, torch.nn.functional.one_hot(torch.tensor(data, dtype=torch.int64), n))


@pytest.mark.parametrize("call", [
    lambda F, M: F.one_hot(M.tensor([0, 3]), 3),
    lambda F, M: F.one_hot(M.tensor([-1, 0])),
    lambda F, M: F.one_hot(M.tensor([0.0, 1.0])),
    lambda F, M: F.one_hot(M.tensor([], dtype=M.int64)),
])
def test_one_hot_errors_like_torch(call):
    with pytest.raises(RuntimeError):
        call(torch.nn.functional, torch)
    with pytest.raises(RuntimeError, match="one_hot"):
        call(F, labkit)


def test_one_hot_result_feeds_a_float_loss():
    y = F.one_hot(labkit.tensor([1, 0]), 3).float()
    assert y.dtype == labkit.float32 and y.tolist() == [[0, 1, 0], [1, 0, 0]]
