"""Checkers for lecture 01 (gradients by hand). The right answers come from labkit's autograd.

Each exercise asks for a function; `check_*` runs it on the lecture's data and prints what is
wrong (never raises), `*_ok(fn, hidden=False)` says whether it is right, and with hidden=True
also tries it on other shapes and seeds, which the student does not see.
"""
import numpy as np

from . import Verdict, compare
from ._support import call, first_failure, not_done, show


def _grad(fn_of_tensors, *arrays):
    """Gradients of fn_of_tensors(*tensors) with respect to each array, by labkit's autograd."""
    import labkit
    ts = [labkit.tensor(a, requires_grad=True) for a in arrays]
    fn_of_tensors(*ts).backward()
    return [t.grad.numpy() for t in ts]


# Exercise 1: d/dx of sum(tanh(x * y + z))

def exercise1_data(seed=101, shape=(3, 4)):
    """x, y, z: three float64 arrays of the same shape."""
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal(shape) for _ in range(3))


def _tanh_mistakes(x, y, z):
    t = np.tanh(x * y + z)
    return {
        "the tanh is missing: by the chain rule, multiply by tanh'(u) = 1 - tanh(u)**2, "
        "where u = x*y + z": y,
        "tanh'(u) is 1 - tanh(u)**2, not 1 - tanh(u)": (1 - t) * y,
        "tanh'(u) is 1 - tanh(u)**2, not 1 - u**2 (use the tanh of u)":
            (1 - (x * y + z) ** 2) * y,
        "the derivative of x*y with respect to x is y, not x": (1 - t ** 2) * x,
        "that is tanh'(u) alone: also multiply by d(x*y + z)/dx = y": 1 - t ** 2,
    }


def _tanh_verdicts(fn, hidden):
    cases = [exercise1_data()]
    if hidden:
        cases += [exercise1_data(7, (5, 2)), exercise1_data(8, (1,)), exercise1_data(9, (2, 3, 2))]
    for x, y, z in cases:
        got, err = call("tanh_backward", fn, x.copy(), y.copy(), z.copy())
        if err is not None:
            yield err
            return
        if got is None:
            yield not_done("tanh_backward")
            return
        want = _grad(lambda a, b, c: (a * b + c).tanh().sum(), x, y, z)[0]
        yield compare("grad_x", got, want, mistakes=_tanh_mistakes(x, y, z))


def check_tanh_backward(fn):
    """Print whether tanh_backward(x, y, z) is d sum(tanh(x*y + z)) / dx."""
    return show(first_failure(_tanh_verdicts(fn, False)))


def tanh_backward_ok(fn, hidden=False):
    return bool(first_failure(_tanh_verdicts(fn, hidden)))


# Exercise 2: the backward pass of a sigmoid layer s = sigmoid(x w)

def exercise2_data(seed=102, n=4, d=3, k=2):
    """x (n, d), w (d, k), and grad_s (n, k), the gradient handed down by later layers."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.standard_normal((d, k)), rng.standard_normal((n, k))


def _sigmoid_mistakes(x, w, g):
    u = x.dot(w)
    s = 1 / (1 + np.exp(-u))
    return {
        "the sigmoid's slope is missing: multiply grad_s by s * (1 - s) first": g,
        "the sigmoid's slope is s * (1 - s), not (1 - s)": g * (1 - s),
        "the slope s * (1 - s) uses the output s = sigmoid(u), not u itself": g * u * (1 - u),
    }


def _sigmoid_verdicts(fn, hidden):
    cases = [exercise2_data()]
    if hidden:
        cases += [exercise2_data(11, 6, 2, 5), exercise2_data(12, 1, 4, 1)]
    for x, w, g in cases:
        got, err = call("sigmoid_layer_backward", fn, x.copy(), w.copy(), g.copy())
        if err is not None:
            yield err
            return
        if got is None or (isinstance(got, tuple) and all(g is None for g in got)):
            yield not_done("sigmoid_layer_backward")
            return
        if not (isinstance(got, tuple) and len(got) == 2):
            yield Verdict(False, "sigmoid_layer_backward should return a pair: "
                                 f"`return grad_w, grad_x` (got a {type(got).__name__}).")
            return
        import labkit
        want_x, want_w = _grad(
            lambda xt, wt: (xt.mm(wt).sigmoid() * labkit.tensor(g)).sum(), x, w)
        hints = _sigmoid_mistakes(x, w, g)
        yield compare("grad_w", got[0], want_w,
                      mistakes={h: x.T.dot(wrong) for h, wrong in hints.items()})
        yield compare("grad_x", got[1], want_x,
                      mistakes={h: wrong.dot(w.T) for h, wrong in hints.items()})
    yield Verdict(True, "correct: grad_w and grad_x both match autograd's.")


def check_sigmoid_layer_backward(fn):
    """Print whether sigmoid_layer_backward(x, w, grad_s) returns (grad_w, grad_x)."""
    return show(first_failure(_sigmoid_verdicts(fn, False)))


def sigmoid_layer_backward_ok(fn, hidden=False):
    return bool(first_failure(_sigmoid_verdicts(fn, hidden)))


# Exercise 3: a two-layer MLP with cross-entropy, every gradient by hand

#: the gradients mlp_backward returns, in the order backward computes them
MLP_GRADS = ("logits", "w2", "b2", "h_relu", "h", "w1", "b1")


def exercise3_data(seed=103, n=8, d=5, hidden=6, classes=4):
    """x (n, d), labels (n,) in range(classes), w1 (d, hidden), b1, w2 (hidden, classes), b2."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, d)), rng.integers(0, classes, n),
            rng.standard_normal((d, hidden)) / np.sqrt(d), 0.1 * rng.standard_normal(hidden),
            rng.standard_normal((hidden, classes)) / np.sqrt(hidden),
            0.1 * rng.standard_normal(classes))


