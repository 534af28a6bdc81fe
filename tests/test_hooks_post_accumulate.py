"""Tensor.register_post_accumulate_grad_hook against torch: when it runs, what it sees, removal."""
import pytest

import labkit

torch = pytest.importorskip("torch")


def _run(lib):
    lib.manual_seed(0)
    w = lib.ones(3, requires_grad=True)
    b = lib.ones(3, requires_grad=True)
    seen = []
    h = w.register_post_accumulate_grad_hook(lambda p: seen.append(("w", p.grad.tolist())))
    b.register_post_accumulate_grad_hook(lambda p: seen.append(("b", p.grad.tolist())))
    x = lib.tensor([1.0, 2.0, 3.0])
    ((w * x + b) ** 2).sum().backward()
    ((w * x) * 2).sum().backward()          # second backward: grad accumulated, hook sees the sum
    h.remove()
    (w * 3).sum().backward()                 # removed: no call
    return seen, w.grad.tolist()


def test_post_accumulate_hook_sees_accumulated_grad_like_torch():
    ours, theirs = _run(labkit), _run(torch)
    assert sorted(ours[0][:2]) == sorted(theirs[0][:2])
    assert ours[0][2:] == theirs[0][2:]
    assert ours[1] == theirs[1]


def test_post_accumulate_hook_refused_on_non_leaf_and_no_grad():
    x = labkit.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="non-leaf"):
        (x * 2).register_post_accumulate_grad_hook(lambda p: None)
    with pytest.raises(RuntimeError, match="does not require grad"):
        labkit.ones(2).register_post_accumulate_grad_hook(lambda p: None)
    with pytest.raises(RuntimeError):
        torch.ones(2, requires_grad=True).mul(2).register_post_accumulate_grad_hook(lambda p: None)


def _events(lib):
    """The order in which hooks see gradients: activations (tensor hooks) and weights (post-
    accumulate hooks), with w1 also used in a term computed before the chain."""
    events = []
    ws = [lib.full((3,), 0.5 + i, requires_grad=True) for i in range(3)]
    for i, w in enumerate(ws):
        w.register_post_accumulate_grad_hook(lambda p, i=i: events.append(f"w{i}"))
    reg = (ws[0] ** 2).sum()
    h = lib.ones(3)
    for i, w in enumerate(ws):
        h = (h * w).tanh()
        h.register_hook(lambda g, i=i: events.append(f"h{i}"))
    (h.sum() + reg).backward()
    return events, [w.grad.tolist() for w in ws]


def test_each_weight_is_accumulated_as_soon_as_its_consumers_ran_like_torch():
    """torch runs a leaf's AccumulateGrad first among the ready nodes (DDP's overlap relies
    on it): w2 lands before h1's gradient exists; w0, also used in `reg`, lands last."""
    ours, theirs = _events(labkit), _events(torch)
    assert ours[0] == theirs[0] == ["h2", "w2", "h1", "w1", "h0", "w0"]
    for a, b in zip(ours[1], theirs[1]):
        assert a == pytest.approx(b, rel=1e-6)


class _NoGrad(labkit.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return None


def test_a_leaf_behind_a_node_that_never_runs_is_accumulated_once():
    """w*2 gets no gradient (the custom op returns None), so it never runs and never counts
    down: w is still accumulated once, with the other path's gradient."""
    w = labkit.ones(2, requires_grad=True)
    calls = []
    w.register_post_accumulate_grad_hook(lambda p: calls.append(p.grad.tolist()))
    (_NoGrad.apply(w * 2).sum() + (w * 3).sum()).backward()
    assert calls == [[3.0, 3.0]]


def test_removing_a_post_accumulate_hook_twice_counts_it_once():
    from labkit.engine.grad_mode import process
    before = process.post_accumulate_hooks
    h = labkit.ones(2, requires_grad=True).register_post_accumulate_grad_hook(lambda p: None)
    assert process.post_accumulate_hooks == before + 1
    h.remove()
    h.remove()
    assert process.post_accumulate_hooks == before
