"""DataLoader in the main process (num_workers=0): batches, order, shuffling, drop_last,
len, reproducibility, the TensorDataset fast path, streams, and bad arguments."""
import numpy as np
import pytest

import labkit
from labkit.utils.data import (BatchSampler, DataLoader, Dataset, IterableDataset,
                               SequentialSampler, TensorDataset, WeightedRandomSampler,
                               get_worker_info)


class Range(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def batches(loader):
    return [b if isinstance(b, int) else b.tolist() for b in loader]


def test_batches_in_order_and_len():
    loader = DataLoader(Range(10), batch_size=4)
    assert batches(loader) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert len(loader) == 3


def test_drop_last():
    loader = DataLoader(Range(10), batch_size=4, drop_last=True)
    assert batches(loader) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert len(loader) == 2


def test_shuffle_every_sample_once_and_new_order_each_epoch():
    labkit.manual_seed(0)
    loader = DataLoader(Range(50), batch_size=8, shuffle=True)
    epochs = [sum(batches(loader), []) for _ in range(3)]
    for e in epochs:
        assert sorted(e) == list(range(50))
    assert epochs[0] != epochs[1] != epochs[2]


def test_shuffle_reproducible_from_manual_seed_and_generator():
    def run(**kw):
        return [batches(DataLoader(Range(20), batch_size=6, shuffle=True, **kw))
                for _ in range(2)]
    labkit.manual_seed(7)
    a = run()
    labkit.manual_seed(7)
    assert run() == a
    g = lambda: labkit.Generator().manual_seed(1)                # noqa: E731
    assert run(generator=g()) == run(generator=g())
    assert run(generator=g()) != run(generator=labkit.Generator().manual_seed(2))


@pytest.mark.parametrize("kwargs", [
    dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=1),
    dict(batch_size=None), dict(batch_size=4, shuffle=True), dict(batch_size=64),
])
def test_len_and_sequential_batches_match_torch(kwargs):
    torch_data = pytest.importorskip("torch.utils.data")
    ours, theirs = DataLoader(Range(11), **kwargs), torch_data.DataLoader(range(11), **kwargs)
    assert len(ours) == len(theirs)
    if not kwargs.get("shuffle"):
        assert batches(ours) == batches(theirs)


def test_tensor_dataset_fast_path_equals_item_by_item():
    class ItemByItem(TensorDataset):          # overriding __getitem__ turns the fast path off
        def __getitem__(self, i):
            return super().__getitem__(i)
    x, y = labkit.randn(37, 3, 2), labkit.randint(0, 5, (37,))
    for ds_type in (TensorDataset, ItemByItem):
        labkit.manual_seed(4)
        got = [[t.numpy().copy() for t in b]
               for b in DataLoader(ds_type(x, y), batch_size=8, shuffle=True)]
        if ds_type is TensorDataset:
            fast = got
    assert len(fast) == len(got) == 5
    for a, b in zip(fast, got):
        assert isinstance(a, list) and len(a) == 2
        for u, v in zip(a, b):
            assert u.dtype == v.dtype and u.shape == v.shape
            np.testing.assert_array_equal(u, v)


def test_fast_path_indexes_each_tensor_once_per_batch(monkeypatch):
    from labkit.utils.data import fetch
    calls = []
    real = fetch._TensorFetcher.fetch
    monkeypatch.setattr(fetch._TensorFetcher, "fetch",
                        lambda self, idx: calls.append(idx) or real(self, idx))
    loader = DataLoader(TensorDataset(labkit.randn(100, 4), labkit.arange(100)), batch_size=32,
                        shuffle=True)
    out = list(loader)
    assert len(calls) == 4 and all(isinstance(c, np.ndarray) for c in calls)
    assert sorted(np.concatenate([b[1].numpy() for b in out]).tolist()) == list(range(100))


def test_fast_path_keeps_device_dtype_grad_and_index_errors(device):
    """The fast path gathers rows of the array directly when no gradient is needed; a
    dataset tensor that requires grad still gives batches in its graph (as torch's), and an
    out-of-range index from a custom batch sampler raises torch's IndexError."""
    x = labkit.randn(10, 3, device=device, dtype=labkit.float64)
    y = labkit.arange(10, device=device).to(labkit.int16)
    w = labkit.randn(10, 2, device=device, requires_grad=True)
    (bx, by, bw), = DataLoader(TensorDataset(x, y, w), batch_sampler=[[3, 0, 3, -1]])
    assert bx.device == x.device and bx.dtype == labkit.float64 and by.dtype == labkit.int16
    np.testing.assert_array_equal(bx.cpu().numpy(), x.cpu().numpy()[[3, 0, 3, -1]])
    assert not bx.requires_grad and bx.is_leaf and bx.grad_fn is None
    assert bw.requires_grad and bw.grad_fn is not None
    bw.sum().backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy()[:, 0], [1, 0, 0, 2, 0, 0, 0, 0, 0, 1])
    with pytest.raises(IndexError, match="out of bounds"):
        next(iter(DataLoader(TensorDataset(x, y), batch_sampler=[[1, 10]])))