def _mlp_autograd(x, labels, w1, b1, w2, b2):
    """Every gradient of the mean cross-entropy loss, by labkit's autograd."""
    import labkit
    import labkit.nn.functional as F
    params = {k: labkit.tensor(v, requires_grad=True)
              for k, v in dict(w1=w1, b1=b1, w2=w2, b2=b2).items()}
    h = labkit.tensor(x).mm(params["w1"]) + params["b1"]
    h_relu = h.clamp(min=0)
    logits = h_relu.mm(params["w2"]) + params["b2"]
    for t in (h, h_relu, logits):
        t.retain_grad()
    F.cross_entropy(logits, labkit.tensor(labels)).backward()
    grads = dict(logits=logits.grad, h_relu=h_relu.grad, h=h.grad,
                 **{k: p.grad for k, p in params.items()})
    return {k: grads[k].numpy() for k in MLP_GRADS}


def _mlp_mistakes(x, labels, w1, b1, w2, b2, want):
    """{gradient name: {hint: wrong value}} for the usual slips."""
    n = len(labels)
    no_mean = want["logits"] * n
    return {
        "logits": {"the loss is the *mean* over the batch: divide (p - onehot) by N": no_mean,
                   "that is the softmax p itself: subtract 1 at each example's label "
                   "(p - onehot)": want["logits"] + np.eye(w2.shape[1])[labels] / n},
        "h": {"forgot the ReLU mask: no gradient where h < 0": want["h_relu"]},
        "w1": {"forgot the ReLU mask: no gradient where h < 0": x.T.dot(want["h_relu"])},
        "b1": {"forgot the ReLU mask: no gradient where h < 0": want["h_relu"].sum(0)},
    }


def _mlp_verdicts(fn, hidden):
    cases = [exercise3_data()]
    if hidden:
        cases += [exercise3_data(31, 16, 3, 7, 5), exercise3_data(32, 1, 2, 3, 2)]
    for case in cases:
        got, err = call("mlp_backward", fn, *(np.copy(a) for a in case))
        if err is not None:
            yield err
            return
        if not got:
            yield not_done("mlp_backward")
            return
        if not isinstance(got, dict):
            yield Verdict(False, "mlp_backward should return a dict such as "
                                 f"{{'logits': grad_logits, ...}} (got a {type(got).__name__}).")
            return
        want = _mlp_autograd(*case)
        mistakes = _mlp_mistakes(*case, want)
        right = []
        for name in MLP_GRADS:
            if name not in got:
                yield Verdict(False, f"grads has no {name!r}: fill in all of {MLP_GRADS}.")
                return
            v = compare(f"grads[{name!r}]", got[name], want[name],
                        mistakes=mistakes.get(name))
            if not v:
                before = (f" (the ones before it, {', '.join(right)}, are right)" if right
                          else " (it is the first one backward computes)")
                v.message = f"the first wrong gradient is grads[{name!r}]{before}: " + v.message
                if name in ("logits", "h_relu", "h"):
                    v.message = (v.message.rstrip(".") + ". The gradients after it are "
                                 "computed from it, so fix this one first.")
                yield v
                return
            right.append(name)
        yield Verdict(True, "correct: all seven gradients match autograd's, tensor by tensor.")


def check_mlp_backward(fn):
    """Print the first wrong gradient of mlp_backward, in backward order, or that all are right."""
    return show(first_failure(_mlp_verdicts(fn, False)))


def mlp_backward_ok(fn, hidden=False):
    return bool(first_failure(_mlp_verdicts(fn, hidden)))
