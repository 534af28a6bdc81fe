"""After labkit.manual_seed(s), labkit draws torch's numbers for torch.manual_seed(s): every
random function, several seeds, sizes on both sides of torch's vectorised threshold (16),
float32 and float64, compared bit for bit (array_equal, not allclose)."""
import math
import time

import numpy as np
import pytest

import labkit
import labkit.nn as lnn
from labkit.utils.data import DataLoader as LDataLoader, TensorDataset as LTensorDataset

torch = pytest.importorskip("torch")

SEEDS = [0, 1, 42, 2 ** 40 + 3, -7]
SIZES = [0, 1, 2, 15, 16, 17, 31, 33, 1000]
DTYPES = ["float32", "float64"]


def seed(s):
    labkit.manual_seed(s)
    torch.manual_seed(s)


def same(a, b):
    a = a.numpy() if isinstance(a, labkit.Tensor) else np.asarray(a)
    b = b.numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    np.testing.assert_array_equal(a, b)


def state_same():
    """The generators end in the same state: the same numbers were consumed."""
    same(labkit.get_rng_state(), torch.get_rng_state())


@pytest.mark.parametrize("s", SEEDS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dt", DTYPES)
def test_rand_randn(s, n, dt):
    seed(s)
    for _ in range(2):          # a second draw follows on from the first (cached normal too)
        same(labkit.rand(n, dtype=getattr(labkit, dt)), torch.rand(n, dtype=getattr(torch, dt)))
        same(labkit.randn(n, dtype=getattr(labkit, dt)), torch.randn(n, dtype=getattr(torch, dt)))
    state_same()


@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 4), (1, 17), (4, 0, 2), (7, 9, 11)])
def test_odd_shapes_and_mixed_order(shape):
    seed(3)
    same(labkit.randn(*shape), torch.randn(*shape))
    same(labkit.randn(1), torch.randn(1))            # leaves a cached second value
    same(labkit.randn(shape, dtype=labkit.float64), torch.randn(shape, dtype=torch.float64))
    same(labkit.rand(shape), torch.rand(shape))
    same(labkit.randn(3), torch.randn(3))
    state_same()


def test_large_draws_are_fast_and_equal():
    seed(11)
    t0 = time.perf_counter()
    a, b = labkit.randn(1_000_000), labkit.rand(1_000_000)
    elapsed = time.perf_counter() - t0
    same(a, torch.randn(1_000_000))
    same(b, torch.rand(1_000_000))
    print(f"labkit randn + rand of 1e6 float32: {elapsed:.3f} s")


@pytest.mark.parametrize("s", SEEDS[:3])
@pytest.mark.parametrize("n", [1, 15, 16, 17, 100])
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("mean,std", [(0.0, 1.0), (0.5, 0.02), (-3.0, 7.5)])
def test_normal_and_fills(s, n, dt, mean, std):
    seed(s)
    L, T = getattr(labkit, dt), getattr(torch, dt)
    same(labkit.normal(mean, std, size=(n,), dtype=L), torch.normal(mean, std, size=(n,), dtype=T))
    same(labkit.empty(n, dtype=L).normal_(mean, std), torch.empty(n, dtype=T).normal_(mean, std))
    same(labkit.empty(n, dtype=L).uniform_(mean - std, mean + std),
         torch.empty(n, dtype=T).uniform_(mean - std, mean + std))
    same(labkit.empty(n, dtype=L).exponential_(1 / std), torch.empty(n, dtype=T).exponential_(1 / std))
    m = labkit.arange(n, dtype=L) / 7
    same(labkit.normal(m, std), torch.normal(torch.arange(n, dtype=T) / 7, std))
    same(labkit.normal(m, m + 1), torch.normal(torch.arange(n, dtype=T) / 7,
                                               torch.arange(n, dtype=T) / 7 + 1))
    state_same()


