"""Every nn layer and loss against torch.nn, in float64: the torch layer's weights are copied
into the labkit layer through load_state_dict (so the parameter names must match too), then
outputs, input gradients and parameter gradients are compared for a random upstream gradient."""
import math

import numpy as np
import pytest

import labkit
from labkit import nn

torch = pytest.importorskip("torch")
tnn = torch.nn

RTOL, ATOL = 1e-9, 1e-12


def close(mine, ref, what):
    m = mine.detach().cpu().numpy() if isinstance(mine, labkit.Tensor) else np.asarray(mine)
    r = ref.detach().numpy()
    assert m.shape == r.shape, f"{what}: shape {m.shape} != torch {r.shape}"
    np.testing.assert_allclose(m, r, rtol=RTOL, atol=ATOL, err_msg=what)


def twin_layers(make, device="cpu"):
    """The same layer in labkit and torch (float64), with torch's weights copied into labkit's."""
    mine, ref = make(nn).double().to(device), make(tnn).double()
    mine.load_state_dict({k: labkit.tensor(v.numpy(), device=device)
                          for k, v in ref.state_dict().items()})
    return mine, ref


def run_pair(mine, ref, x, device="cpu", seed=0, int_input=False):
    """Forward both layers on x (numpy); backward a random upstream gradient; compare all."""
    xl = labkit.tensor(x, device=device, requires_grad=not int_input)
    xt = torch.tensor(x, requires_grad=not int_input)
    yl, yt = mine(xl), ref(xt)
    close(yl, yt, "output")
    g = np.random.default_rng(seed).standard_normal(tuple(yt.shape))
    yl.backward(labkit.tensor(g, device=device))
    yt.backward(torch.tensor(g))
    if not int_input:
        close(xl.grad, xt.grad, "input gradient")
    mine_params = dict(mine.named_parameters())
    for name, p in ref.named_parameters():
        assert (mine_params[name].grad is None) == (p.grad is None), name
        if p.grad is not None:
            close(mine_params[name].grad, p.grad, f"gradient of {name}")
    return yl, yt


def data(shape, seed=1, away_from_zero=False):
    x = np.random.default_rng(seed).uniform(-2, 2, size=shape)
    if away_from_zero:                    # keep off the kinks of relu-like functions
        x = np.where(np.abs(x) < 0.1, 0.2, x)
    return x


