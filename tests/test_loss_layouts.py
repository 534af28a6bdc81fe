"""The loss call forms real programs use, against torch: class scores per position
(N, C, d1, ...), one unbatched example (C,), class-probability targets, BCE's pos_weight and
weight, mse/l1 element weights, and the old size_average/reduce flags (values and gradients)."""
import warnings

import numpy as np
import pytest

import labkit
import labkit.nn as nn
import labkit.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional
rng = np.random.default_rng(0)


def _probs(*shape, dim=1):
    p = rng.random(shape)
    return p / p.sum(dim, keepdims=True)


X4, T4 = rng.standard_normal((2, 3, 4, 5)), rng.integers(0, 3, (2, 4, 5))
P = _probs(6, 4)
CASES = {   # name: (function name, arrays, indices of integer arrays, keywords)
    "ce per pixel": ("cross_entropy", (X4, T4), {}),
    "ce per pixel, weight, ignored": ("cross_entropy", (X4, np.where(T4 == 2, -100, T4)),
                                      {"weight": np.array([1.0, 2.0, 0.5])}),
    "ce per pixel, smoothing": ("cross_entropy", (X4, T4), {"label_smoothing": 0.2}),
    "ce per token (N, C, T)": ("cross_entropy", (rng.standard_normal((2, 5, 7)),
                                                 rng.integers(0, 5, (2, 7))), {}),
    "nll per pixel": ("nll_loss", (X4, T4), {}),
    "ce unbatched": ("cross_entropy", (rng.standard_normal(4), np.array(2)), {}),
    "nll unbatched": ("nll_loss", (rng.standard_normal(4), np.array(1)), {}),
    "ce probabilities": ("cross_entropy", (rng.standard_normal((6, 4)), P), {}),
    "ce probabilities, weight, smoothing": (
        "cross_entropy", (rng.standard_normal((6, 4)), P),
        {"weight": np.array([1.0, 2.0, 0.5, 3.0]), "label_smoothing": 0.1}),
    "ce probabilities per position, weight": (
        "cross_entropy", (rng.standard_normal((2, 3, 5)), _probs(2, 3, 5)),
        {"weight": np.array([1.0, 2.0, 0.5])}),
    "ce probabilities unbatched": ("cross_entropy", (rng.standard_normal(4), P[0]), {}),
    "ce probabilities, empty batch": ("cross_entropy", (np.zeros((0, 4)), np.zeros((0, 4))), {}),
    "bce logits pos_weight, weight": (
        "binary_cross_entropy_with_logits", (rng.standard_normal((5, 3)) * 3, rng.random((5, 3))),
        {"pos_weight": np.array([1.0, 3.0, 0.5]), "weight": rng.random((5, 3))}),
    "bce logits pos_weight at 0 and +-40": (
        "binary_cross_entropy_with_logits", (np.array([[0.0, 40.0, -40.0]]), rng.random((1, 3))),
        {"pos_weight": np.array([1.0, 3.0, 0.5])}),
    "mse element weight": ("mse_loss", (rng.standard_normal((3, 4)), rng.standard_normal((3, 4))),
                           {"weight": rng.random((3, 4))}),
    "l1 element weight": ("l1_loss", (rng.standard_normal((3, 4)), rng.standard_normal((3, 4))),
                          {"weight": rng.random((3, 4))}),
}


def _run(lib, f, arrays, kw, up):
    ts = [lib.tensor(a, requires_grad=True) if a.dtype.kind == "f" else lib.tensor(a)
          for a in arrays]
    out = f(*ts, **{k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()})
    up = np.random.default_rng(1).standard_normal(tuple(out.shape)) if up is None else up
    out.backward(lib.tensor(up))
    return (np.asarray(out.tolist()), [np.asarray(t.grad.tolist()) for t in ts if t.requires_grad],
            up)


def _compare(name, arrays, kw):
    out_t, grads_t, up = _run(torch, getattr(TF, name), arrays, kw, None)
    out_l, grads_l, _ = _run(labkit, getattr(F, name), arrays, kw, up)
    assert out_l.shape == out_t.shape
    np.testing.assert_allclose(out_l, out_t, rtol=1e-10, atol=1e-12, equal_nan=True)
    for a, b in zip(grads_l, grads_t):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", list(CASES))
def test_loss_forms_match_torch(case, reduction):
    name, arrays, kw = CASES[case]
    _compare(name, arrays, dict(kw, reduction=reduction))


@pytest.mark.parametrize("flags", [{"size_average": False}, {"reduce": False},
                                   {"size_average": True, "reduce": True}], ids=str)
@pytest.mark.parametrize("name", ["nll_loss", "cross_entropy", "mse_loss", "l1_loss", "kl_div",
                                  "smooth_l1_loss", "binary_cross_entropy_with_logits"])
def test_legacy_flags_mean_what_torch_reads_them_as(name, flags):
    """F.nll_loss(out, y, size_average=False): the summed test loss of older tutorials."""
    x = rng.standard_normal((4, 3))
    t = rng.integers(0, 3, 4) if name in ("nll_loss", "cross_entropy") else rng.random((4, 3))
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        _compare(name, (x, t), flags)


def test_bce_with_logits_module_keeps_pos_weight_as_a_buffer():
    mine = nn.BCEWithLogitsLoss(pos_weight=labkit.tensor([2.0, 1.0]))
    theirs = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 1.0]))
    assert sorted(mine.state_dict()) == sorted(theirs.state_dict()) == ["pos_weight"]
    x, t = rng.standard_normal((3, 2)), rng.random((3, 2))
    assert mine(labkit.tensor(x), labkit.tensor(t)).item() == pytest.approx(
        theirs(torch.tensor(x), torch.tensor(t)).item(), rel=1e-12)


def test_wrong_layouts_name_the_shapes():
    with pytest.raises(RuntimeError, match=r"classes in dim 1.*\(2, 4, 5\).*\(2, 5, 4\)"):
        F.cross_entropy(labkit.tensor(X4), labkit.zeros(2, 5, 4, dtype=labkit.int64))
    with pytest.raises(RuntimeError, match=r"probability targets.*\(6, 4\).*\(6, 3\)"):
        F.cross_entropy(labkit.randn(6, 4), labkit.rand(6, 3))
    with pytest.raises(RuntimeError, match="0-d target"):
        F.cross_entropy(labkit.randn(4), labkit.tensor([1]))
    with pytest.raises(ValueError):
        TF.mse_loss(torch.ones(3, 4), torch.ones(3, 4), weight=torch.ones(4))
    with pytest.raises(ValueError, match=r"weight has shape \(4,\).*\(3, 4\)"):
        F.mse_loss(labkit.ones(3, 4), labkit.ones(3, 4), weight=labkit.ones(4))
