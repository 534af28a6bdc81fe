"""The margin / embedding / likelihood losses (functional and modules) against torch: values,
gradients for every float input with a random upstream grad, second derivatives, every
reduction, 1-D and batched shapes, size-0 batches, and torch's errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")
F, LF = torch.nn.functional, labkit.nn.functional
REDUCTIONS = ["mean", "sum", "none"]


def signs(shape, seed):
    return np.where(np.random.default_rng(seed).random(shape) < 0.5, -1.0, 1.0)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("n", [5, 1, 0])
def test_pairwise_losses(reduction, n, device):
    x1, x2, y = rand_array((n,), 1), rand_array((n,), 2), signs((n,), 3)
    for name, kw in (("margin_ranking_loss", {"margin": 0.3}),):
        check_op(lambda a, b, t: getattr(LF, name)(a, b, t, reduction=reduction, **kw),
                 lambda a, b, t: getattr(F, name)(a, b, t, reduction=reduction, **kw),
                 [x1, x2, y], device=device, requires_grad=[True, True, False])
    for name, kw in (("hinge_embedding_loss", {"margin": 0.7}), ("soft_margin_loss", {})):
        check_op(lambda a, t: getattr(LF, name)(a, t, reduction=reduction, **kw),
                 lambda a, t: getattr(F, name)(a, t, reduction=reduction, **kw),
                 [x1, y], device=device, requires_grad=[True, False])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(4, 3), (3,), (0, 3)])
def test_cosine_embedding_loss(reduction, shape, device):
    check_op(lambda a, b, t: LF.cosine_embedding_loss(a, b, t, 0.2, reduction=reduction),
             lambda a, b, t: F.cosine_embedding_loss(a, b, t, 0.2, reduction=reduction),
             [rand_array(shape, 1), rand_array(shape, 2), signs(shape[:-1], 3)], device=device,
             requires_grad=[True, True, False])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_soft_margin_loss(reduction, weighted, device):
    target = (np.random.default_rng(4).random((4, 3)) < 0.5).astype(np.float64)
    w = rand_array((3,), 5, positive=True)
    check_op(lambda a, t, w: LF.multilabel_soft_margin_loss(a, t, w if weighted else None,
                                                            reduction=reduction),
             lambda a, t, w: F.multilabel_soft_margin_loss(a, t, w if weighted else None,
                                                           reduction=reduction),
             [rand_array((4, 3), 1), target, w], device=device,
             requires_grad=[True, False, False])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin_loss(reduction, p, device):
    y = np.array([0, 2, 1, 2])
    w = rand_array((3,), 5, positive=True)
    for weight in (None, w):
        check_op(lambda a: LF.multi_margin_loss(a, labkit.tensor(y, device=device), p, 0.8,
                                                None if weight is None else labkit.tensor(weight, device=device),
                                                reduction=reduction),
                 lambda a: F.multi_margin_loss(a, torch.tensor(y), p, 0.8,
                                               None if weight is None else torch.tensor(weight),
                                               reduction=reduction),
                 [rand_array((4, 3), 1)], device=device)
    check_op(lambda a: LF.multi_margin_loss(a, labkit.tensor(1, device=device), reduction=reduction),
             lambda a: F.multi_margin_loss(a, torch.tensor(1), reduction=reduction),
             [rand_array((3,), 2)], device=device)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kw", [{}, {"p": 1.0, "swap": True, "margin": 0.5}])
@pytest.mark.parametrize("shape", [(4, 3), (3,)])
def test_triplet_margin_loss(reduction, kw, shape, device):
    check_op(lambda a, b, c: LF.triplet_margin_loss(a, b, c, reduction=reduction, **kw),
             lambda a, b, c: F.triplet_margin_loss(a, b, c, reduction=reduction, **kw),
             [rand_array(shape, 1), rand_array(shape, 2), rand_array(shape, 3)], device=device)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input, full", [(True, False), (False, False), (True, True), (False, True)])
def test_poisson_nll_loss(reduction, log_input, full, device):
    target = np.array([[0.0, 1.0, 2.0], [3.0, 0.5, 7.0]])
    x = rand_array((2, 3), 1, positive=not log_input)
    check_op(lambda a, t: LF.poisson_nll_loss(a, t, log_input, full, reduction=reduction),
             lambda a, t: F.poisson_nll_loss(a, t, log_input, full, reduction=reduction),
             [x, target], device=device)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("var_shape", [(4, 3), (4,), (4, 1)])
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll_loss(reduction, var_shape, full, device):
    var = rand_array(var_shape, 3, positive=True)
    var.flat[0] = 1e-9                           # below eps: clamped, gradient unchanged
    check_op(lambda a, t, v: LF.gaussian_nll_loss(a, t, v, full, reduction=reduction),
             lambda a, t, v: F.gaussian_nll_loss(a, t, v, full, reduction=reduction),
             [rand_array((4, 3), 1), rand_array((4, 3), 2), var], device=device, rtol=1e-6)


def test_second_derivatives():
    a0, b0, c0 = rand_array((4, 3), 1), rand_array((4, 3), 2), rand_array((4, 3), 3)
    res = []
    for lib, f in ((labkit, LF), (torch, F)):
        a, b, c = (lib.tensor(v, requires_grad=True) for v in (a0, b0, c0))
        y = (f.triplet_margin_loss(a, b, c) + f.cosine_embedding_loss(a, b, lib.tensor([1.0, -1, 1, -1]))
             + f.gaussian_nll_loss(a, b, c.abs() + 0.1) + f.soft_margin_loss(a, lib.tensor(signs((4, 3), 9))))
        (g,) = lib.autograd.grad(y, a, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), (b,))
        res.append((g.detach().numpy(), h.numpy()))
    for m, t in zip(*res):
        np.testing.assert_allclose(m, t, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("name, args, kw", [
    ("MarginRankingLoss", 3, {"margin": 0.5}), ("HingeEmbeddingLoss", 2, {}),
    ("SoftMarginLoss", 2, {}), ("CosineEmbeddingLoss", 3, {"margin": 0.1}),
    ("MultiLabelSoftMarginLoss", 2, {}), ("TripletMarginLoss", 3, {"swap": True}),
    ("PoissonNLLLoss", 2, {"full": True}), ("GaussianNLLLoss", 3, {"full": True}),
    ("MultiMarginLoss", 2, {"p": 2}),
])
def test_modules(name, args, kw):
    x = [rand_array((4, 3), i) for i in range(3)]
    if name in ("MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss"):
        x = [v[:, 0] for v in x]
        x[args - 1] = signs((4,), 7)
    if name == "CosineEmbeddingLoss":
        x[2] = signs((4,), 7)
    if name == "MultiLabelSoftMarginLoss":
        x[1] = (x[1] > 0).astype(np.float64)
    if name == "GaussianNLLLoss":
        x[2] = np.abs(x[2]) + 0.1
    if name == "PoissonNLLLoss":
        x[1] = np.abs(x[1]) * 3
    if name == "MultiMarginLoss":
        x[1] = np.array([0, 1, 2, 0])
    for reduction in REDUCTIONS:
        m = getattr(labkit.nn, name)(reduction=reduction, **kw)
        t = getattr(torch.nn, name)(reduction=reduction, **kw)
        assert repr(m) == repr(t)
        all_grad = name in ("TripletMarginLoss", "GaussianNLLLoss")
        check_op(lambda *a: m(*a), lambda *a: t(*a), x[:args],
                 requires_grad=[v.dtype == np.float64 and (all_grad or i < args - 1)
                                for i, v in enumerate(x[:args])])


def test_errors_like_torch():
    cases = [
        (lambda lib, f: f.margin_ranking_loss(lib.ones(3), lib.ones(3), lib.ones(1, 3)), RuntimeError),
        (lambda lib, f: f.triplet_margin_loss(lib.ones(2, 3), lib.ones(3), lib.ones(2, 3)), RuntimeError),
        (lambda lib, f: f.gaussian_nll_loss(lib.ones(4, 3), lib.ones(4, 3), lib.ones(3, 3)), ValueError),
        (lambda lib, f: f.gaussian_nll_loss(lib.ones(4, 3), lib.ones(4, 3), -lib.ones(4, 3)), ValueError),
        (lambda lib, f: f.gaussian_nll_loss(lib.ones(4, 3), lib.ones(4, 3), lib.ones(4, 3), reduction="max"), ValueError),
        (lambda lib, f: f.multi_margin_loss(lib.ones(4, 3), lib.zeros(4, dtype=lib.int64), p=3), ValueError),
        (lambda lib, f: f.multi_margin_loss(lib.ones(4, 3), lib.zeros(3, dtype=lib.int64)), RuntimeError),
        (lambda lib, f: f.soft_margin_loss(lib.ones(3), lib.ones(3), reduction="avg"), ValueError),
        (lambda lib, f: lib.nn.TripletMarginLoss(margin=0.0), ValueError),
    ]
    for call, exc in cases:
        with pytest.raises(exc):
            call(torch, F)
        with pytest.raises(exc):
            call(labkit, LF)
