"""Checkers for lecture 06 (dynamic versus static graphs). `check_*` prints what is wrong
(never raises), `*_ok(..., hidden=False)` says whether it is right, and with hidden=True also
tries other inputs and functions, which the student does not see.
"""
import types

import numpy as np

from . import Verdict, compare
from ._support import call, first_failure, not_done, show


# Exercise 1: a compiled `clipped` that keeps its branch

def clipped(x):
    """The eager function of exercise 1 (the reference)."""
    if x.sum() > 0:
        return x.clamp(max=1.0)
    return x.clamp(min=-1.0)


def exercise1_inputs(hidden=False):
    import labkit
    values = [[0.5, 2.0, 3.0], [-3.0, -2.0, 0.5]]
    if hidden:
        values += [[0.0, 0.0, 0.0], [-5.0, 4.0, 3.0], [5.0, -4.0, -3.0], [-0.1, 0.2, -0.3]]
    return [labkit.tensor(v) for v in values]


def _clipped_verdicts(fn, hidden):
    if fn is None or fn is Ellipsis:
        yield not_done("clipped_static")
        return
    if hidden and isinstance(fn, types.FunctionType):
        yield Verdict(False, "clipped_static is a plain Python function: it must be compiled "
                             "(jit.script, or jit.trace of a version without the Python if).")
        return
    inputs = exercise1_inputs(hidden)
    got = []
    for x in inputs:
        out, err = call("clipped_static", fn, x.clone())
        if err is not None:
            yield err
            return
        got.append(np.asarray(out.detach().numpy() if hasattr(out, "detach") else out))
    want = np.concatenate([clipped(x).numpy() for x in inputs])
    frozen = np.concatenate([x.clamp(max=1.0).numpy() for x in inputs])
    yield compare(f"clipped_static on {len(inputs)} inputs", np.concatenate(got), want,
                  mistakes={"this is what a trace gives: the branch of the first input, frozen":
                            frozen})


def check_clipped_static(fn):
    """Print whether clipped_static agrees with eager `clipped` on both kinds of input."""
    return show(first_failure(_clipped_verdicts(fn, False)))


def clipped_static_ok(fn, hidden=False):
    return bool(first_failure(_clipped_verdicts(fn, hidden)))


# Exercise 2: second derivatives with a JAX-style grad

def _reference_derivatives(f, x):
    """(first, second) derivative of sum-f, elementwise, by labkit's autograd."""
    import labkit
    x = x.detach().clone().requires_grad_()
    (g,) = labkit.autograd.grad(f(x), x, create_graph=True)
    (h,) = labkit.autograd.grad(g.sum(), x)
    return g.detach().numpy(), h.numpy()


def _second_case(fn, f, x, name):
    got, err = call("second_derivative", fn, f, x.clone())
    if err is not None:
        return err
    if got is None:
        return not_done("second_derivative")
    first, second = _reference_derivatives(f, x)
    return compare(f"second_derivative of {name}", got, second,
                   mistakes={"this is the first derivative: apply grad twice": first})


def _second_verdicts(fn, hidden):
    import labkit
    yield _second_case(fn, lambda x: (x * x.sin()).sum(), labkit.tensor([0.0, 0.5, 1.0, 2.0]),
                       "sum(x * sin(x))")
    if hidden:
        yield _second_case(fn, lambda x: (x ** 3).sum(), labkit.tensor([-1.0, 0.5, 2.0]),
                           "sum(x ** 3)")
        yield _second_case(fn, lambda x: (2 * x).exp().sum(),
                           labkit.tensor([[0.1, -0.3], [0.7, 0.0]], dtype=labkit.float64),
                           "sum(exp(2 x))")


def check_second_derivative(fn):
    """Print whether second_derivative(f, x) is the elementwise second derivative."""
    return show(first_failure(_second_verdicts(fn, False)))


def second_derivative_ok(fn, hidden=False):
    return bool(first_failure(_second_verdicts(fn, hidden)))
