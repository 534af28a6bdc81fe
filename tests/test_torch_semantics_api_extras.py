"""Small torch functions against torch: dtype questions (is_floating_point, promote_types,
result_type, can_cast, dtype.itemsize/is_signed, Tensor.nbytes/itemsize), tril/triu_indices,
aminmax, nanmean/nansum (values and gradients), logspace, randint_like, reshape_as,
take_along_dim, torch.random.fork_rng, torch.version, rnn.unpad_sequence/unpack_sequence,
StackDataset, torch.utils.checkpoint as an attribute."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]


@pytest.mark.parametrize("a", DTYPES)
def test_dtype_questions(a):
    for b in DTYPES:
        A, B = getattr(labkit, a), getattr(labkit, b)
        TA, TB = getattr(torch, a), getattr(torch, b)
        assert labkit.promote_types(A, B).name == str(torch.promote_types(TA, TB)).split(".")[-1]
        assert labkit.can_cast(A, B) == torch.can_cast(TA, TB), (a, b)
    assert getattr(labkit, a).itemsize == getattr(torch, a).itemsize
    assert getattr(labkit, a).is_signed == getattr(torch, a).is_signed
    x, t = labkit.zeros(3, 2, dtype=getattr(labkit, a)), torch.zeros(3, 2, dtype=getattr(torch, a))
    assert (x.nbytes, x.itemsize) == (t.nbytes, t.itemsize)
    assert labkit.is_floating_point(x) == torch.is_floating_point(t)
    assert labkit.is_complex(x) is torch.is_complex(t) is False


def test_result_type_and_errors():
    for ops in [(labkit.tensor([1], dtype=labkit.int32), 1.0), (2, 3.0), (labkit.tensor(1.0), labkit.tensor([1], dtype=labkit.int8)),
                (labkit.tensor([1], dtype=labkit.uint8), labkit.tensor([1], dtype=labkit.int8)), (True, 2)]:
        tops = tuple(torch.tensor(o.numpy()) if isinstance(o, labkit.Tensor) else o for o in ops)
        assert labkit.result_type(*ops).name == str(torch.result_type(*tops)).split(".")[-1]
    for lib in (torch, labkit):
        with pytest.raises(TypeError):
            lib.is_floating_point(1.0)


@pytest.mark.parametrize("row,col,offset", [(3, 3, 0), (3, 4, 1), (4, 3, -1), (0, 3, 0), (2, 5, -3)])
def test_tril_triu_indices(row, col, offset):
    for name in ("tril_indices", "triu_indices"):
        mine = getattr(labkit, name)(row, col, offset)
        theirs = getattr(torch, name)(row, col, offset)
        assert mine.tolist() == theirs.tolist() and mine.dtype == labkit.int64
        assert tuple(mine.shape) == tuple(theirs.shape)


def test_aminmax_nanmean_nansum():
    check_op(lambda x: tuple(labkit.aminmax(x, dim=1)), lambda x: tuple(torch.aminmax(x, dim=1)),
             [rand_array((3, 4))])
    check_op(lambda x: tuple(x.aminmax()), lambda x: tuple(x.aminmax()), [rand_array((3, 4))])
    a = rand_array((3, 4))
    a[0, 1] = a[2, 3] = np.nan
    for dim in (None, 0, 1):
        check_op(lambda x: labkit.nanmean(x, dim), lambda x: torch.nanmean(x, dim), [a])
        check_op(lambda x: labkit.nansum(x, dim), lambda x: torch.nansum(x, dim), [a])
    assert labkit.nansum(labkit.tensor([1, 2])).item() == 3
    for lib in (torch, labkit):
        with pytest.raises(RuntimeError):
            lib.aminmax(lib.zeros(0))
        with pytest.raises(RuntimeError):
            lib.nanmean(lib.tensor([1, 2]))


def test_logspace_randint_like_reshape_as_take_along_dim():
    for args in [(0, 2, 3), (0, 1, 5, 2), (-1, 1, 4)]:
        np.testing.assert_allclose(labkit.logspace(*args).numpy(), torch.logspace(*args).numpy(), rtol=1e-6)
    assert labkit.logspace(0, 2, 3, dtype=labkit.float64).dtype == labkit.float64
    labkit.manual_seed(3)
    torch.manual_seed(3)
    mine, theirs = labkit.randint_like(labkit.ones(2, 3), 10), torch.randint_like(torch.ones(2, 3), 10)
    assert mine.tolist() == theirs.tolist() and mine.dtype == labkit.float32
    mine, theirs = labkit.randint_like(labkit.ones(4, dtype=labkit.int64), 3, 9), \
        torch.randint_like(torch.ones(4, dtype=torch.int64), 3, 9)
    assert mine.tolist() == theirs.tolist()
    check_op(lambda x, y: x.reshape_as(y), lambda x, y: x.reshape_as(y),
             [rand_array((2, 6)), rand_array((3, 4))], requires_grad=[True, False])
    idx = np.array([[0, 2], [1, 1], [3, 0]], dtype=np.int64)
    check_op(lambda x, i: labkit.take_along_dim(x, i, dim=1), lambda x, i: torch.take_along_dim(x, i, dim=1),
             [rand_array((3, 4)), idx])
    check_op(lambda x, i: labkit.take_along_dim(x, i), lambda x, i: torch.take_along_dim(x, i),
             [rand_array((3, 4)), idx])
    check_op(lambda x, i: x.take_along_dim(i, 0), lambda x, i: x.take_along_dim(i, 0),
             [rand_array((3, 1)), np.array([[2, 0, 1]], dtype=np.int64)])


def test_fork_rng_version_and_checkpoint_attribute():
    labkit.manual_seed(0)
    with labkit.random.fork_rng():
        a = labkit.rand(3)
    b = labkit.rand(3)
    assert labkit.equal(a, b)
    assert labkit.random.initial_seed() == 0
    assert labkit.version.cuda is None and isinstance(labkit.version.__version__, str)
    assert callable(labkit.utils.checkpoint.checkpoint_sequential)


def test_unpad_unpack_sequence_and_stack_dataset():
    seqs = [labkit.tensor([1.0, 2.0, 3.0]), labkit.tensor([4.0]), labkit.tensor([5.0, 6.0])]
    tseqs = [torch.tensor(s.numpy()) for s in seqs]
    rnn, trnn = labkit.nn.utils.rnn, torch.nn.utils.rnn
    for bf in (False, True):
        mine = rnn.unpad_sequence(rnn.pad_sequence(seqs, batch_first=bf), labkit.tensor([3, 1, 2]), batch_first=bf)
        theirs = trnn.unpad_sequence(trnn.pad_sequence(tseqs, batch_first=bf), torch.tensor([3, 1, 2]), batch_first=bf)
        assert [m.tolist() for m in mine] == [t.tolist() for t in theirs]
    mine = rnn.unpack_sequence(rnn.pack_sequence(seqs, enforce_sorted=False))
    theirs = trnn.unpack_sequence(trnn.pack_sequence(tseqs, enforce_sorted=False))
    assert [m.tolist() for m in mine] == [t.tolist() for t in theirs]
    ds = labkit.utils.data.StackDataset(labkit.arange(3), [10, 20, 30])
    assert len(ds) == 3 and ds[1][0].item() == 1 and ds[1][1] == 20
    dd = labkit.utils.data.StackDataset(x=labkit.arange(3), y=[10, 20, 30])
    assert set(dd[2]) == {"x", "y"} and dd[2]["y"] == 30
    batch = next(iter(labkit.utils.data.DataLoader(dd, batch_size=3)))
    assert batch["y"].tolist() == [10, 20, 30]
    for lib in (torch, labkit):
        with pytest.raises(ValueError):
            lib.utils.data.StackDataset(lib.arange(3), [1])
