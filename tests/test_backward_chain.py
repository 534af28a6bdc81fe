"""The backward loop's chain path (issue 21, W2): a node that starts the gradient of exactly one
node, with no other node waiting, hands it on directly instead of through the heap. Each case
below sits on an edge of that rule (a second gradient for the held node, another node still
waiting, several outputs, hooks and retain_grad on a held node); each is checked against torch."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def _run(lib, fn, arrays, hook_log=None):
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(lib, xs, hook_log)
    out.backward()
    return [x.grad for x in xs]


def _square_chain(lib, xs, log):
    y = xs[0].tanh()
    y = y * y                  # both edges of one node reach the held node: summed, not lost
    return (y * 3).exp().sum()


def _diamond(lib, xs, log):
    h = xs[0] * 2              # two consumers: the first to run must not hand h on early
    a = (h + 1).tanh()
    b = (h * h).sin()
    return (a * b).sum()


def _split_chain(lib, xs, log):
    p, q = xs[0].tanh().split(2)   # a node with two outputs is never held
    return (p.exp().sum() * q.sum()).tanh()


def _hooked_chain(lib, xs, log):
    y = xs[0] * 1.5
    z = y.tanh()
    z.retain_grad()
    z.register_hook(lambda g: log.append(g.sum().item()) or g * 2)
    w = z.exp()
    log.append(z)
    return w.sum()


def _two_leaves(lib, xs, log):
    return ((xs[0] * xs[1]).tanh() + xs[1]).sum()


CASES = {"square": (_square_chain, 1), "diamond": (_diamond, 1), "split": (_split_chain, 1),
         "hooked": (_hooked_chain, 1), "two_leaves": (_two_leaves, 2)}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("shape", [(4,), (), (0,), (2, 1)])
def test_chain_edges_match_torch(name, shape):
    fn, n = CASES[name]
    if name == "split" and shape != (4,):
        pytest.skip("split(2) needs 4 elements")
    rng = np.random.default_rng(1)
    arrays = [rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(n)]
    mine_log, ref_log = [], []
    mine = _run(labkit, fn, arrays, mine_log)
    ref = _run(torch, fn, arrays, ref_log)
    for m, r in zip(mine, ref):
        assert tuple(m.shape) == tuple(r.shape)
        np.testing.assert_allclose(m.numpy(), r.numpy(), rtol=1e-5, atol=1e-6)
    if name == "hooked":
        assert mine_log[1] == pytest.approx(ref_log[1], rel=1e-5)      # the hook ran, once
        np.testing.assert_allclose(mine_log[0].grad.numpy(), ref_log[0].grad.numpy(),
                                   rtol=1e-5, atol=1e-6)                # retain_grad saw it


def test_a_long_chain_frees_each_node_once_and_twice_raises():
    x = labkit.randn(8, requires_grad=True)
    y = x
    for _ in range(50):
        y = (y * 0.9).tanh()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.sum().backward()