@pytest.mark.parametrize("s", SEEDS[:3])
def test_integers(s):
    seed(s)
    same(labkit.randint(0, 10, (50,)), torch.randint(0, 10, (50,)))
    same(labkit.randint(5, (3, 4)), torch.randint(5, (3, 4)))
    same(labkit.randint(-100, 2 ** 40, (20,)), torch.randint(-100, 2 ** 40, (20,)))
    same(labkit.randint(0, 7, (6,), dtype=labkit.float32),
         torch.randint(0, 7, (6,), dtype=torch.float32))
    same(labkit.empty(9, dtype=labkit.int64).random_(3, 12),
         torch.empty(9, dtype=torch.int64).random_(3, 12))
    same(labkit.empty(9, dtype=labkit.int64).random_(12), torch.empty(9, dtype=torch.int64).random_(12))
    for n in [0, 1, 2, 3, 10, 1000]:
        same(labkit.randperm(n), torch.randperm(n))
    state_same()


@pytest.mark.parametrize("s", SEEDS[:3])
def test_randperm_every_small_size_and_large(s):
    """randperm runs torch's Fisher-Yates swaps in numpy (engine/distributions.py): every size
    up to 70 (chains of swaps hitting the same position), then sizes where they are long."""
    seed(s)
    for n in list(range(70)) + [257, 4096, 60000]:
        same(labkit.randperm(n), torch.randperm(n))
    g, tg = labkit.Generator().manual_seed(s), torch.Generator().manual_seed(s)
    for n in (5, 1, 33):
        same(labkit.randperm(n, generator=g), torch.randperm(n, generator=tg))
    state_same()


def test_random_sampler_epochs_and_the_skipped_draw():
    """RandomSampler draws one more permutation after the full ones even when it uses none of
    it (num_samples a multiple of n): labkit only advances the generator, by the same draws."""
    tdata = pytest.importorskip("torch.utils.data")
    import labkit.utils.data as ld
    for k in (9, 18, 20):
        seed(5)
        mine = [list(ld.RandomSampler(range(9), num_samples=k)) for _ in range(2)]
        theirs = [list(tdata.RandomSampler(range(9), num_samples=k)) for _ in range(2)]
        assert mine == theirs
        state_same()


@pytest.mark.parametrize("s", SEEDS[:3])
@pytest.mark.parametrize("dt", DTYPES)
def test_bernoulli_and_dropout(s, dt):
    seed(s)
    L, T = getattr(labkit, dt), getattr(torch, dt)
    p = np.linspace(0, 1, 37)
    same(labkit.bernoulli(labkit.tensor(p, dtype=L)), torch.bernoulli(torch.tensor(p, dtype=T)))
    same(labkit.bernoulli(labkit.ones(20, dtype=L), 0.3), torch.bernoulli(torch.ones(20, dtype=T), 0.3))
    same(labkit.empty(25, dtype=L).bernoulli_(0.7), torch.empty(25, dtype=T).bernoulli_(0.7))
    same(labkit.empty(3, 5, dtype=L).bernoulli_(labkit.tensor(p[:5], dtype=L)),
         torch.empty(3, 5, dtype=T).bernoulli_(torch.tensor(p[:5], dtype=T)))
    x, y = labkit.ones(4, 6, dtype=L), torch.ones(4, 6, dtype=T)
    for q in (0.1, 0.5, 0.9, 1.0):
        same(labkit.nn.functional.dropout(x, q), torch.nn.functional.dropout(y, q))
    same(lnn.Dropout(0.25)(x), torch.nn.Dropout(0.25)(y))
    x4, y4 = labkit.ones(2, 3, 4, 4, dtype=L), torch.ones(2, 3, 4, 4, dtype=T)
    same(labkit.nn.functional.dropout2d(x4, 0.5), torch.nn.functional.dropout2d(y4, 0.5))
    state_same()


