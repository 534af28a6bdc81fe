"""torch.utils.data's surface as tutorials use it, against torch: TensorDataset of any number
of tensors, Subset, default_collate on every sample structure, DataLoader(generator=,
worker_init_fn=, collate_fn=, prefetch_factor=, persistent_workers=), and the validation
errors torch raises (same exception types)."""
import collections

import numpy as np
import pytest

import labkit
from labkit.utils import data as L

torch = pytest.importorskip("torch")
T = torch.utils.data

Point = collections.namedtuple("Point", "x y")


def same(mine, ref, path="batch"):
    """The same structure, container types, values and dtypes."""
    if isinstance(ref, torch.Tensor):
        assert isinstance(mine, labkit.Tensor), f"{path}: {type(mine).__name__}, not a tensor"
        assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1], path
        np.testing.assert_array_equal(mine.numpy(), ref.numpy(), err_msg=path)
    elif isinstance(ref, dict):
        assert type(mine) is type(ref) and list(mine) == list(ref), path
        for k in ref:
            same(mine[k], ref[k], f"{path}[{k!r}]")
    elif isinstance(ref, (list, tuple)):
        assert type(mine) is type(ref) and len(mine) == len(ref), f"{path}: {mine!r} vs {ref!r}"
        for i, (m, r) in enumerate(zip(mine, ref)):
            same(m, r, f"{path}[{i}]")
    else:
        assert mine == ref, path


def samples(lib):
    return {
        "dicts": [{"image": np.full((2, 2), i, np.float32), "label": i, "name": f"s{i}"}
                  for i in range(3)],
        "namedtuples": [Point(float(i), np.arange(3) * i) for i in range(3)],
        "strings": ["cat", "dog"],
        "floats": [0.5, 1.5, 2.5],
        "ints": [1, 2, 3],
        "bools": [True, False],
        "numpy scalars": [np.float32(1.5), np.float32(2.5)],
        "numpy int scalars": [np.int64(3), np.int64(4)],
        "numpy arrays": [np.ones((2, 3)), np.zeros((2, 3))],
        "tensors": [lib.ones(2, 3), lib.zeros(2, 3)],
        "tuples": [(lib.ones(2), 1, "a"), (lib.zeros(2), 0, "b")],
        "lists": [[1, 2.0], [3, 4.0]],
        "nested": [{"x": (1, [2.0, {"z": np.float64(1)}])},
                   {"x": (3, [4.0, {"z": np.float64(2)}])}],
        "ordered": [collections.OrderedDict(b=1, a=2), collections.OrderedDict(b=3, a=4)],
    }


@pytest.mark.parametrize("kind", sorted(samples(labkit)))
def test_default_collate_matches_torch(kind):
    same(L.default_collate(samples(labkit)[kind]), T.default_collate(samples(torch)[kind]))


@pytest.mark.parametrize("kind", ["dicts", "namedtuples", "numpy arrays", "tuples"])
def test_default_convert_matches_torch(kind):
    same(L.default_convert(samples(labkit)[kind][0]), T.default_convert(samples(torch)[kind][0]))


@pytest.mark.parametrize("batch", [
    lambda lib: [],
    lambda lib: [lib.ones(2), lib.ones(3)],
    lambda lib: [[1, 2], [3]],
    lambda lib: [None, None],
    lambda lib: [np.array(["a"]), np.array(["b"])],
])
def test_default_collate_errors_match_torch(batch):
    with pytest.raises(Exception) as ref:
        T.default_collate(batch(torch))
    with pytest.raises(type(ref.value)):
        L.default_collate(batch(labkit))


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_tensor_dataset_of_any_number_of_tensors(n):
    arrays = [np.arange(12).reshape(4, 3) * (k + 1) for k in range(n)]
    mine = L.TensorDataset(*[labkit.tensor(a) for a in arrays])
    ref = T.TensorDataset(*[torch.tensor(a) for a in arrays])
    assert len(mine) == len(ref) == 4
    same(mine[2], ref[2])
    same(mine[-1], ref[-1])
    same(next(iter(L.DataLoader(mine, batch_size=3))), next(iter(T.DataLoader(ref, batch_size=3))))
    same(list(L.DataLoader(mine, batch_size=None))[1], list(T.DataLoader(ref, batch_size=None))[1])


@pytest.mark.parametrize("make", [
    lambda lib, D: len(D.TensorDataset()),      # torch fails at len, labkit at once
    lambda lib, D: D.TensorDataset(lib.ones(4), lib.ones(3)),
])
def test_tensor_dataset_errors_match_torch(make):
    with pytest.raises(Exception) as ref:
        make(torch, T)
    with pytest.raises(type(ref.value)):
        make(labkit, L)


@pytest.mark.parametrize("indices", [[4, 1, 1], range(2, 5), "tensor"])
def test_subset(indices):
    idx_l = labkit.tensor([4, 1]) if indices == "tensor" else indices
    idx_t = torch.tensor([4, 1]) if indices == "tensor" else indices
    base = np.arange(12).reshape(6, 2)
    mine = L.Subset(L.TensorDataset(labkit.tensor(base)), idx_l)
    ref = T.Subset(T.TensorDataset(torch.tensor(base)), idx_t)
    assert len(mine) == len(ref)
    for i in range(len(ref)):
        same(mine[i], ref[i])
    same(mine.__getitems__([1, 0]), ref.__getitems__([1, 0]))
    same(list(L.DataLoader(mine, batch_size=2)), list(T.DataLoader(ref, batch_size=2)))
    assert mine.dataset is not None and mine.indices is idx_l


