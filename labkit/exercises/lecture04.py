"""Checkers for lecture 04 (nn and optim). The right answers come from labkit's own layers and
optimizers; `check_*` prints what is wrong (never raises), `*_ok(..., hidden=False)` says
whether it is right, and with hidden=True also tries other sizes, seeds and settings, which the
student does not see.
"""
import numpy as np

from . import Verdict, compare
from ._support import call, first_failure, not_done, show


# Exercise 1: a residual block, out = x + linear2(relu(linear1(x)))

def _residual_case(block_class, seed, n, dim, hidden):
    import labkit
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, dim))
    weights = {"linear1.weight": rng.standard_normal((hidden, dim)),
               "linear1.bias": rng.standard_normal(hidden),
               "linear2.weight": rng.standard_normal((dim, hidden)),
               "linear2.bias": rng.standard_normal(dim)}
    w1, b1, w2, b2 = weights.values()
    expected = x + np.maximum(x @ w1.T + b1, 0) @ w2.T + b2
    block, err = call("ResidualBlock", block_class, dim, hidden)
    if err is not None:
        return err
    try:
        block.double().load_state_dict({k: labkit.tensor(v) for k, v in weights.items()})
    except (AttributeError, RuntimeError) as e:
        return Verdict(False, "the block's parameters do not have the expected names and shapes "
                              "(self.linear1 = nn.Linear(dim, hidden), self.linear2 = "
                              "nn.Linear(hidden, dim)): " + str(e).split("\n\tThe checkpoint")[0])
    out, err = call("ResidualBlock.forward", block, labkit.tensor(x))
    if err is not None:
        return err
    if out is None:
        return not_done("ResidualBlock.forward")
    mistakes = {"the skip connection `x +` is missing": expected - x,
                "the ReLU is missing": x + (x @ w1.T + b1) @ w2.T + b2}
    return compare("ResidualBlock output", out, expected, mistakes=mistakes)


def _residual_verdicts(block_class, hidden):
    yield _residual_case(block_class, 41, 5, 4, 6)
    if hidden:
        yield _residual_case(block_class, 7, 3, 2, 9)
        yield _residual_case(block_class, 8, 1, 6, 1)


def check_residual_block(block_class):
    """Print whether ResidualBlock(dim, hidden) computes x + linear2(relu(linear1(x)))."""
    return show(first_failure(_residual_verdicts(block_class, False)))


def residual_block_ok(block_class, hidden=False):
    return bool(first_failure(_residual_verdicts(block_class, hidden)))


# Exercise 2: SGD with momentum by hand

def exercise2_loss(w, scales=(1.0, 4.0, 0.5)):
    """The loss of exercise 2: sum(scales * w**2)."""
    import labkit
    return (labkit.tensor(scales, dtype=labkit.float64) * w ** 2).sum()


def _optim_reference(w0, loss_fn, steps, lr, **settings):
    import labkit
    from labkit import nn, optim
    w = nn.Parameter(labkit.tensor(w0, dtype=labkit.float64))
    optimizer = optim.SGD([w], lr=lr, **settings)
    for _ in range(steps):
        optimizer.zero_grad()
        loss_fn(w).backward()
        optimizer.step()
    return w.detach().numpy()


def _momentum_case(fn, w0, loss_fn, steps, lr, momentum):
    import labkit
    got, err = call("sgd_momentum", fn, labkit.tensor(w0, dtype=labkit.float64), loss_fn,
                    steps, lr, momentum)
    if err is not None:
        return err
    if got is None:
        return not_done("sgd_momentum")
    mistakes = {"that is w0 unchanged: no step was taken yet": w0,
                "that is plain SGD: the velocity (momentum) is missing":
                    _optim_reference(w0, loss_fn, steps, lr),
                "that is Nesterov momentum, a variant":
                    _optim_reference(w0, loss_fn, steps, lr, momentum=momentum, nesterov=True)}
    want = _optim_reference(w0, loss_fn, steps, lr, momentum=momentum)
    return compare(f"sgd_momentum(w0, loss, steps={steps}, lr={lr}, momentum={momentum})", got,
                   want, mistakes=mistakes)


def _momentum_verdicts(fn, hidden):
    yield _momentum_case(fn, [1.5, -0.5, 2.0], exercise2_loss, 3, 0.1, 0.9)
    if hidden:
        yield _momentum_case(fn, [0.3, 2.0, -1.0], lambda w: exercise2_loss(w, (2.0, 0.5, 3.0)),
                             6, 0.05, 0.5)
        yield _momentum_case(fn, [4.0], lambda w: (w ** 4).sum(), 1, 0.01, 0.9)


def check_sgd_momentum(fn):
    """Print whether sgd_momentum(w0, loss_fn, steps, lr, momentum) follows PyTorch's rule."""
    return show(first_failure(_momentum_verdicts(fn, False)))


def sgd_momentum_ok(fn, hidden=False):
    return bool(first_failure(_momentum_verdicts(fn, hidden)))


# Exercise 3: how many numbers does fine-tuning train, with the body's second Linear unfrozen?

N_TRAINABLE = 100 * 100 + 100 + 100 * 2 + 2      # body's second Linear + the new head


def _trainable_verdicts(n_trainable, model, hidden):
    if n_trainable is None or n_trainable is Ellipsis:
        yield not_done("n_trainable")
        return
    mistakes = {"that counts only the head: also unfreeze finetuned[0][2]": 202,
                "that counts every parameter, frozen or not": 2 * 100 + 100 + N_TRAINABLE,
                "that counts tensors, not numbers: use p.numel()": 4}
    yield compare("n_trainable", n_trainable, N_TRAINABLE, mistakes=mistakes)
    if hidden:
        flags = {name: p.requires_grad for name, p in model.named_parameters()}
        want = {name: not name.startswith("0.0.") for name in flags}
        if flags != want:
            yield Verdict(False, "the model's requires_grad flags are not what was asked: "
                                 f"{flags}; only finetuned[0][0] stays frozen.")
        yield compare("n_trainable, counted from the model", n_trainable,
                      sum(p.numel() for p in model.parameters() if p.requires_grad))


def check_n_trainable(n_trainable, model=None):
    """Print whether n_trainable is the number of trained numbers (the model is for the
    hidden tests)."""
    return show(first_failure(_trainable_verdicts(n_trainable, None, False)))


def n_trainable_ok(n_trainable, model=None, hidden=False):
    """With hidden=True, `model` (the student's finetuned) must also have the asked flags."""
    return bool(first_failure(_trainable_verdicts(n_trainable, model, hidden)))
