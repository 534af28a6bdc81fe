"""Samplers: order, every index once, reproducibility, weighted proportions, errors."""
import numpy as np
import pytest

import labkit
from labkit.utils.data import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                               SubsetRandomSampler, WeightedRandomSampler)
from labkit.utils.data.sampler import index_batches

DATA = list(range(10))


def gen(seed):
    return labkit.Generator().manual_seed(seed)


def test_sequential_matches_torch():
    torch_data = pytest.importorskip("torch.utils.data")
    assert list(SequentialSampler(DATA)) == list(torch_data.SequentialSampler(DATA))
    assert len(SequentialSampler(DATA)) == 10


def test_random_sampler_is_a_new_permutation_each_epoch():
    s = RandomSampler(DATA, generator=gen(0))
    first, second = list(s), list(s)
    assert sorted(first) == sorted(second) == DATA
    assert first != second
    assert all(isinstance(i, int) for i in first)


def test_random_sampler_reproducible_from_manual_seed():
    labkit.manual_seed(3)
    a = [list(RandomSampler(DATA)) for _ in range(2)]
    labkit.manual_seed(3)
    b = [list(RandomSampler(DATA)) for _ in range(2)]
    assert a == b


def test_random_sampler_num_samples_and_replacement_semantics():
    # Without replacement, 25 samples of 10 are two full permutations plus 5 distinct items.
    idx = list(RandomSampler(DATA, num_samples=25, generator=gen(1)))
    assert len(idx) == 25
    assert sorted(idx[:10]) == DATA and sorted(idx[10:20]) == DATA and len(set(idx[20:])) == 5
    rep = list(RandomSampler(DATA, replacement=True, num_samples=1000, generator=gen(1)))
    assert len(rep) == 1000 and set(rep) == set(DATA)       # repeats, all in range
    assert len(RandomSampler(DATA, num_samples=7)) == 7


def test_subset_random_sampler():
    picks = [3, 8, 5]
    s = SubsetRandomSampler(picks, generator=gen(0))
    assert sorted(s) == sorted(picks) and len(s) == 3


def test_weighted_sampler_proportions():
    # Class 0 has weight 1, class 1 weight 3: expect 25% / 75% of 20000 draws. The standard
    # deviation of the share is sqrt(p(1-p)/n) ~ 0.003; a tolerance of 0.015 is 5 of them.
    weights = [1.0] * 5 + [3.0] * 5
    idx = np.array(list(WeightedRandomSampler(weights, 20000, generator=gen(0))))
    share = np.mean(idx >= 5)
    assert abs(share - 0.75) < 0.015
    counts = np.bincount(idx, minlength=10)
    assert counts[:5].min() > 0 and abs(counts[5:].mean() / counts[:5].mean() - 3) < 0.2


def test_weighted_sampler_balances_sources():
    # Sources of 900 and 100 samples, weight 1/len(source) each: half the draws from each.
    weights = [1 / 900] * 900 + [1 / 100] * 100
    idx = np.array(list(WeightedRandomSampler(weights, 10000, generator=gen(1))))
    assert abs(np.mean(idx >= 900) - 0.5) < 0.02


def test_weighted_sampler_zero_weight_never_drawn_and_no_replacement():
    idx = list(WeightedRandomSampler([0, 1, 0, 1, 1], 3, replacement=False, generator=gen(0)))
    assert sorted(idx) == [1, 3, 4]


@pytest.mark.parametrize("weights, n, kwargs, match", [
    ([1, -0.5, 2], 3, {}, r"weights\[1\] = -0.5"),
    ([0, 0, 0], 3, {}, "all 3 weights are 0"),
    ([1, float("nan")], 2, {}, "nan or inf"),
    ([[1, 2]], 2, {}, "1-D"),
    ([1, 1], 0, {}, "num_samples must be a positive integer"),
    ([1, 0, 1], 3, {"replacement": False}, "exceeds the 2 samples"),
])
def test_weighted_sampler_errors(weights, n, kwargs, match):
    with pytest.raises(ValueError, match=match):
        WeightedRandomSampler(weights, n, **kwargs)


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("batch_size", [1, 3, 5, 12])
def test_batch_sampler_matches_torch(batch_size, drop_last):
    torch_data = pytest.importorskip("torch.utils.data")
    ours = BatchSampler(SequentialSampler(DATA), batch_size, drop_last)
    theirs = torch_data.BatchSampler(torch_data.SequentialSampler(DATA), batch_size, drop_last)
    assert list(ours) == list(theirs)
    assert len(ours) == len(theirs)


def test_batch_sampler_over_a_custom_sampler_keeps_its_items():
    class Keys(Sampler):
        def __iter__(self):
            return iter(["a", "b", "c"])
    assert list(BatchSampler(Keys(), 2, False)) == [["a", "b"], ["c"]]


def test_index_batches_draw_the_same_order_as_iteration():
    labkit.manual_seed(5)
    as_lists = list(BatchSampler(RandomSampler(DATA), 4, False))
    labkit.manual_seed(5)
    as_arrays = [b.tolist() for b in index_batches(BatchSampler(RandomSampler(DATA), 4, False))]
    assert as_lists == as_arrays


@pytest.mark.parametrize("make, match", [
    (lambda: BatchSampler(SequentialSampler(DATA), 0, False), "batch_size=0"),
    (lambda: BatchSampler(SequentialSampler(DATA), -2, False), "batch_size=-2"),
    (lambda: BatchSampler(SequentialSampler(DATA), 2, "no"), "drop_last"),
    (lambda: RandomSampler([]), "empty"),
    (lambda: RandomSampler([], num_samples=5), "empty"),
    (lambda: RandomSampler(DATA, num_samples=0), "num_samples=0"),
    (lambda: RandomSampler(DATA, generator=np.random.default_rng()), "labkit.Generator"),
])
def test_sampler_errors(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()
