"""Checkers for lecture 02 (autograd). `check_*` prints what is wrong (never raises);
`*_ok(..., hidden=False)` says whether the answer is right, and with hidden=True also tries
it on inputs the student does not see."""
import math

import numpy as np

from . import Verdict, compare
from ._support import call, first_failure, not_done, show


# Exercise 1: lecture 01's work done by autograd

def exercise1_data(seed=201, n=5, d=4, k=3):
    """xe (n, d) and we (d, k): labkit float64 tensors that do not require grad."""
    import labkit
    rng = np.random.default_rng(seed)
    return labkit.tensor(rng.standard_normal((n, d))), labkit.tensor(rng.standard_normal((d, k)))


def _autograd_verdicts(fn, hidden):
    cases = [exercise1_data()]
    if hidden:
        cases += [exercise1_data(21, 7, 2, 5), exercise1_data(22, 1, 3, 1)]
    for xe, we in cases:
        got, err = call("grad_of_loss", fn, xe, we)
        if err is not None:
            yield err
            return
        if got is None:
            yield not_done("grad_of_loss")
            return
        x, w = xe.numpy(), we.numpy()
        t = np.tanh(x @ w)                                   # the gradient by hand, in numpy
        yield compare("grad_of_loss(xe, we)", got, x.T @ (2 * t * (1 - t ** 2)), mistakes={
            "that is the gradient of sum(tanh(x w)) without the square: did you forget "
            ".pow(2)?": x.T @ (1 - t ** 2),
            "that is d L / d x, not d L / d w": (2 * t * (1 - t ** 2)) @ w.T})


def check_grad_of_loss(fn):
    return show(first_failure(_autograd_verdicts(fn, False)))


def grad_of_loss_ok(fn, hidden=False):
    return bool(first_failure(_autograd_verdicts(fn, hidden)))


# Exercise 2: a second derivative of f(x) = x sin(x)

def _second_verdicts(fn, hidden):
    for v in [1.3] + ([-0.4, 2.9, 0.0] if hidden else []):
        got, err = call("second_derivative", fn, v)
        if err is not None:
            yield err
            return
        if got is None:
            yield not_done("second_derivative")
            return
        yield compare(f"second_derivative({v})", got, 2 * math.cos(v) - v * math.sin(v),
                      rtol=1e-4, atol=1e-6, mistakes={
                          "that is the first derivative f'(x); differentiate it once more, "
                          "and keep its graph with create_graph=True":
                              math.sin(v) + v * math.cos(v)})


def check_second_derivative(fn):
    return show(first_failure(_second_verdicts(fn, False)))


def second_derivative_ok(fn, hidden=False):
    return bool(first_failure(_second_verdicts(fn, hidden)))


# Exercise 3: predict the accumulated gradient

def _accumulated():
    import labkit
    a = labkit.tensor(2.0, requires_grad=True)
    (a * a).backward()
    (3 * a).backward()
    b = a ** 3
    b.backward()
    return a.grad


def _predicted_verdict(predicted, hidden):
    if hidden and hasattr(predicted, "grad_fn"):
        return Verdict(False, "`predicted` should be a number you worked out, not a tensor "
                              "computed by running the code.")
    return compare("predicted", predicted, _accumulated(), mistakes={
        "that is only the last backward: the earlier ones were added too": 12.0,
        "that is the first backward only; every later backward adds to .grad": 4.0})


def check_predicted(predicted):
    return show(_predicted_verdict(predicted, False))


def predicted_ok(predicted, hidden=False):
    return bool(_predicted_verdict(predicted, hidden))


# Exercise 4: build the engine yourself (topological order + backward for scalar Values)

def _build(program, leaves):
    """Run `program`, a list of (op, i, j) on earlier nodes, on Values or on labkit tensors."""
    nodes = list(leaves)
    for op, i, j in program:
        a, b = nodes[i], nodes[j]
        nodes.append(a + b if op == "add" else a * b if op == "mul" else
                     a.tanh() if op == "tanh" else a ** 2 if op == "square" else a + 1.5)
    return nodes


def _random_program(rng, n_leaves, n_ops):
    program = []
    for k in range(n_ops):
        n = n_leaves + k
        op = rng.choice(["add", "mul", "tanh", "square", "addc"], p=[.3, .3, .2, .1, .1])
        program.append((str(op), int(rng.integers(n)), int(rng.integers(n))))
    return program


def _example():
    """The lecture's example: d = a*b + c, L = tanh(d) * d + a (d and a are used twice)."""
    return [2.0, -3.0, 5.5], [("mul", 0, 1), ("add", 3, 2), ("tanh", 4, 4),
                              ("mul", 5, 4), ("add", 6, 0)]


def _chain(length):
    """x -> x + 1.5 -> ... -> square: a chain deeper than Python's recursion limit."""
    return [0.7], [("addc", k, k) for k in range(length)] + [("square", length, length)]


def _engine_cases(hidden):
    yield "the example above", *_example()
    if hidden:
        rng = np.random.default_rng(2024)
        for k in range(6):
            n_leaves = int(rng.integers(1, 5))
            yield (f"a random graph ({k})", list(rng.standard_normal(n_leaves) * 0.8),
                   _random_program(rng, n_leaves, int(rng.integers(3, 25))))
        yield "a chain of 3000 additions", *_chain(3000)


def _engine_verdicts(Value, topological_order, backward, hidden):
    import labkit
    for what, leaf_values, program in _engine_cases(hidden):
        leaves = [Value(v) for v in leaf_values]
        nodes = _build(program, leaves)
        root = nodes[-1]
        order, err = call("topological_order", topological_order, root)
        if err is not None:
            yield err
            return
        if not order:
            yield not_done("topological_order")
            return
        reachable, stack = {id(root): root}, [root]
        while stack:
            for child in stack.pop()._prev:
                if id(child) not in reachable:
                    reachable[id(child)] = child
                    stack.append(child)
        position = {}
        for k, v in enumerate(order):
            if id(v) in position:
                yield Verdict(False, f"topological_order lists the Value {v!r} twice ({what}).")
                return
            position[id(v)] = k
        if set(position) != set(reachable):
            yield Verdict(False, f"topological_order should list each of the "
                                 f"{len(reachable)} Values that root depends on (root "
                                 f"included) once; it listed {len(position)} ({what}).")
            return
        for v in order:
            for child in v._prev:
                if position[id(child)] > position[id(v)]:
                    yield Verdict(False, f"topological_order puts {v!r} before {child!r}, "
                                         f"which it was made from ({what}): each Value must "
                                         "come after its children.")
                    return
        _, err = call("backward", backward, root)
        if err is not None:
            yield err
            return
        if root.grad == 0:
            yield not_done("backward")
            return
        ts = [labkit.tensor(v, dtype=labkit.float64, requires_grad=True) for v in leaf_values]
        _build(program, ts)[-1].backward()
        for k, (leaf, t) in enumerate(zip(leaves, ts)):
            want = 0.0 if t.grad is None else t.grad        # a leaf the root does not use
            v = compare(f"leaf {k}'s grad ({what})", leaf.grad, want, rtol=1e-6, atol=1e-9)
            if not v:
                yield v
                return
    yield Verdict(True, "correct: your engine's gradients match labkit's on "
                        + ("every graph." if hidden else "the example."))


def check_engine(Value, topological_order, backward):
    """Print whether topological_order and backward give labkit's gradients."""
    return show(first_failure(_engine_verdicts(Value, topological_order, backward, False)))


def engine_ok(Value, topological_order, backward, hidden=False):
    return bool(first_failure(_engine_verdicts(Value, topological_order, backward, hidden)))
