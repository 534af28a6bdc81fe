"""einsum with operands of different dtypes, as torch: promoted when no letter is summed over two
operands (an outer product, x-transformers' einsum('i, j -> i j', int positions, float
frequencies)), torch's error when one is (a contraction needs one dtype); gradients come back
in each operand's own dtype."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

CASES = [
    ("i,j->ij", ("int64", "float32")),
    ("i,j->ij", ("float32", "float64")),
    ("i,j->ij", ("float32", "float16")),
    ("i,j->ij", ("bool", "float32")),
    ("i,i->i", ("int64", "float32")),
    ("i,j->", ("int64", "float32")),
    ("i,j,k->ijk", ("int64", "float32", "float64")),
    ("bi,bj->bij", ("float64", "float32")),
    ("i,i->", ("int64", "float32")),
    ("i,i->", ("float32", "float64")),
    ("ij,jk->ik", ("int32", "int64")),
    ("ij,j->i", ("float32", "int64")),
]


def _operands(M, eq, dtypes):
    terms = eq.split("->")[0].split(",")
    rng = np.random.default_rng(0)
    return [M.tensor((rng.standard_normal([3] * len(t)) > 0 if d == "bool"
                      else rng.integers(-3, 4, [3] * len(t)) if d.startswith("int")
                      else rng.standard_normal([3] * len(t))).astype(d)) for t, d in zip(terms, dtypes)]


@pytest.mark.parametrize("eq,dtypes", CASES)
def test_mixed_dtype_einsum_like_torch(eq, dtypes):
    try:
        ref = torch.einsum(eq, *_operands(torch, eq, dtypes))
    except RuntimeError:
        with pytest.raises(RuntimeError, match="same dtype"):
            labkit.einsum(eq, *_operands(labkit, eq, dtypes))
        return
    mine = labkit.einsum(eq, *_operands(labkit, eq, dtypes))
    assert str(mine.dtype).split(".")[1] == str(ref.dtype).split(".")[1]
    np.testing.assert_allclose(mine.numpy().astype(np.float64), ref.numpy().astype(np.float64),
                               rtol=1e-3, atol=1e-3)


def test_promoted_einsum_gradients_keep_each_operands_dtype():
    grads = []
    for M in (labkit, torch):
        a = M.tensor(np.arange(1.0, 4.0), dtype=M.float32, requires_grad=True)
        b = M.tensor(np.array([0.5, -2.0]), dtype=M.float64, requires_grad=True)
        out = M.einsum("i,j->ij", a, b)
        out.backward(M.tensor(np.arange(6.0).reshape(3, 2)))
        assert a.grad.dtype == M.float32 and b.grad.dtype == M.float64
        grads.append((a.grad.numpy(), b.grad.numpy()))
    for mine, ref in zip(*grads):
        np.testing.assert_allclose(mine, ref, rtol=1e-6)