def test_custom_sampler_and_batch_sampler():
    sampler = WeightedRandomSampler([0, 0, 1, 1, 0], 6, generator=labkit.Generator())
    got = sum(batches(DataLoader(Range(5), batch_size=2, sampler=sampler)), [])
    assert set(got) <= {2, 3} and len(got) == 6
    bs = BatchSampler(SequentialSampler(range(5)), 2, drop_last=False)
    assert batches(DataLoader(Range(5), batch_sampler=bs)) == [[0, 1], [2, 3], [4]]


def test_unbatched_returns_converted_samples():
    out = list(DataLoader(Range(3), batch_size=None))
    assert out == [0, 1, 2]


def test_iterable_dataset_in_main_process():
    loader = DataLoader(Stream(7), batch_size=3)
    assert batches(loader) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(loader) == 3
    assert batches(DataLoader(Stream(7), batch_size=3, drop_last=True)) == [[0, 1, 2], [3, 4, 5]]
    assert get_worker_info() is None


def test_iterable_without_iterator_says_so():
    class NoYield(IterableDataset):
        def __iter__(self):
            return None
    with pytest.raises(TypeError, match="must return an iterator"):
        list(DataLoader(NoYield(), batch_size=2))


def test_pin_memory_is_a_no_op_without_cuda():
    if labkit.cuda.is_available():
        pytest.skip("a CUDA GPU is present: pinning happens for real")
    ds = TensorDataset(labkit.randn(4, 2))
    plain = [b[0].numpy() for b in DataLoader(ds, batch_size=2)]
    pinned = [b[0].numpy() for b in DataLoader(ds, batch_size=2, pin_memory=True)]
    for a, b in zip(plain, pinned):
        np.testing.assert_array_equal(a, b)


class NoLen:
    def __getitem__(self, i):
        return i


@pytest.mark.parametrize("make, error, match", [
    (lambda: DataLoader(Range(0), shuffle=True), ValueError, "empty"),
    (lambda: DataLoader(Range(5), batch_size=0), ValueError, "batch_size=0"),
    (lambda: DataLoader(Range(5), batch_size=-3), ValueError, "batch_size=-3"),
    (lambda: DataLoader(Range(5), batch_size=2.5), ValueError, "positive integer"),
    (lambda: DataLoader(Range(5), shuffle=True, sampler=SequentialSampler(range(5))),
     ValueError, "either sampler or shuffle"),
    (lambda: DataLoader(Range(5), batch_size=2,
                        batch_sampler=BatchSampler(SequentialSampler(range(5)), 2, False)),
     ValueError, "batch_sampler.*cannot be combined"),
    (lambda: DataLoader(Range(5), batch_size=None, drop_last=True), ValueError, "set batch_size"),
    (lambda: DataLoader(Stream(5), shuffle=True), ValueError, "IterableDataset"),
    (lambda: DataLoader(NoLen()), TypeError, "no __len__"),
    (lambda: DataLoader(Range(5), num_workers=-1), ValueError, "num_workers"),
    (lambda: DataLoader(Range(5), timeout=-1), ValueError, "timeout"),
    (lambda: DataLoader(Range(5), prefetch_factor=2), ValueError, "num_workers > 0"),
    (lambda: DataLoader(Range(5), persistent_workers=True), ValueError, "num_workers > 0"),
    (lambda: DataLoader(Range(5), generator=1), TypeError, "labkit.Generator"),
    (lambda: len(DataLoader(type("S", (IterableDataset,), {"__iter__": lambda s: iter([])})())),
     TypeError, "no __len__"),
])
def test_bad_arguments_say_what_to_do(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_ragged_samples_error_points_at_collate_fn():
    class Ragged(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return labkit.ones(i + 1)
    with pytest.raises(RuntimeError, match="different shapes.*collate_fn"):
        list(DataLoader(Ragged(), batch_size=2))
    assert [len(b) for b in DataLoader(Ragged(), batch_size=2, collate_fn=list)] == [2, 2]