@pytest.mark.parametrize("s", SEEDS[:3])
@pytest.mark.parametrize("dt", DTYPES)
def test_multinomial(s, dt):
    seed(s)
    L, T = getattr(labkit, dt), getattr(torch, dt)
    w = np.array([[0.1, 2.0, 0.0, 3.5, 1.0, 0.25, 0.7], [1, 1, 1, 1, 1, 1, 1.0]])
    lw, tw = labkit.tensor(w, dtype=L), torch.tensor(w, dtype=T)
    same(labkit.multinomial(lw, 20, replacement=True), torch.multinomial(tw, 20, replacement=True))
    same(labkit.multinomial(lw[0], 1), torch.multinomial(tw[0], 1))
    same(labkit.multinomial(lw, 1, replacement=True), torch.multinomial(tw, 1, replacement=True))
    same(labkit.multinomial(lw, 5), torch.multinomial(tw, 5))
    same(labkit.multinomial(lw[1], 7), torch.multinomial(tw[1], 7))
    state_same()


@pytest.mark.parametrize("s", SEEDS[:3])
def test_generators_and_state(s):
    g, tg = labkit.Generator().manual_seed(s), torch.Generator().manual_seed(s)
    same(labkit.randn(20, generator=g), torch.randn(20, generator=tg))
    same(labkit.randn(3, generator=g), torch.randn(3, generator=tg))
    same(g.get_state(), tg.get_state())
    assert g.initial_seed() == tg.initial_seed()
    # torch's state bytes load into labkit and continue the same stream, and back
    g2 = labkit.Generator().set_state(labkit.tensor(tg.get_state().numpy()))
    same(labkit.rand(40, generator=g2), torch.rand(40, generator=tg))
    same(labkit.randn(1, generator=g2), torch.randn(1, generator=tg))   # caches a value
    tg.set_state(torch.from_numpy(g2.get_state().numpy()))
    same(labkit.randn(5, generator=g2), torch.randn(5, generator=tg))
    # the default stream is untouched by draws from another generator
    seed(s)
    labkit.rand(5, generator=g)
    same(labkit.rand(4), torch.rand(4))
    assert labkit.initial_seed() == torch.initial_seed()
    saved, tsaved = labkit.get_rng_state(), torch.get_rng_state()
    a, b = labkit.randn(17), torch.randn(17)
    labkit.set_rng_state(saved)
    torch.set_rng_state(tsaved)
    same(labkit.randn(17), a)
    same(a, b)


def test_set_state_errors():
    with pytest.raises(RuntimeError, match="5056"):
        labkit.set_rng_state(labkit.zeros(10, dtype=labkit.uint8))
    bad = labkit.get_rng_state().numpy().copy()
    bad[8:12] = 0                  # left = 0: out of range, as torch refuses
    with pytest.raises(RuntimeError, match="corrupted"):
        labkit.set_rng_state(labkit.tensor(bad))
    with pytest.raises(RuntimeError):
        torch.set_rng_state(torch.from_numpy(bad))


def test_default_generator_initial_seed_and_generator_default():
    assert labkit.Generator().initial_seed() == torch.Generator().initial_seed()
    same(labkit.Generator().get_state(), torch.Generator().get_state())
    same(labkit.rand(5, generator=labkit.Generator()), torch.rand(5, generator=torch.Generator()))


@pytest.mark.parametrize("s", SEEDS[:3])
@pytest.mark.parametrize("dt", DTYPES)
def test_nn_init(s, dt):
    seed(s)
    L, T = getattr(labkit, dt), getattr(torch, dt)
    shapes = [(3, 5), (16, 8), (4, 3, 3, 3), (40, 30)]
    for name, kw in [("uniform_", dict(a=-0.3, b=0.9)), ("normal_", dict(mean=0.1, std=0.02)),
                     ("xavier_uniform_", {}), ("xavier_normal_", dict(gain=2.0)),
                     ("kaiming_uniform_", dict(a=math.sqrt(5))),
                     ("kaiming_uniform_", dict(nonlinearity="relu", mode="fan_out")),
                     ("kaiming_normal_", {}), ("trunc_normal_", dict(std=0.02)),
                     ("trunc_normal_", dict(mean=0.0, std=1.0, a=-0.5, b=0.5)),
                     ("trunc_normal_", dict(mean=3.0, std=1.0, a=-1.0, b=2.0))]:
        for shape in shapes:
            a = getattr(lnn.init, name)(labkit.empty(shape, dtype=L), **kw)
            b = getattr(torch.nn.init, name)(torch.empty(shape, dtype=T), **kw)
            same(a, b)
    state_same()


