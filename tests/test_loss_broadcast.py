"""Elementwise losses of differently shaped input and target, against torch: torch broadcasts
them with a UserWarning (valid code, usually a bug); labkit must give the same values and
gradients, and warn, rather than refuse code that runs on torch."""
import warnings

import numpy as np
import pytest

import labkit
import labkit.nn.functional as F

torch = pytest.importorskip("torch")

LOSSES = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"]
SHAPES = [((4, 1), (4,)), ((3,), (1,)), ((1,), (3, 2)), ((2, 0), (1,)), ((), (3,)), ((2, 3), ())]


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_broadcast_loss_values_and_grads_match_torch(name, reduction, shapes):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    outs, grads = [], []
    for lib, f in ((torch, getattr(torch.nn.functional, name)), (labkit, getattr(F, name))):
        x, t = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        with pytest.warns(UserWarning, match="different to the input size"):
            out = f(x, t, reduction=reduction)
        up = np.random.default_rng(1).standard_normal(tuple(out.shape))
        out.backward(lib.tensor(up))
        outs.append(np.asarray(out.tolist()))
        grads.append((np.asarray(x.grad.tolist()), np.asarray(t.grad.tolist())))
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-12, atol=1e-15, equal_nan=True)
    for ours, theirs in zip(grads[1], grads[0]):
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)


def test_same_shapes_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in LOSSES:
            getattr(F, name)(labkit.ones(2, 3), labkit.zeros(2, 3))


def test_mse_loss_broadcast_second_derivative_matches_torch():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((3, 1)), rng.standard_normal((2,))
    res = []
    for lib, f in ((torch, torch.nn.functional.mse_loss), (labkit, F.mse_loss)):
        x, t = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        with pytest.warns(UserWarning):
            loss = f(x, t)
        gx, = lib.autograd.grad(loss, x, create_graph=True)
        gt, = lib.autograd.grad((gx ** 2).sum(), t)
        res.append((np.asarray(gx.tolist()), np.asarray(gt.tolist())))
    for ours, theirs in zip(res[1], res[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_bce_with_logits_refuses_other_shapes_as_torch():
    with pytest.raises(ValueError, match="must be the same as input size"):
        torch.nn.functional.binary_cross_entropy_with_logits(torch.ones(3, 1), torch.ones(3))
    with pytest.raises(ValueError, match=r"must be the same as input size.*view\(-1, 1\)"):
        F.binary_cross_entropy_with_logits(labkit.ones(3, 1), labkit.ones(3))
