"""smooth_l1/huber/binary_cross_entropy/kl_div and their modules against torch (float64), and
the class options of CrossEntropyLoss/NLLLoss passed through to the functional."""
import inspect
import warnings

import numpy as np
import pytest

import labkit
import labkit.nn.functional as F
from labkit import nn
from nn_oracle import check_fn, close, data

torch = pytest.importorskip("torch")
TF = torch.nn.functional

REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("beta", [1.0, 0.5, 0.0])
def test_smooth_l1_loss(device, reduction, beta):
    check_fn(lambda x, t: F.smooth_l1_loss(x, t, reduction=reduction, beta=beta),
             lambda x, t: TF.smooth_l1_loss(x, t, reduction=reduction, beta=beta),
             [data((4, 3)), data((4, 3), seed=2)], device)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("delta", [1.0, 0.3, 2.5])
def test_huber_loss(device, reduction, delta):
    check_fn(lambda x, t: F.huber_loss(x, t, reduction=reduction, delta=delta),
             lambda x, t: TF.huber_loss(x, t, reduction=reduction, delta=delta),
             [data((4, 3)), data((4, 3), seed=2)], device)


def probabilities(shape, seed):
    return data(shape, seed=seed, low=0.02, high=0.98)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(device, reduction):
    check_fn(lambda x, t: F.binary_cross_entropy(x, t, reduction=reduction),
             lambda x, t: TF.binary_cross_entropy(x, t, reduction=reduction),
             [probabilities((5, 2), 1), probabilities((5, 2), 2)], device)


def test_binary_cross_entropy_weight_and_hard_labels(device):
    w = data((5, 2), seed=3, low=0.5, high=2)
    labels = (data((5, 2), seed=4) > 0).astype(np.float64)
    check_fn(lambda x: F.binary_cross_entropy(x, labkit.tensor(labels, device=device),
                                              labkit.tensor(w, device=device)),
             lambda x: TF.binary_cross_entropy(x, torch.tensor(labels), torch.tensor(w)),
             [probabilities((5, 2), 1)], device)


def test_binary_cross_entropy_at_zero_and_one_is_finite(device):
    """torch clamps each log at -100: a confident wrong answer costs 100, not inf."""
    x = np.array([0.0, 1.0, 0.0, 1.0, 0.5])
    t = np.array([1.0, 0.0, 0.0, 1.0, 1.0])
    check_fn(lambda x: F.binary_cross_entropy(x, labkit.tensor(t, device=device),
                                              reduction="none"),
             lambda x: TF.binary_cross_entropy(x, torch.tensor(t), reduction="none"), [x],
             device, double=False)


