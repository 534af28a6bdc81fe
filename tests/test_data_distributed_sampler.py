"""DistributedSampler against torch's: sizes, padding, order, set_epoch, errors (one process;
the multi-rank run is in tests/test_ddp_mpi.py)."""
import pytest

import labkit
from labkit.utils.data import DataLoader, DistributedSampler, TensorDataset

CONFIGS = [(10, 3, False), (10, 3, True), (9, 3, False), (9, 3, True), (7, 4, False),
           (7, 4, True), (1, 4, False), (3, 8, False), (0, 2, False), (5, 1, True),
           (11, 2, True)]


def torch_sampler(n, replicas, rank, **kw):
    torch_data = pytest.importorskip("torch.utils.data")
    return torch_data.DistributedSampler(range(n), num_replicas=replicas, rank=rank, **kw)


def both(n, replicas, drop_last, **kw):
    for rank in range(replicas):
        ours = DistributedSampler(range(n), num_replicas=replicas, rank=rank,
                                  drop_last=drop_last, **kw)
        theirs = torch_sampler(n, replicas, rank, drop_last=drop_last, **kw)
        yield ours, theirs


@pytest.mark.parametrize("n,replicas,drop_last", CONFIGS)
def test_unshuffled_order_padding_and_length_match_torch(n, replicas, drop_last):
    for ours, theirs in both(n, replicas, drop_last, shuffle=False):
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs) and ours.total_size == theirs.total_size
        assert all(type(i) is int for i in ours)


@pytest.mark.parametrize("n,replicas,drop_last", CONFIGS)
def test_shuffled_indices_match_torch(n, replicas, drop_last):
    # Needs labkit.randperm(generator=Generator().manual_seed(s)) to be torch's mt19937
    # stream, index for index (fidel's branch, issue 23).
    for epoch in (0, 3):
        for ours, theirs in both(n, replicas, drop_last, shuffle=True, seed=5):
            ours.set_epoch(epoch), theirs.set_epoch(epoch)
            assert list(ours) == list(theirs)


@pytest.mark.parametrize("n,replicas,drop_last", CONFIGS)
def test_shuffled_follows_torchs_rule_on_our_permutation(n, replicas, drop_last):
    """Padding and striding applied to labkit's own permutation for seed + epoch."""
    for rank in range(replicas):
        s = DistributedSampler(range(n), replicas, rank, shuffle=True, seed=7,
                               drop_last=drop_last)
        s.set_epoch(2)
        perm = labkit.randperm(n, generator=labkit.Generator().manual_seed(9)).tolist()
        if drop_last:
            perm = perm[:s.total_size]
        else:
            while len(perm) < s.total_size:
                perm += perm[:s.total_size - len(perm)]
        assert list(s) == perm[rank::replicas]


def test_ranks_cover_the_dataset_exactly_once_and_epochs_differ():
    n, replicas = 103, 4
    samplers = [DistributedSampler(range(n), replicas, r, seed=1, drop_last=True)
                for r in range(replicas)]
    seen = {}
    for epoch in (0, 1):
        for s in samplers:
            s.set_epoch(epoch)
        parts = [list(s) for s in samplers]
        flat = [i for p in parts for i in p]
        assert len(flat) == len(set(flat)) == 100      # drop_last: 3 dropped, none twice
        seen[epoch] = parts
    assert seen[0] != seen[1]
    for s in samplers:          # without set_epoch the order repeats
        assert list(s) == list(s)


def test_padding_repeats_head_when_not_dropping():
    parts = [list(DistributedSampler(range(10), 4, r, shuffle=False)) for r in range(4)]
    flat = sorted(i for p in parts for i in p)
    assert flat == sorted(list(range(10)) + [0, 1])     # 12 = 10 + the first two again


def test_feeds_a_dataloader_in_batches():
    ds = TensorDataset(labkit.arange(10))
    s = DistributedSampler(ds, num_replicas=2, rank=1, shuffle=False)
    got = [b[0].tolist() for b in DataLoader(ds, batch_size=2, sampler=s)]
    assert got == [[1, 3], [5, 7], [9]]


@pytest.mark.parametrize("rank", [2, 5, -1])
def test_rank_out_of_range_is_torchs_error(rank):
    torch_data = pytest.importorskip("torch.utils.data")
    with pytest.raises(ValueError, match=r"Invalid rank .*\[0, 1\]") as ours:
        DistributedSampler(range(4), num_replicas=2, rank=rank)
    with pytest.raises(ValueError) as theirs:
        torch_data.DistributedSampler(range(4), num_replicas=2, rank=rank)
    assert str(theirs.value) in str(ours.value)
    assert "get_rank" in str(ours.value)


def test_without_a_process_group_names_the_fix():
    with pytest.raises(RuntimeError, match="init_process_group"):
        DistributedSampler(range(4))