LAYERS = {
    "Linear": (lambda m: m.Linear(5, 4), (3, 5)),
    "Linear no bias": (lambda m: m.Linear(5, 4, bias=False), (3, 5)),
    "Linear 3-D input": (lambda m: m.Linear(5, 4), (2, 3, 5)),
    "Linear 1-D input": (lambda m: m.Linear(5, 4), (5,)),
    "Conv2d": (lambda m: m.Conv2d(3, 4, 3), (2, 3, 7, 6)),
    "Conv2d strided padded dilated": (
        lambda m: m.Conv2d(3, 4, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(2, 1),
                           bias=False), (2, 3, 8, 5)),
    "Conv2d unbatched": (lambda m: m.Conv2d(2, 3, 2, padding=1), (2, 4, 4)),
    "MaxPool2d": (lambda m: m.MaxPool2d(2), (2, 3, 6, 6)),
    "MaxPool2d overlapping padded": (lambda m: m.MaxPool2d(3, stride=1, padding=1), (2, 3, 5, 4)),
    "MaxPool2d dilated": (lambda m: m.MaxPool2d((3, 2), stride=(2, 1), dilation=(1, 2)),
                          (1, 2, 7, 6)),
    "Flatten": (lambda m: m.Flatten(), (2, 3, 4, 5)),
    "Flatten(0, 1)": (lambda m: m.Flatten(0, 1), (2, 3, 4)),
    "BatchNorm1d": (lambda m: m.BatchNorm1d(4), (6, 4)),
    "BatchNorm1d 3-D": (lambda m: m.BatchNorm1d(3), (4, 3, 5)),
    "BatchNorm1d no affine": (lambda m: m.BatchNorm1d(4, affine=False), (6, 4)),
    "BatchNorm1d no bias": (lambda m: m.BatchNorm1d(4, bias=False), (6, 4)),
    "ReLU": (lambda m: m.ReLU(), (4, 5)),
    "LeakyReLU": (lambda m: m.LeakyReLU(0.2), (4, 5)),
    "Sigmoid": (lambda m: m.Sigmoid(), (4, 5)),
    "Tanh": (lambda m: m.Tanh(), (4, 5)),
    "GELU": (lambda m: m.GELU(), (4, 5)),
    "GELU tanh": (lambda m: m.GELU(approximate="tanh"), (4, 5)),
    "Softmax": (lambda m: m.Softmax(dim=1), (4, 5)),
    "Identity": (lambda m: m.Identity(), (4, 5)),
    "Dropout in eval mode": (lambda m: m.Dropout(0.5).eval(), (4, 5)),
    "Sequential CNN": (lambda m: m.Sequential(
        m.Conv2d(1, 4, 3, padding=1), m.ReLU(), m.MaxPool2d(2), m.Flatten(),
        m.Linear(4 * 3 * 3, 8), m.GELU(), m.Linear(8, 3)), (2, 1, 6, 6)),
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_torch(name, device):
    make, shape = LAYERS[name]
    torch.manual_seed(0)
    mine, ref = twin_layers(make, device)
    run_pair(mine, ref, data(shape, away_from_zero=True), device)


def test_batchnorm_running_statistics_and_eval_mode_match_torch():
    for momentum in (0.1, None):
        mine, ref = twin_layers(lambda m: m.BatchNorm1d(3, momentum=momentum))
        for step in range(3):
            run_pair(mine, ref, data((5, 3), seed=step))
        for name in ("running_mean", "running_var", "num_batches_tracked"):
            close(getattr(mine, name), getattr(ref, name), f"{name} (momentum={momentum})")
        mine.eval()
        ref.eval()
        run_pair(mine, ref, data((4, 3), seed=9))


def test_batchnorm_needs_more_than_one_value_per_channel_when_training():
    bn = nn.BatchNorm1d(3)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        bn(labkit.randn(1, 3))
    bn.eval()
    assert bn(labkit.randn(1, 3)).shape == (1, 3)


def test_embedding_matches_torch_with_padding_idx():
    mine, ref = twin_layers(lambda m: m.Embedding(10, 3, padding_idx=0))
    idx = np.array([[1, 0, 4, 4, 9], [0, 2, 2, 7, 1]])
    yl, yt = mine(labkit.tensor(idx)), ref(torch.tensor(idx))
    close(yl, yt, "output")
    g = np.random.default_rng(0).standard_normal(yt.shape)
    yl.backward(labkit.tensor(g))
    yt.backward(torch.tensor(g))
    close(mine.weight.grad, ref.weight.grad, "weight gradient")
    assert np.all(mine.weight.grad.numpy()[0] == 0)           # the padding row never learns
    assert np.all(nn.Embedding(5, 2, padding_idx=-1).weight.detach().numpy()[4] == 0)


def test_embedding_rejects_bad_indices():
    emb = nn.Embedding(4, 2)
    with pytest.raises(IndexError, match=r"\[0, 3\]"):
        emb(labkit.tensor([1, 4]))
    with pytest.raises(RuntimeError, match="integers"):
        emb(labkit.tensor([1.0, 2.0]))


def test_dropout_in_training_mode():
    labkit.manual_seed(0)
    drop = nn.Dropout(0.25)
    x = labkit.ones(200, 50, dtype=labkit.float64, requires_grad=True)
    y = drop(x)
    kept = y.detach().numpy() != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(y.detach().numpy()[kept], 1 / 0.75)   # survivors scaled up
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())   # grad = mask / (1 - p)
    assert nn.Dropout(1.0)(x).detach().numpy().max() == 0
    assert nn.Dropout(0.0)(x) is x
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)


LOSSES = {
    "MSELoss": (lambda m, r: m.MSELoss(reduction=r), "float"),
    "L1Loss": (lambda m, r: m.L1Loss(reduction=r), "float"),
    "CrossEntropyLoss": (lambda m, r: m.CrossEntropyLoss(reduction=r), "class"),
    "NLLLoss": (lambda m, r: m.NLLLoss(reduction=r), "class"),
    "BCEWithLogitsLoss": (lambda m, r: m.BCEWithLogitsLoss(reduction=r), "prob"),
}


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", list(LOSSES))
def test_loss_matches_torch(name, reduction, device):
    make, kind = LOSSES[name]
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 4))
    target = {"float": rng.standard_normal((6, 4)), "prob": rng.uniform(0, 1, (6, 4)),
              "class": rng.integers(0, 4, 6)}[kind]
    if name == "NLLLoss":
        x = x - np.log(np.exp(x).sum(1, keepdims=True))      # log-probabilities
    xl = labkit.tensor(x, device=device, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    yl = make(nn, reduction)(xl, labkit.tensor(target, device=device))
    yt = make(tnn, reduction)(xt, torch.tensor(target))
    close(yl, yt, "loss")
    g = np.random.default_rng(4).standard_normal(tuple(yt.shape))
    yl.backward(labkit.tensor(g, device=device))
    yt.backward(torch.tensor(g))
    close(xl.grad, xt.grad, "input gradient")


def test_cross_entropy_is_stable_for_huge_logits():
    x = labkit.tensor([[1000.0, 0.0, -1000.0], [0.0, 5000.0, 0.0]], requires_grad=True)
    loss = nn.functional.cross_entropy(x, labkit.tensor([0, 2]))
    loss.backward()
    assert np.isfinite(loss.item()) and abs(loss.item() - 2500.0) < 1e-3
    assert np.all(np.isfinite(x.grad.numpy()))


def test_loss_errors_teach():
    with pytest.raises(IndexError, match=r"cross_entropy: target values must be class indices "
                                         r"in \[0, 2\]"):
        nn.CrossEntropyLoss()(labkit.randn(4, 3), labkit.tensor([0, 1, 2, 3]))
    with pytest.raises(IndexError, match="nll_loss"):
        nn.NLLLoss()(labkit.randn(2, 3), labkit.tensor([0, -1]))
    with pytest.raises(RuntimeError, match="int64"):
        nn.CrossEntropyLoss()(labkit.randn(2, 3), labkit.tensor([0.0, 1.0]))
    with pytest.raises(RuntimeError, match=r"\(N, C\)"):
        nn.CrossEntropyLoss()(labkit.randn(2, 3), labkit.tensor([[0], [1]]))
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="avg")


