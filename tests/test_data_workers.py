"""DataLoader with worker processes: order, prefetching, seeds, streams split between workers,
errors, death and hangs detected, and no process left behind."""
import multiprocessing
import os
import random
import sys
import time

import numpy as np
import pytest

import labkit
from labkit.utils.data import (DataLoader, Dataset, IterableDataset, TensorDataset,
                               get_worker_info)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="counts child processes through /proc (Linux)")


def children():
    """Pids of this process's children (zombies too: an unreaped child is a leak)."""
    me, found = os.getpid(), set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me:
                found.add(int(d))
    return found | {p.pid for p in multiprocessing.active_children()}


@pytest.fixture
def no_leaks():
    before = children()
    yield
    leaked = children() - before
    assert not leaked, f"worker processes left behind: {sorted(leaked)}"


class Range(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i


class Noisy(Dataset):
    """Each sample draws from every random stream an augmentation might use."""

    def __len__(self):
        return 24

    def __getitem__(self, i):
        return (i, float(np.random.rand()), labkit.rand(1).item(), random.random(),
                get_worker_info().id)


class Failing(Dataset):
    def __init__(self, how):
        self.how = how

    def __len__(self):
        return 40

    def __getitem__(self, i):
        if i == 13:
            if self.how == "raise":
                raise ValueError("sample 13 is corrupt")
            if self.how == "die":
                os._exit(7)
            if self.how == "hang":
                time.sleep(60)
        return i


def flat(loader):
    return sum((b.tolist() for b in loader), [])


def test_batches_arrive_in_order(no_leaks):
    loader = DataLoader(Range(50), batch_size=3, num_workers=2)
    assert [b.tolist() for b in loader] == [b.tolist() for b in DataLoader(Range(50), batch_size=3)]


def test_every_sample_once_per_epoch_and_reshuffled(no_leaks):
    loader = DataLoader(Range(40), batch_size=6, shuffle=True, num_workers=2)
    epochs = [flat(loader) for _ in range(2)]
    assert sorted(epochs[0]) == sorted(epochs[1]) == list(range(40))
    assert epochs[0] != epochs[1]


def test_shuffle_order_does_not_depend_on_num_workers(no_leaks):
    orders = []
    for workers in (0, 2):
        labkit.manual_seed(11)
        loader = DataLoader(Range(30), batch_size=4, shuffle=True, num_workers=workers)
        orders.append([flat(loader) for _ in range(2)])
    assert orders[0] == orders[1]


def test_workers_draw_different_random_numbers_reproducibly(no_leaks):
    def epoch():
        loader = DataLoader(Noisy(), batch_size=4, num_workers=2)
        return [tuple(np.asarray(t).tolist() for t in b) for b in loader]
    labkit.manual_seed(0)
    first = epoch()
    labkit.manual_seed(0)
    assert epoch() == first                       # reproducible from manual_seed
    samples = [s for b in first for s in zip(*b)]
    assert {s[4] for s in samples} == {0, 1}      # both workers served
    for stream in (1, 2, 3):                      # numpy, labkit, random: no repeats anywhere
        values = [s[stream] for s in samples]
        assert len(set(values)) == len(values), f"stream {stream} repeats across workers"
    labkit.manual_seed(1)
    assert epoch() != first


def test_worker_info_and_worker_init_fn(no_leaks):
    class Who(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            info = get_worker_info()
            return (info.id, info.num_workers, info.seed, os.environ["INIT"])

    def init(worker_id):
        os.environ["INIT"] = f"init {worker_id}"
    out = list(DataLoader(Who(), batch_size=None, num_workers=2, worker_init_fn=init))
    ids = [int(o[0]) for o in out]
    assert ids == [0, 1, 0, 1] and all(int(o[1]) == 2 for o in out)
    assert [o[3] for o in out] == [f"init {i}" for i in ids]
    seeds = {int(o[0]): int(o[2]) for o in out}
    assert seeds[1] == seeds[0] + 1               # base_seed + worker_id, as torch


def test_prefetch_keeps_prefetch_factor_batches_per_worker_ready(no_leaks):
    fetched = multiprocessing.get_context("fork").Value("i", 0)

    class Counting(Dataset):
        def __len__(self):
            return 100

        def __getitem__(self, i):
            with fetched.get_lock():
                fetched.value += 1
            return i

    it = iter(DataLoader(Counting(), batch_size=5, num_workers=2, prefetch_factor=3))
    next(it)
    deadline = time.monotonic() + 10
    # 2 workers x 3 batches were asked for at the start, and one more after the first batch.
    while fetched.value < 7 * 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    assert fetched.value == 7 * 5
    del it


def test_tensor_batches_from_workers_equal_main_process(no_leaks):
    ds = TensorDataset(labkit.randn(30, 3), labkit.arange(30))
    ref = [[t.numpy() for t in b] for b in DataLoader(ds, batch_size=7)]
    got = [[t.numpy() for t in b] for b in DataLoader(ds, batch_size=7, num_workers=2)]
    for a, b in zip(ref, got):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)


class Sharded(IterableDataset):
    """Items 0..n-1, each worker yielding every num_workers-th one from its id."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


@pytest.mark.parametrize("workers", [2, 3])
def test_iterable_shards_have_no_duplicates(workers, no_leaks):
    got = flat(DataLoader(Sharded(23), batch_size=4, num_workers=workers))
    assert sorted(got) == list(range(23))


def test_iterable_order_matches_torch(no_leaks):
    torch_data = pytest.importorskip("torch.utils.data")

    class TorchSharded(torch_data.IterableDataset):
        def __iter__(self):
            info = torch_data.get_worker_info()
            return iter(range(info.id, 23, info.num_workers))
    ours = [b.tolist() for b in DataLoader(Sharded(23), batch_size=4, num_workers=2)]
    theirs = [b.tolist() for b in torch_data.DataLoader(TorchSharded(), batch_size=4,
                                                        num_workers=2)]
    assert ours == theirs


def test_unsharded_stream_is_read_once_per_worker(no_leaks):
    class Whole(IterableDataset):
        def __iter__(self):
            return iter(range(5))
    got = flat(DataLoader(Whole(), batch_size=2, num_workers=2))
    assert sorted(got) == sorted(list(range(5)) * 2)


def test_worker_exception_is_reraised_with_its_traceback(no_leaks):
    with pytest.raises(ValueError) as err:
        list(DataLoader(Failing("raise"), batch_size=4, num_workers=2))
    msg = str(err.value)
    assert "Caught ValueError in DataLoader worker process 1" in msg
    assert "sample 13 is corrupt" in msg and "in __getitem__" in msg
    assert 'raise ValueError("sample 13 is corrupt")' in msg


def test_worker_init_fn_error_is_reported(no_leaks):
    def init(worker_id):
        raise OSError(f"cannot open the data file in worker {worker_id}")
    with pytest.raises(OSError, match="(?s)worker_init_fn.*cannot open the data file"):
        list(DataLoader(Range(8), batch_size=2, num_workers=2, worker_init_fn=init))


def test_dead_worker_is_detected(no_leaks):
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="worker 1 .* exited unexpectedly with exit code 7"):
        list(DataLoader(Failing("die"), batch_size=4, num_workers=2))
    assert time.monotonic() - t0 < 10


def test_hung_worker_hits_the_timeout(no_leaks):
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="timed out after 0.5 s waiting for batch 3"):
        list(DataLoader(Failing("hang"), batch_size=4, num_workers=2, timeout=0.5))
    assert time.monotonic() - t0 < 10


def test_killed_worker_is_named_by_its_signal(no_leaks):
    import signal

    class Killed(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            if i == 5:
                os.kill(os.getpid(), signal.SIGKILL)
            return i
    with pytest.raises(RuntimeError, match="killed by signal SIGKILL.*out-of-memory"):
        list(DataLoader(Killed(), batch_size=2, num_workers=2))


def test_no_processes_left_after_100_loaders_broken_early(no_leaks):
    for _ in range(100):
        for _ in DataLoader(Range(1000), batch_size=4, num_workers=2):
            break
    it = iter(DataLoader(Range(1000), batch_size=4, num_workers=2))
    next(it)
    del it
    assert multiprocessing.active_children() == []


def test_persistent_workers_survive_epochs_and_drop_stale_batches(no_leaks):
    class Pid(Dataset):
        def __len__(self):
            return 20

        def __getitem__(self, i):
            return (i, os.getpid())
    loader = DataLoader(Pid(), batch_size=3, shuffle=True, num_workers=2,
                        persistent_workers=True)
    for _ in loader:                              # epoch 1, broken early
        break
    epochs = [[(int(i), int(p)) for b in loader for i, p in zip(*b)] for _ in range(2)]
    for e in epochs:
        assert sorted(i for i, _ in e) == list(range(20))
    assert {p for _, p in epochs[0]} == {p for _, p in epochs[1]}    # the same two workers
    assert len({p for _, p in epochs[0]}) == 2
    del loader


@pytest.fixture
def resource_tracker():
    """spawn starts this helper process once and keeps it: start it before counting."""
    from multiprocessing import resource_tracker
    resource_tracker.ensure_running()


def test_spawn_pickles_the_dataset(resource_tracker, no_leaks):
    ds = TensorDataset(labkit.arange(10))
    got = [b[0].tolist() for b in DataLoader(ds, batch_size=4, num_workers=1,
                                             multiprocessing_context="spawn")]
    assert got == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_spawn_refuses_a_notebook_class_with_a_clear_message(monkeypatch, no_leaks):
    main = sys.modules["__main__"]
    monkeypatch.delattr(main, "__file__", raising=False)   # as in a Jupyter kernel
    NotebookData = type("NotebookData", (Range,), {"__module__": "__main__"})
    monkeypatch.setattr(main, "NotebookData", NotebookData, raising=False)
    loader = DataLoader(NotebookData(4), num_workers=2, multiprocessing_context="spawn")
    with pytest.raises(RuntimeError, match="'spawn'.*NotebookData, defined in this notebook.*"
                                           "move NotebookData into a .py file"):
        iter(loader)


def test_spawn_refuses_what_cannot_be_pickled(no_leaks):
    loader = DataLoader(Range(4), num_workers=2, multiprocessing_context="spawn",
                        collate_fn=lambda batch: batch)
    with pytest.raises(RuntimeError, match="collate_fn cannot be pickled.*no lambdas"):
        iter(loader)


def test_graph_tensors_cannot_cross_processes(no_leaks):
    w = labkit.ones(2, requires_grad=True)

    class WithGraph(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return w * i
    with pytest.raises(RuntimeError, match="autograd graph.*detach"):
        list(DataLoader(WithGraph(), batch_size=2, num_workers=1))


def test_unpicklable_batch_is_reported_not_dropped(no_leaks):
    class Lambdas(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return lambda: i               # a worker cannot send this back
    loader = DataLoader(Lambdas(), batch_size=2, num_workers=1, collate_fn=list, timeout=30)
    with pytest.raises(Exception, match="(?s)sending the batch back.*pickle"):
        list(loader)
