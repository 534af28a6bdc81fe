"""normal, bernoulli, multinomial and the in-place fills normal_/uniform_/bernoulli_/
exponential_: distributions (moments on many samples), dtypes and shapes as torch, generator=
reproducibility, the in-place machinery (version, leaf check, zero gradient), errors."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

N = 200_000


def test_normal_forms_shapes_and_dtypes(device):
    m = labkit.zeros(2, 3, dtype=labkit.float64, device=device)
    assert labkit.normal(m, 2.0).dtype == labkit.float64 and labkit.normal(m, 2.0).shape == (2, 3)
    assert labkit.normal(0.0, labkit.ones(4, device=device)).shape == (4,)
    assert labkit.normal(m, labkit.ones(3, dtype=labkit.float64, device=device)).shape == (2, 3)
    out = labkit.normal(1.0, 2.0, size=(N,))
    assert out.dtype == labkit.float32 and out.device == labkit.device("cpu")
    assert abs(out.mean().item() - 1.0) < 0.02 and abs(out.std().item() - 2.0) < 0.02
    assert labkit.normal(0.0, 1.0, (3,), device=device).device == labkit.device(device)
    assert str(torch.normal(0.0, 1.0, size=(2,)).dtype) == "torch.float32"


def test_normal_tensor_mean_and_std_have_zero_gradient_like_torch():
    m = labkit.zeros(3, requires_grad=True)
    s = labkit.ones(3, requires_grad=True)
    y = labkit.normal(m, s)
    assert type(y.grad_fn).__name__ == "NormalBackward3"
    y.sum().backward()
    assert m.grad.tolist() == [0.0] * 3 and s.grad.tolist() == [0.0] * 3


def test_normal_errors():
    with pytest.raises(RuntimeError, match="std"):
        labkit.normal(0.0, -1.0, size=(2,))
    with pytest.raises(RuntimeError, match="std"):
        labkit.normal(labkit.zeros(2), labkit.tensor([1.0, -1.0]))
    with pytest.raises(TypeError, match="size"):
        labkit.normal(0.0, 1.0)


@pytest.mark.parametrize("name,args,mean,var", [
    ("normal_", (2.0, 0.5), 2.0, 0.25),
    ("uniform_", (-1.0, 3.0), 1.0, 16 / 12),
    ("bernoulli_", (0.3,), 0.3, 0.21),
    ("exponential_", (4.0,), 0.25, 1 / 16),
])
def test_inplace_fills(device, name, args, mean, var):
    x = labkit.empty(N, device=device)
    v = x._version
    assert getattr(x, name)(*args) is x and x._version == v + 1
    d = x.cpu().numpy().astype(np.float64)
    assert abs(d.mean() - mean) < 0.02 and abs(d.var() - var) < 0.03 * max(var, 0.1)
    t = getattr(torch.empty(4, dtype=torch.float64), name)(*args)
    assert getattr(labkit.empty(4, dtype=labkit.float64), name)(*args).dtype == labkit.float64
    assert str(t.dtype) == "torch.float64"


def test_fill_ranges():
    """uniform_(2, 3) in float32 is torch's draw, number for number: (to - from) * u + from
    rounded to float32, which can reach 3.0 itself (u = 1 - 2**-24), so the bound is <=."""
    labkit.manual_seed(0)
    torch.manual_seed(0)
    u = labkit.empty(N).uniform_(2.0, 3.0)
    np.testing.assert_array_equal(u.numpy(), torch.empty(N).uniform_(2.0, 3.0).numpy())
    assert u.min().item() >= 2.0 and u.max().item() <= 3.0
    assert labkit.empty(N).exponential_().min().item() >= 0
    b = labkit.empty(1000).bernoulli_(labkit.full((1000,), 1.0))
    assert b.tolist() == [1.0] * 1000
    assert set(labkit.zeros(100, dtype=labkit.int64).bernoulli_().tolist()) <= {0, 1}


def test_fill_on_a_leaf_that_requires_grad():
    w = labkit.empty(3, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        w.normal_()
    with labkit.no_grad():
        w.normal_(0, 0.01)
    w.data.uniform_(-0.1, 0.1)        # the .data idiom of old tutorials
    assert w.requires_grad and w.abs().max().item() <= 0.1


def test_fill_of_a_nonleaf_gives_zero_gradient_like_torch():
    a = labkit.ones(3, requires_grad=True)
    y = a * 2
    y.normal_()
    (y * 3).sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.0]


def test_fill_errors():
    with pytest.raises(RuntimeError, match="normal_"):
        labkit.zeros(2, dtype=labkit.int64).normal_()
    with pytest.raises(RuntimeError, match="uniform_"):
        labkit.zeros(2).uniform_(1.0, 0.0)
    with pytest.raises(RuntimeError, match="bernoulli_"):
        labkit.zeros(2).bernoulli_(1.5)
    with pytest.raises(RuntimeError, match="exponential_"):
        labkit.zeros(2).exponential_(0.0)


def test_bernoulli(device):
    p = labkit.full((N,), 0.25, device=device)
    s = labkit.bernoulli(p)
    assert s.dtype == labkit.float32 and s.shape == (N,)
    assert abs(s.mean().item() - 0.25) < 0.01
    assert set(np.unique(s.cpu().numpy()).tolist()) <= {0.0, 1.0}
    assert abs(p.bernoulli(0.75).mean().item() - 0.75) < 0.01
    with pytest.raises(RuntimeError, match="bernoulli"):
        labkit.bernoulli(labkit.tensor([1.5]))


def test_multinomial(device):
    w = labkit.tensor([[0.0, 1.0, 3.0], [5.0, 0.0, 0.0]], device=device)
    s = labkit.multinomial(w, 4000, replacement=True)
    assert s.dtype == labkit.int64 and s.shape == (2, 4000)
    row = s[0].cpu().numpy()
    assert set(row.tolist()) <= {1, 2} and abs((row == 2).mean() - 0.75) < 0.03
    assert s[1].tolist() == [0] * 4000
    no_rep = w[0].multinomial(2)
    assert sorted(no_rep.tolist()) == [1, 2] and no_rep.shape == (2,)
    assert w[0].multinomial(3).tolist()[2] == 0   # a zero weight comes only once others are used
    firsts = labkit.multinomial(labkit.tensor([1.0, 3.0]).expand(4000, 2), 1)
    assert abs(firsts.float().mean().item() - 0.75) < 0.03


@pytest.mark.parametrize("call", [
    lambda M: M.multinomial(M.tensor([0.0, 1.0, 3.0]), 4),            # more than categories
    lambda M: M.multinomial(M.tensor([-1.0, 1.0]), 1),
    lambda M: M.multinomial(M.tensor([0.0, 0.0]), 1, True),
    lambda M: M.multinomial(M.ones(2, 2, 2), 1),
])
def test_multinomial_errors_like_torch(call):
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError, match="multinomial"):
        call(labkit)


def test_generator_makes_draws_reproducible(device):
    """Every sampler takes generator=: the same seed gives the same numbers."""
    def draws(seed):
        g = labkit.Generator().manual_seed(seed)
        return [labkit.randn(3, generator=g), labkit.rand(size=(2,), generator=g),
                labkit.randint(0, 10, (4,), generator=g), labkit.randperm(5, generator=g),
                labkit.multinomial(labkit.ones(4), 2, generator=g),
                labkit.normal(0.0, 1.0, (3,), generator=g),
                labkit.normal(labkit.zeros(3), 1.0, generator=g),
                labkit.bernoulli(labkit.full((5,), 0.5), generator=g),
                labkit.empty(3, device=device).normal_(generator=g),
                labkit.empty(3).uniform_(generator=g)]
    a, b, c = draws(1), draws(1), draws(2)
    assert all(x.tolist() == y.tolist() for x, y in zip(a, b))
    assert any(x.tolist() != y.tolist() for x, y in zip(a, c))


def test_generator_state_round_trip_and_default_stream_untouched():
    g = labkit.Generator()
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    state = g.get_state()
    x = labkit.randn(4, generator=g)
    g.set_state(state)
    assert labkit.randn(4, generator=g).tolist() == x.tolist()
    labkit.manual_seed(0)
    first = labkit.randn(3)
    labkit.manual_seed(0)
    labkit.randn(5, generator=labkit.Generator().manual_seed(9))
    assert labkit.randn(3).tolist() == first.tolist()


def test_jit_trace_draws_fresh_samples_or_refuses():
    """normal/bernoulli with tensor arguments are ops: a traced function draws anew each call;
    the samplers that are not ops refuse to be frozen into a graph."""
    def f(m):
        return labkit.normal(m, 1.0) + labkit.bernoulli(m.sigmoid())
    m = labkit.zeros(50)
    traced = labkit.jit.trace(f, (m,))
    assert traced(m).tolist() != traced(m).tolist()
    for g in (lambda m: m.clone().normal_(), lambda m: labkit.multinomial(m.exp(), 1),
              lambda m: m + labkit.normal(0.0, 1.0, (50,))):
        with pytest.raises(RuntimeError, match="labkit.jit"):
            labkit.jit.trace(g, (m,))


def test_randint_forms_like_torch():
    for call in (lambda M: M.randint(10, (3,)), lambda M: M.randint(2, 5, (2, 2)),
                 lambda M: M.randint(0, 3, size=(4,)), lambda M: M.randint(5, size=(2,))):
        got, want = call(labkit), call(torch)
        assert tuple(got.shape) == tuple(want.shape) and got.dtype == labkit.int64
    draws = labkit.randint(10, (1000,))
    assert 0 <= draws.min().item() and draws.max().item() < 10


def test_random_fills_integers_in_range():
    t = labkit.empty(3, dtype=labkit.int64).random_(5)          # torch's docs' target idiom
    assert t.dtype == labkit.int64 and all(0 <= v < 5 for v in t.tolist())
    u = labkit.empty(2000).random_(2, 4)
    assert set(u.tolist()) == {2.0, 3.0}
    with pytest.raises(RuntimeError, match="random_"):
        labkit.empty(2).random_(3, 3)