def test_layer_errors_name_the_layer_and_shapes():
    with pytest.raises(RuntimeError, match=r"linear: input of shape \(2, 3\).*in_features = 5"):
        nn.Linear(5, 2)(labkit.randn(2, 3))
    with pytest.raises(RuntimeError, match="same dtype"):
        nn.Linear(3, 2)(labkit.randn(2, 3, dtype=labkit.float64))
    with pytest.raises(RuntimeError, match=r"conv2d: input of shape \(2, 1, 5, 5\)"):
        nn.Conv2d(3, 4, 3)(labkit.randn(2, 1, 5, 5))
    with pytest.raises(RuntimeError, match="smaller than the kernel"):
        nn.Conv2d(1, 1, 5)(labkit.randn(1, 1, 3, 3))
    with pytest.raises(RuntimeError, match="max_pool2d"):
        nn.MaxPool2d(3, padding=2)(labkit.randn(1, 1, 6, 6))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):  # as torch
        nn.Softmax()(labkit.randn(2, 3))
    with pytest.raises(RuntimeError, match="BatchNorm1d"):     # torch: RuntimeError too
        nn.BatchNorm1d(3)(labkit.randn(4, 5))


# --- the new ops' second derivatives (create_graph) against torch ----------------------------

F = nn.functional
TF = torch.nn.functional

SECOND_ORDER = {
    "linear": (lambda M, x, w, b: M.nn.functional.linear(x, w, b), [(3, 4), (2, 4), (2,)]),
    "conv2d": (lambda M, x, w: M.nn.functional.conv2d(x, w, stride=2, padding=1),
               [(2, 2, 5, 5), (3, 2, 3, 3)]),
    "max_pool2d": (lambda M, x: M.nn.functional.max_pool2d(x, 3, stride=1, padding=1),
                   [(1, 2, 4, 4)]),
    "gelu": (lambda M, x: M.nn.functional.gelu(x), [(3, 4)]),
    "gelu tanh": (lambda M, x: M.nn.functional.gelu(x, approximate="tanh"), [(3, 4)]),
    "leaky_relu": (lambda M, x: M.nn.functional.leaky_relu(x, 0.1) ** 2, [(3, 4)]),
    "erf": (lambda M, x: M.erf(x), [(3, 4)]),
    "cross_entropy": (lambda M, x: M.nn.functional.cross_entropy(x, M.tensor([0, 2, 1])),
                      [(3, 4)]),
    "cross_entropy none": (
        lambda M, x: M.nn.functional.cross_entropy(x, M.tensor([0, 2, 1]), reduction="none"),
        [(3, 4)]),
    "nll_loss": (lambda M, x: M.nn.functional.nll_loss(x.log_softmax(1), M.tensor([3, 0, 1]),
                                                       reduction="sum"), [(3, 4)]),
    "embedding": (lambda M, w: M.nn.functional.embedding(M.tensor([[0, 2], [2, 1]]), w) ** 2,
                  [(3, 2)]),
    "unfold/fold": (lambda M, x: M.nn.functional.fold(
        M.nn.functional.unfold(x, 2, padding=1) ** 2, (3, 4), 2, padding=1), [(1, 2, 3, 4)]),
}


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_second_derivatives_match_torch(name):
    """d/dinputs of <v, d f(inputs)/dinputs . u>: the backward of the backward."""
    f, shapes = SECOND_ORDER[name]
    arrays = [data(s, seed=i, away_from_zero=True) for i, s in enumerate(shapes)]
    results = []
    for M in (labkit, torch):
        xs = [M.tensor(a, requires_grad=True) for a in arrays]
        y = f(M, *xs)
        u = M.tensor(np.random.default_rng(7).standard_normal(tuple(y.shape)))
        grads = M.autograd.grad((y * u).sum(), xs, create_graph=True)
        vs = [M.tensor(np.random.default_rng(8 + i).standard_normal(tuple(g.shape)))
              for i, g in enumerate(grads)]
        total = sum((g * v).sum() for g, v in zip(grads, vs))
        if total.requires_grad:
            second = M.autograd.grad(total, xs, allow_unused=True)
        else:                           # the gradient does not depend on the inputs at all
            second = [None] * len(xs)   # (max pooling's, once the winners are known)
        results.append([g.detach().numpy() for g in grads]
                       + [np.zeros(a.shape) if s is None else s.detach().numpy()
                          for s, a in zip(second, arrays)])
    for i, (a, b) in enumerate(zip(*results)):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-11, err_msg=f"{name}, result {i}")