@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(device, reduction, log_target):
    logp = np.log(probabilities((4, 3), 1))
    target = probabilities((4, 3), 2)
    target[0, 1] = 0.0                    # a zero target adds nothing (0 log 0 = 0)
    if log_target:
        target = np.log(probabilities((4, 3), 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # torch warns that 'mean' is not the true KL
        check_fn(lambda x: F.kl_div(x, labkit.tensor(target, device=device), reduction=reduction,
                                    log_target=log_target),
                 lambda x: TF.kl_div(x, torch.tensor(target), reduction=reduction,
                                     log_target=log_target), [logp], device)


@pytest.mark.parametrize("make,kind", [
    (lambda m: m.SmoothL1Loss(beta=0.5), "real"),
    (lambda m: m.SmoothL1Loss(reduction="sum"), "real"),
    (lambda m: m.HuberLoss(delta=0.7), "real"),
    (lambda m: m.HuberLoss(reduction="none"), "real"),
    (lambda m: m.BCELoss(), "prob"),
    (lambda m: m.BCELoss(reduction="sum"), "prob"),
    (lambda m: m.KLDivLoss(reduction="batchmean"), "kl"),
    (lambda m: m.KLDivLoss(reduction="sum", log_target=True), "kl_log"),
])
def test_loss_modules(device, make, kind):
    x = {"real": data((4, 3)), "prob": probabilities((4, 3), 1)}.get(kind) \
        if kind in ("real", "prob") else np.log(probabilities((4, 3), 1))
    t = {"real": data((4, 3), seed=2), "prob": probabilities((4, 3), 2),
         "kl": probabilities((4, 3), 2), "kl_log": np.log(probabilities((4, 3), 2))}[kind]
    mine, ref = make(nn), make(torch.nn)
    check_fn(lambda a: mine(a, labkit.tensor(t, device=device)),
             lambda a: ref(a, torch.tensor(t)), [x], device)
    assert repr(mine) == repr(ref)


def test_bce_loss_weight_is_a_buffer(device):
    w = data((3,), low=0.5, high=2)
    mine, ref = nn.BCELoss(weight=labkit.tensor(w)), torch.nn.BCELoss(weight=torch.tensor(w))
    assert list(mine.state_dict()) == list(ref.state_dict()) == ["weight"]
    mine = mine.to(device)
    x, t = probabilities((4, 3), 1), probabilities((4, 3), 2)
    close(mine(labkit.tensor(x, device=device), labkit.tensor(t, device=device)),
          ref(torch.tensor(x), torch.tensor(t)), "weighted BCELoss")


@pytest.mark.parametrize("call", [
    lambda F, t: F.binary_cross_entropy(t(3) * 1.5, t(3) * 0.5),
    lambda F, t: F.binary_cross_entropy(t(3) * 0.5, t(3) * 1.5),
    lambda F, t: F.binary_cross_entropy(t(3) * 0.5, t(3, 1) * 0.5),
    lambda F, t: F.smooth_l1_loss(t(3), t(3), beta=-1.0),
    lambda F, t: F.huber_loss(t(3), t(3), delta=0.0),
    lambda F, t: F.kl_div(t(3), t(3), reduction="average"),
])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as ref:
        call(TF, lambda *s: torch.ones(*s, dtype=torch.float64))
    with pytest.raises(type(ref.value)):
        call(F, lambda *s: labkit.ones(*s, dtype=labkit.float64))


def test_legacy_size_average_and_reduce_flags():
    for kw, expected in [(dict(size_average=False), "sum"), (dict(reduce=False), "none"),
                         (dict(size_average=True, reduce=True), "mean")]:
        with pytest.warns(UserWarning):
            mine = nn.MSELoss(**kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert torch.nn.MSELoss(**kw).reduction == mine.reduction == expected


# --- CrossEntropyLoss / NLLLoss: the module passes its options on ------------------------

def _functional_takes(fn, *names):
    params = inspect.signature(fn).parameters
    return all(n in params for n in names)


CE_OPTIONS = [dict(weight=True), dict(ignore_index=1), dict(label_smoothing=0.2),
              dict(reduction="sum"), dict(reduction="none", ignore_index=0, weight=True)]


@pytest.mark.parametrize("opts", CE_OPTIONS)
@pytest.mark.parametrize("name", ["CrossEntropyLoss", "NLLLoss"])
def test_class_loss_modules_pass_their_options(device, name, opts):
    fn = F.cross_entropy if name == "CrossEntropyLoss" else F.nll_loss
    if name == "NLLLoss" and "label_smoothing" in opts:
        pytest.skip("NLLLoss has no label_smoothing")
    wanted = [k for k in opts if k != "reduction"]
    if not _functional_takes(fn, *wanted):
        pytest.skip(f"labkit's {fn.__name__} does not take {wanted} yet (issue #13)")
    w = data((4,), seed=5, low=0.5, high=2)
    kw_l = {k: (labkit.tensor(w) if k == "weight" else v) for k, v in opts.items()}
    kw_t = {k: (torch.tensor(w) if k == "weight" else v) for k, v in opts.items()}
    mine, ref = getattr(nn, name)(**kw_l).to(device), getattr(torch.nn, name)(**kw_t)
    assert list(mine.state_dict()) == list(ref.state_dict())
    x = data((5, 4))
    if name == "NLLLoss":
        x = np.log(np.exp(x) / np.exp(x).sum(1, keepdims=True))
    y = np.array([0, 1, 3, 1, 2])
    check_fn(lambda a: mine(a, labkit.tensor(y, device=device)),
             lambda a: ref(a, torch.tensor(y)), [x], device, double=False)


def test_class_loss_modules_defaults(device):
    x, y = data((5, 4)), np.array([0, 1, 3, 1, 2])
    for name in ("CrossEntropyLoss", "NLLLoss"):
        mine, ref = getattr(nn, name)(), getattr(torch.nn, name)()
        assert list(mine.state_dict()) == list(ref.state_dict()) == []
        check_fn(lambda a: mine(a, labkit.tensor(y, device=device)),
                 lambda a: ref(a, torch.tensor(y)), [x], device, double=False)