def test_loader_uses_a_datasets_getitems_for_whole_batches():
    calls = []

    class Batched(L.Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            raise AssertionError("the loader should ask for whole batches")

        def __getitems__(self, indices):
            calls.append(list(indices))
            return [float(i) for i in indices]

    assert [b.tolist() for b in L.DataLoader(Batched(), batch_size=2)] == [[0, 1], [2, 3], [4]]
    assert calls == [[0, 1], [2, 3], [4]]


def _order(loader):
    return [b[0].tolist() for b in loader]


def test_generator_decides_the_shuffle_and_leaves_the_global_stream_alone():
    ds = L.TensorDataset(labkit.arange(20))
    labkit.manual_seed(0)
    before = labkit.rand(3).tolist()
    labkit.manual_seed(0)
    a = _order(L.DataLoader(ds, batch_size=8, shuffle=True,
                            generator=labkit.Generator().manual_seed(7)))
    assert labkit.rand(3).tolist() == before          # the default generator was not used
    b = _order(L.DataLoader(ds, batch_size=8, shuffle=True,
                            generator=labkit.Generator().manual_seed(7)))
    assert a == b
    assert sorted(sum(a, [])) == list(range(20))
    c = _order(L.DataLoader(ds, batch_size=8, shuffle=True,
                            generator=labkit.Generator().manual_seed(8)))
    assert c != a


def test_generator_gives_a_new_order_each_epoch_reproducibly():
    ds = L.TensorDataset(labkit.arange(12))

    def two_epochs(seed):
        loader = L.DataLoader(ds, batch_size=12, shuffle=True,
                              generator=labkit.Generator().manual_seed(seed))
        return [_order(loader) for _ in range(2)]
    first, again = two_epochs(3), two_epochs(3)
    assert first == again and first[0] != first[1]


def _seed_of_worker(_):
    return L.get_worker_info().seed


class Seeds(L.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = L.get_worker_info()
        return (info.id, info.seed, _initialised.get("id"))


_initialised = {}


def _init(worker_id):
    _initialised["id"] = worker_id


def test_workers_seeds_come_from_the_generator_and_worker_init_fn_runs():
    def run(seed):
        loader = L.DataLoader(Seeds(), batch_size=1, num_workers=2, worker_init_fn=_init,
                              generator=labkit.Generator().manual_seed(seed),
                              prefetch_factor=1, persistent_workers=False)
        return [tuple(int(v) for v in b) for b in loader]
    a, b, c = run(1), run(1), run(2)
    assert a == b != c
    assert [(w, init) for w, _, init in a] == [(0, 0), (1, 1), (0, 0), (1, 1)]
    seeds = {w: s for w, s, _ in a}
    assert seeds[1] == seeds[0] + 1                        # base seed + worker id, as torch


def test_persistent_workers_keep_their_processes_between_epochs():
    loader = L.DataLoader(Seeds(), batch_size=2, num_workers=2, persistent_workers=True,
                          worker_init_fn=_init)
    first = [b[0].tolist() for b in loader]
    it = loader._iterator
    second = [b[0].tolist() for b in loader]
    assert loader._iterator is it and first == second == [[0, 0], [1, 1]]
    it._shutdown()


def test_collate_fn_and_attributes_match_torch():
    kw = dict(batch_size=2, collate_fn=lambda batch: sum(batch))
    assert list(L.DataLoader(list(range(5)), **kw)) == list(T.DataLoader(list(range(5)), **kw))
    for kw in (dict(), dict(num_workers=2), dict(num_workers=2, prefetch_factor=4,
                                                 persistent_workers=True)):
        mine, ref = L.DataLoader(list(range(5)), **kw), T.DataLoader(list(range(5)), **kw)
        for name in ("batch_size", "drop_last", "num_workers", "prefetch_factor",
                     "persistent_workers", "timeout", "worker_init_fn", "generator"):
            assert getattr(mine, name) == getattr(ref, name), (kw, name)


def test_empty_dataset_gives_no_batches_as_torch():
    assert list(L.DataLoader([], batch_size=2)) == list(T.DataLoader([], batch_size=2)) == []
    assert len(L.DataLoader([], batch_size=2)) == 0


class Stream(L.IterableDataset):
    def __iter__(self):
        return iter(range(3))


class TStream(T.IterableDataset):
    def __iter__(self):
        return iter(range(3))


@pytest.mark.parametrize("kw", [
    dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2),
    dict(num_workers=1, prefetch_factor=-1), dict(persistent_workers=True),
    dict(sampler=[0, 1], shuffle=True), dict(batch_sampler=[[0, 1]], batch_size=2),
    dict(batch_sampler=[[0, 1]], drop_last=True), dict(batch_size=None, drop_last=True),
    dict(batch_size=0), dict(batch_size=True), dict(batch_size=2.0), dict(drop_last=1),
    dict(shuffle=True, dataset=[]), dict(iterable=True, shuffle=True),
    dict(iterable=True, sampler=[0]), dict(iterable=True, batch_sampler=[[0]]),
])
def test_loader_errors_match_torch(kw):
    kw = dict(kw)
    iterable = kw.pop("iterable", False)
    data = kw.pop("dataset", list(range(5)))

    def make(D, stream):
        loader = D.DataLoader(stream() if iterable else data, **kw)
        list(loader)
    with pytest.raises(Exception) as ref:
        make(T, TStream)
    with pytest.raises(type(ref.value)):
        make(L, Stream)


@pytest.mark.parametrize("make", [
    lambda D: D.RandomSampler(range(4), replacement=1),
    lambda D: D.WeightedRandomSampler([1.0, 2.0], 2, replacement=1),
    lambda D: D.BatchSampler(range(4), 2, 1),
    lambda D: D.BatchSampler(range(4), 0, False),
])
def test_sampler_errors_match_torch(make):
    with pytest.raises(Exception) as ref:
        make(T)
    with pytest.raises(type(ref.value)):
        make(L)
