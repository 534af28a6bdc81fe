"""Datasets: TensorDataset, ConcatDataset, Subset, random_split, and their errors."""
import numpy as np
import pytest

import labkit
from labkit.utils.data import (ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset,
                               random_split)


class Range(Dataset):
    def __init__(self, n, offset=0):
        self.n, self.offset = n, offset

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return self.offset + i


def test_tensor_dataset_rows():
    x, y = labkit.randn(5, 3), labkit.arange(5)
    ds = TensorDataset(x, y)
    assert len(ds) == 5
    xi, yi = ds[2]
    np.testing.assert_array_equal(xi.numpy(), x.numpy()[2])
    assert yi.item() == 2


@pytest.mark.parametrize("args, match", [
    ((), "at least one tensor"),
    ((labkit.randn(4, 2), labkit.randn(3)), r"same first dimension.*\[4, 3\]"),
    ((np.zeros((3, 2)),), "not a labkit Tensor.*from_numpy"),
    ((labkit.tensor(1.0),), "0-d tensor"),
])
def test_tensor_dataset_errors_name_the_cause(args, match):
    with pytest.raises((ValueError, TypeError), match=match):
        TensorDataset(*args)


def test_concat_dataset_indexing_matches_torch():
    torch_data = pytest.importorskip("torch.utils.data")

    class TorchRange(torch_data.Dataset):
        def __init__(self, n, offset):
            self.n, self.offset = n, offset

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return self.offset + i

    sizes = [(3, 0), (1, 100), (4, 200)]
    ours = ConcatDataset([Range(n, o) for n, o in sizes])
    theirs = torch_data.ConcatDataset([TorchRange(n, o) for n, o in sizes])
    assert ours.cumulative_sizes == theirs.cumulative_sizes
    assert len(ours) == len(theirs) == 8
    assert [ours[i] for i in range(-8, 8)] == [theirs[i] for i in range(-8, 8)]
    with pytest.raises(IndexError, match="out of range for 8"):
        ours[8]


def test_dataset_add_concatenates():
    both = Range(2) + Range(3, offset=10)
    assert isinstance(both, ConcatDataset)
    assert [both[i] for i in range(len(both))] == [0, 1, 10, 11, 12]


def test_concat_errors():
    with pytest.raises(ValueError, match="no datasets"):
        ConcatDataset([])

    class Stream(IterableDataset):
        def __iter__(self):
            yield 1
    with pytest.raises(TypeError, match="IterableDataset.*itertools.chain"):
        ConcatDataset([Range(2), Stream()])


def test_base_classes_say_what_to_define():
    with pytest.raises(NotImplementedError, match="__getitem__"):
        Dataset()[0]
    with pytest.raises(NotImplementedError, match="__iter__"):
        iter(IterableDataset())


def test_subset_and_generic_alias():
    sub = Subset(Range(10), [7, 2, 5])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [7, 2, 5]

    class Typed(Dataset[int]):       # torch-style type hint in the base list
        pass
    assert issubclass(Typed, Dataset)


def test_random_split_partitions_and_is_reproducible():
    ds = Range(10)
    a, b = random_split(ds, [7, 3], generator=labkit.Generator().manual_seed(1))
    items = [a[i] for i in range(len(a))] + [b[i] for i in range(len(b))]
    assert (len(a), len(b)) == (7, 3) and sorted(items) == list(range(10))
    a2, _ = random_split(ds, [7, 3], generator=labkit.Generator().manual_seed(1))
    assert a.indices == a2.indices
    a3, _ = random_split(ds, [7, 3], generator=labkit.Generator().manual_seed(2))
    assert a.indices != a3.indices


@pytest.mark.filterwarnings("ignore:Length of split")  # torch warns about the empty split
@pytest.mark.parametrize("n, fractions", [(10, [0.8, 0.2]), (11, [0.5, 0.3, 0.2]),
                                          (7, [1 / 3] * 3), (5, [0, 1])])
def test_random_split_fraction_lengths_match_torch(n, fractions):
    torch_data = pytest.importorskip("torch.utils.data")
    ours = [len(s) for s in random_split(Range(n), fractions)]
    theirs = [len(s) for s in torch_data.random_split(range(n), fractions)]
    assert ours == theirs


def test_random_split_errors():
    with pytest.raises(ValueError, match="add up to 9.*10 samples.*fractions"):
        random_split(Range(10), [5, 4])
    with pytest.raises(ValueError, match=">= 0"):
        random_split(Range(10), [11, -1])