def test_gelu_is_the_exact_erf_form_by_default():
    x = np.linspace(-6, 6, 2001)
    y = F.gelu(labkit.tensor(x)).numpy()
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    np.testing.assert_allclose(y, exact, rtol=1e-14, atol=1e-300)
    erf = labkit.erf(labkit.tensor(np.array([-np.inf, -30.0, 0.0, 1e-30, 0.5, 3.0, np.inf])))
    np.testing.assert_allclose(erf.numpy(), [-1, -1, 0, math.erf(1e-30), math.erf(0.5),
                                             math.erf(3.0), 1], rtol=1e-15)


# --- initialisation -------------------------------------------------------------------------

def test_default_init_has_torch_bounds_and_is_seeded():
    labkit.manual_seed(1)
    a = nn.Linear(400, 300)
    labkit.manual_seed(1)
    b = nn.Linear(400, 300)
    assert np.array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    w = a.weight.detach().numpy()
    bound = 1 / math.sqrt(400)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound       # uniform(-b, b) std
    assert np.abs(a.bias.detach().numpy()).max() <= bound
    conv = nn.Conv2d(3, 8, 5).weight.detach().numpy()
    assert np.abs(conv).max() <= 1 / math.sqrt(3 * 25)
    assert a.weight.dtype == labkit.float32 and a.weight.requires_grad


@pytest.mark.parametrize("fn, std", [
    (lambda t: nn.init.kaiming_normal_(t, nonlinearity="relu"), math.sqrt(2 / 500)),
    (lambda t: nn.init.kaiming_uniform_(t, nonlinearity="relu"), math.sqrt(2 / 500)),
    (lambda t: nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"),
     math.sqrt(2 / 400)),
    (lambda t: nn.init.xavier_uniform_(t), math.sqrt(2 / 900)),
    (lambda t: nn.init.xavier_normal_(t, gain=2.0), 2 * math.sqrt(2 / 900)),
    (lambda t: nn.init.normal_(t, 1.0, 0.5), 0.5),
    (lambda t: nn.init.uniform_(t, -3, 3), math.sqrt(3)),
])
def test_init_functions_have_the_right_spread(fn, std):
    t = labkit.empty(400, 500, dtype=labkit.float64)
    assert fn(t) is t
    assert abs(t.numpy().std() - std) < 0.02 * std


def test_init_constants_and_gain():
    t = labkit.empty(3, 4, requires_grad=True)
    nn.init.ones_(t)
    assert t.detach().numpy().tolist() == [[1.0] * 4] * 3 and t.requires_grad and t.is_leaf
    nn.init.zeros_(t)
    assert not t.detach().numpy().any()
    assert nn.init.calculate_gain("leaky_relu", 0.2) == torch.nn.init.calculate_gain(
        "leaky_relu", 0.2)
    assert nn.init.calculate_gain("tanh") == torch.nn.init.calculate_gain("tanh")
    with pytest.raises(ValueError, match="fewer than 2"):
        nn.init.xavier_uniform_(labkit.empty(5))


def test_clip_grad_norm_matches_torch():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in ((3, 4), (5,), (2, 2))]
    for norm_type in (2.0, 1.0, 3.0, math.inf):
        for max_norm in (0.5, 100.0):
            mine = [labkit.tensor(a, requires_grad=True) for a in arrays]
            ref = [torch.tensor(a, requires_grad=True) for a in arrays]
            for p, q, a in zip(mine, ref, arrays):
                p.grad, q.grad = labkit.tensor(a * 3), torch.tensor(a * 3)
            n1 = nn.utils.clip_grad_norm_(mine, max_norm, norm_type)
            n2 = torch.nn.utils.clip_grad_norm_(ref, max_norm, norm_type)
            close(n1, n2, f"total norm ({norm_type})")
            for p, q in zip(mine, ref):
                close(p.grad, q.grad, f"clipped gradient ({norm_type}, {max_norm})")
    bad = labkit.tensor([1.0], requires_grad=True)
    bad.grad = labkit.tensor([float("nan")])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([bad], 1.0, error_if_nonfinite=True)
