"""Checkers for lecture 03 (custom Functions). `check_*` prints what is wrong (never raises);
`*_ok(cls, hidden=False)` says whether the Function is right, and with hidden=True also tries
it on inputs the student does not see."""
import numpy as np

from . import Verdict, compare
from ._support import first_failure, not_done, show


class _NotDone(Exception):
    pass


def _apply(cls, *args):
    """(cls.apply(*args), None), or (None, a Verdict): a forward that still returns the
    placeholder None is "not done yet", an error is reported with its message."""
    name = getattr(cls, "__name__", repr(cls))

    def forward(ctx, *a):                  # the student's forward, watched for a None result
        out = cls.forward(ctx, *a)
        if out is None:
            raise _NotDone
        return out
    Probe = type(name, (cls,), {"forward": staticmethod(forward)})
    try:
        return Probe.apply(*args), None
    except _NotDone:
        return None, not_done(f"{name}.forward")
    except Exception as err:  # noqa: BLE001 (a student-facing message)
        return None, Verdict(False, f"{name}.apply raised {type(err).__name__}: {err}")


def _backward(name, y, weights):
    try:
        (y * weights).sum().backward()
    except Exception as err:  # noqa: BLE001
        return Verdict(False, f"backward through {name} raised {type(err).__name__}: {err}")
    return None


# Exercise 1: a stable softplus

def _softplus_cases(hidden):
    import labkit
    yield labkit.float32, np.array([-100.0, -3.0, 0.0, 2.0, 100.0])
    if hidden:
        rng = np.random.default_rng(301)
        yield labkit.float64, rng.standard_normal((2, 3)) * 30
        yield labkit.float32, np.array([-1000.0, 1000.0, 88.0, 89.0, -0.5])


def _softplus_verdicts(Softplus, hidden):
    import labkit
    from labkit.engine import execution_order
    for dtype, values in _softplus_cases(hidden):
        x = labkit.tensor(values, dtype=dtype, requires_grad=True)
        y, err = _apply(Softplus, x)
        if err is not None:
            yield err
            return
        yield compare("Softplus.apply(x)", y, np.logaddexp(0, values), rtol=1e-5, atol=1e-6)
        err = _backward("Softplus", y, labkit.ones_like(y))
        if err is not None:
            yield err
            return
        if x.grad is None:
            yield not_done("Softplus.backward")
            return
        slope = 0.5 * (1 + np.tanh(values / 2))              # the sigmoid, computed stably
        with np.errstate(over="ignore"):
            yield compare("x.grad", x.grad, slope, rtol=1e-5, atol=1e-6, mistakes={
                "the slope of softplus is sigmoid(x), not exp(x)": np.exp(values)})
    nodes = execution_order(Softplus.apply(labkit.tensor(1.0, requires_grad=True)))
    yield compare("nodes behind Softplus.apply(x) (with x's AccumulateGrad)", len(nodes), 2,
                  mistakes={"forward was recorded op by op: call Softplus.apply(x), and do the "
                            "work inside forward": 0})
    xd = labkit.tensor([-1.5, 0.3, 2.0], dtype=labkit.float64, requires_grad=True)
    try:
        labkit.autograd.gradcheck(Softplus.apply, (xd,))
    except labkit.autograd.GradcheckError as err:
        yield Verdict(False, f"gradcheck fails: {err}")
        return
    yield Verdict(True, "correct: Softplus gives the right values and gradients, is one node, "
                        "and passes gradcheck.")


def check_softplus(Softplus):
    return show(first_failure(_softplus_verdicts(Softplus, False)))


def softplus_ok(Softplus, hidden=False):
    return bool(first_failure(_softplus_verdicts(Softplus, hidden)))


# Exercise 2: a gradient-reversal layer

def _reverse_cases(hidden):
    yield [1.0, -2.0, 3.0], [0.5, 1.0, -1.5], 0.3
    if hidden:
        yield [[0.2, -1.0], [4.0, 0.0]], [[1.0, 2.0], [-3.0, 0.5]], 2.5
        yield [1.0, 2.0], [3.0, -4.0], 0.0


def _reverse_verdicts(GradReverse, hidden):
    import labkit
    for values, weights, lam in _reverse_cases(hidden):
        x = labkit.tensor(values, requires_grad=True)
        w = np.array(weights, dtype=np.float32)
        y, err = _apply(GradReverse, x, lam)
        if err is not None:
            yield err
            return
        v = compare(f"GradReverse.apply(x, {lam})", y, x.detach())
        if not v:
            yield v
            return
        err = _backward("GradReverse", y, labkit.tensor(w))
        if err is not None:
            yield err
            return
        if x.grad is None:
            yield not_done("GradReverse.backward")
            return
        yield compare("x.grad", x.grad, -lam * w, mistakes={
            "the sign is flipped but not scaled: multiply by lam as well": -w,
            "scaled but not flipped: the gradient must change sign": lam * w,
            "the gradient passed through unchanged": w})
    yield Verdict(True, "correct: GradReverse is the identity forward and flips and scales "
                        "the gradient.")


def check_grad_reverse(GradReverse):
    return show(first_failure(_reverse_verdicts(GradReverse, False)))


def grad_reverse_ok(GradReverse, hidden=False):
    return bool(first_failure(_reverse_verdicts(GradReverse, hidden)))
