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