def _params(module):
    return [p.detach().numpy() if hasattr(p, "detach") else p for p in module.parameters()]


@pytest.mark.parametrize("s", SEEDS[:2])
def test_layers_start_from_torchs_weights(s):
    seed(s)
    pairs = [(lnn.Linear(5, 3), torch.nn.Linear(5, 3)),
             (lnn.Conv2d(3, 4, 3), torch.nn.Conv2d(3, 4, 3)),
             (lnn.Embedding(10, 4), torch.nn.Embedding(10, 4)),
             (lnn.Sequential(lnn.Linear(4, 8), lnn.ReLU(), lnn.Linear(8, 2)),
              torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)))]
    for mine, ref in pairs:
        for a, b in zip(mine.parameters(), ref.parameters()):
            same(a.detach(), b.detach())
    state_same()


def test_noncontiguous_fills_follow_memory_order():
    seed(5)
    a = labkit.empty(6, 40).t().normal_()
    b = torch.empty(6, 40).t().normal_()
    same(a, b)
    a = labkit.empty(3, 8)[:, ::2].uniform_()
    b = torch.empty(3, 8)[:, ::2].uniform_()
    same(a, b)
    state_same()


@pytest.mark.parametrize("s", SEEDS[:3])
def test_dataloader_shuffle_order(s):
    n = 37
    data = np.arange(n, dtype=np.float32)
    seed(s)
    mine = LDataLoader(LTensorDataset(labkit.tensor(data)), batch_size=5, shuffle=True)
    ref = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.tensor(data)),
                                      batch_size=5, shuffle=True)
    for _ in range(3):                              # epochs: each draws a fresh order
        a = [b[0].tolist() for b in mine]
        b = [b[0].tolist() for b in ref]
        assert a == b
    state_same()
    g, tg = labkit.Generator().manual_seed(s), torch.Generator().manual_seed(s)
    mine = LDataLoader(LTensorDataset(labkit.tensor(data)), batch_size=8, shuffle=True,
                       generator=g)
    ref = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.tensor(data)),
                                      batch_size=8, shuffle=True, generator=tg)
    for _ in range(2):
        assert [b[0].tolist() for b in mine] == [b[0].tolist() for b in ref]
    same(g.get_state(), tg.get_state())


@pytest.mark.parametrize("s", SEEDS[:2])
def test_samplers_and_random_split(s):
    from labkit.utils import data as ld
    tdata = torch.utils.data
    seed(s)
    assert list(ld.RandomSampler(range(20), replacement=True, num_samples=45)) == \
        list(tdata.RandomSampler(range(20), replacement=True, num_samples=45))
    assert list(ld.RandomSampler(range(9), num_samples=20)) == \
        list(tdata.RandomSampler(range(9), num_samples=20))
    assert list(ld.SubsetRandomSampler([3, 5, 7, 11, 13])) == \
        list(tdata.SubsetRandomSampler([3, 5, 7, 11, 13]))
    w = [0.5, 1.0, 0.0, 3.0, 0.25]
    assert list(ld.WeightedRandomSampler(w, 12)) == list(tdata.WeightedRandomSampler(w, 12))
    assert list(ld.WeightedRandomSampler(w, 3, replacement=False)) == \
        list(tdata.WeightedRandomSampler(w, 3, replacement=False))
    a = ld.random_split(range(10), [3, 7])
    b = tdata.random_split(range(10), [3, 7])
    assert [list(x) for x in a] == [list(x) for x in b]
    state_same()


def test_cuda_generator_draws_the_cpu_numbers(device):
    """On a GPU labkit draws on the host and moves: the numbers are torch's CPU numbers for
    the seed, not torch's cuda (Philox) stream."""
    seed(2)
    same(labkit.randn(20, device=device).cpu(), torch.randn(20))
