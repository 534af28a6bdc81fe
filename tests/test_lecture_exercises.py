"""The checkers of lectures 01-03 (labkit/exercises/lecture01..03, 02b), run in-process: right
answers pass, every known mistake fails and is named, and the numbers the lectures state are
the ones labkit and PyTorch compute."""
import math

import numpy as np
import pytest

import labkit
from labkit.autograd import Function
from labkit.exercises import lecture01, lecture02, lecture02b, lecture03
from labkit.exercises._support import first_failure

torch = pytest.importorskip("torch")


# ---- lecture 01 ----------------------------------------------------------------------------

def tanh_backward(x, y, z):
    t = np.tanh(x * y + z)
    return (1 - t ** 2) * y


def sigmoid_layer_backward(x, w, grad_s):
    s = 1 / (1 + np.exp(-x.dot(w)))
    grad_u = grad_s * s * (1 - s)
    return x.T.dot(grad_u), grad_u.dot(w.T)


def mlp_backward(x, labels, w1, b1, w2, b2):
    n = len(labels)
    h = x @ w1 + b1
    r = np.maximum(h, 0)
    logits = r @ w2 + b2
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    g = {"logits": (p - np.eye(w2.shape[1])[labels]) / n}
    g["w2"], g["b2"] = r.T @ g["logits"], g["logits"].sum(0)
    g["h_relu"] = g["logits"] @ w2.T
    g["h"] = g["h_relu"] * (h > 0)
    g["w1"], g["b1"] = x.T @ g["h"], g["h"].sum(0)
    return g


def test_lecture01_right_answers_pass_hidden_tests_too(capsys):
    assert lecture01.tanh_backward_ok(tanh_backward, hidden=True)
    assert lecture01.sigmoid_layer_backward_ok(sigmoid_layer_backward, hidden=True)
    assert lecture01.mlp_backward_ok(mlp_backward, hidden=True)
    lecture01.check_mlp_backward(mlp_backward)
    assert capsys.readouterr().out.startswith("✓ correct: all seven gradients")


def test_lecture01_every_known_mistake_fails_and_is_named():
    data = lecture01.exercise1_data()
    for hint in lecture01._tanh_mistakes(*data):
        wrong = lambda x, y, z, hint=hint: lecture01._tanh_mistakes(x, y, z)[hint]  # noqa: E731
        assert not lecture01.tanh_backward_ok(wrong)
        v = first_failure(lecture01._tanh_verdicts(wrong, False))
        assert hint in v.message
    for hint in lecture01._sigmoid_mistakes(*lecture01.exercise2_data()):
        def wrong(x, w, g, hint=hint):
            bad = lecture01._sigmoid_mistakes(x, w, g)[hint]
            return x.T.dot(bad), bad.dot(w.T)
        assert not lecture01.sigmoid_layer_backward_ok(wrong)
        v = first_failure(lecture01._sigmoid_verdicts(wrong, False))
        assert hint in v.message


@pytest.mark.parametrize("name", lecture01.MLP_GRADS)
def test_lecture01_mlp_names_the_first_wrong_gradient(name):
    def wrong(*args):
        g = mlp_backward(*args)
        g[name] = g[name] * 1.5
        return g
    v = first_failure(lecture01._mlp_verdicts(wrong, False))
    assert not v and v.message.startswith(f"the first wrong gradient is grads[{name!r}]")


def test_lecture01_mlp_gradients_agree_with_torch():
    x, labels, w1, b1, w2, b2 = lecture01.exercise3_data()
    params = [torch.tensor(a, requires_grad=True) for a in (w1, b1, w2, b2)]
    logits = torch.relu(torch.tensor(x) @ params[0] + params[1]) @ params[2] + params[3]
    torch.nn.functional.cross_entropy(logits, torch.tensor(labels)).backward()
    ours = lecture01._mlp_autograd(x, labels, w1, b1, w2, b2)
    for key, p in zip(("w1", "b1", "w2", "b2"), params):
        np.testing.assert_allclose(ours[key], p.grad.numpy(), rtol=1e-10, atol=1e-12)


# ---- lecture 02 ----------------------------------------------------------------------------

def _value_class():
    class Value:
        def __init__(self, data, _prev=()):
            self.data, self.grad, self._prev = float(data), 0.0, tuple(_prev)
            self._backward = lambda: None

        def __add__(self, other):
            other = other if isinstance(other, Value) else Value(other)
            out = Value(self.data + other.data, (self, other))

            def _backward():
                self.grad += out.grad
                other.grad += out.grad
            out._backward = _backward
            return out

        def __mul__(self, other):
            other = other if isinstance(other, Value) else Value(other)
            out = Value(self.data * other.data, (self, other))

            def _backward():
                self.grad += other.data * out.grad
                other.grad += self.data * out.grad
            out._backward = _backward
            return out

        def __pow__(self, k):
            out = Value(self.data ** k, (self,))

            def _backward():
                self.grad += k * self.data ** (k - 1) * out.grad
            out._backward = _backward
            return out

        def tanh(self):
            t = math.tanh(self.data)
            out = Value(t, (self,))

            def _backward():
                self.grad += (1 - t * t) * out.grad
            out._backward = _backward
            return out
        __radd__, __rmul__ = __add__, __mul__
    return Value


def topological_order(root):
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        v, done = stack.pop()
        if done:
            order.append(v)
        elif id(v) not in seen:
            seen.add(id(v))
            stack.append((v, True))
            stack.extend((c, False) for c in v._prev if id(c) not in seen)
    return order


def backward(root):
    root.grad = 1.0
    for v in reversed(topological_order(root)):
        v._backward()


def test_lecture02_engine_right_answer_passes_hidden_tests():
    assert lecture02.engine_ok(_value_class(), topological_order, backward, hidden=True)


def test_lecture02_engine_rejects_the_usual_mistakes():
    Value = _value_class()

    def recursive(root):                        # fine on the example, too deep for the chain
        order, seen = [], set()

        def visit(v):
            if id(v) not in seen:
                seen.add(id(v))
                for c in v._prev:
                    visit(c)
                order.append(v)
        visit(root)
        return order

    def recursive_backward(root):
        root.grad = 1.0
        for v in reversed(recursive(root)):
            v._backward()
    assert lecture02.engine_ok(Value, recursive, recursive_backward)
    assert not lecture02.engine_ok(Value, recursive, recursive_backward, hidden=True)

    def no_order(root):                         # depth first from the root: no topological order
        root.grad, stack = 1.0, [root]
        while stack:
            v = stack.pop()
            v._backward()
            stack.extend(v._prev)
    assert not lecture02.engine_ok(Value, topological_order, no_order)

    def bfs(root):
        order, queue, seen = [], [root], set()
        while queue:
            v = queue.pop(0)
            if id(v) not in seen:
                seen.add(id(v))
                order.append(v)
                queue.extend(v._prev)
        return order
    v = first_failure(lecture02._engine_verdicts(Value, bfs, backward, False))
    assert not v and "each Value must come after its children" in v.message


def test_lecture02_engine_gradients_agree_with_torch():
    Value = _value_class()
    leaves, program = lecture02._example()
    vs = [Value(v) for v in leaves]
    backward(lecture02._build(program, vs)[-1])
    ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in leaves]
    lecture02._build(program, ts)[-1].backward()
    for v, t in zip(vs, ts):
        assert v.grad == pytest.approx(t.grad.item(), rel=1e-12)


def test_lecture02_other_exercises():
    def grad_of_loss(xe, we):
        w = we.clone().requires_grad_()
        xe.mm(w).tanh().pow(2).sum().backward()
        return w.grad
    assert lecture02.grad_of_loss_ok(grad_of_loss, hidden=True)
    assert not lecture02.grad_of_loss_ok(lambda xe, we: grad_of_loss(xe, we) * 2)

    def second(v):
        v = labkit.tensor(v, requires_grad=True)
        (first,) = labkit.autograd.grad(v * v.sin(), v, create_graph=True)
        return labkit.autograd.grad(first, v)[0]
    assert lecture02.second_derivative_ok(second, hidden=True)
    assert not lecture02.second_derivative_ok(lambda v: math.sin(v) + v * math.cos(v))
    assert lecture02.predicted_ok(19.0, hidden=True)
    assert not lecture02.predicted_ok(12.0)
    assert not lecture02.predicted_ok(lecture02._accumulated(), hidden=True)   # a tensor


# ---- lecture 02b: strides, compared with PyTorch ---------------------------------------------

def test_lecture02b_expressions_have_torchs_strides():
    assert lecture02b.actual_strides(labkit) == lecture02b.actual_strides(torch)


@pytest.mark.parametrize("shape", lecture02b._SHAPES + lecture02b._HIDDEN_SHAPES)
def test_lecture02b_contiguous_strides_are_torchs(shape):
    assert labkit.zeros(shape).stride() == torch.zeros(shape).stride()


def test_lecture02b_checkers():
    def contiguous_strides(shape):
        out, step = [], 1
        for n in reversed(shape):
            out.append(step)
            step *= n
        return tuple(reversed(out))
    assert lecture02b.contiguous_strides_ok(contiguous_strides, hidden=True)
    assert not lecture02b.contiguous_strides_ok(lambda s: contiguous_strides(s)[::-1])
    right = lecture02b.actual_strides(torch)
    assert lecture02b.predicted_strides_ok(dict(right), hidden=True)
    for e in right:
        wrong = dict(right, **{e: tuple(s + 1 for s in right[e])})
        assert not lecture02b.predicted_strides_ok(wrong)


# ---- lecture 03 ----------------------------------------------------------------------------

class Softplus(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0) + (1 + (-x.abs()).exp()).log()

    @staticmethod
    def backward(ctx, grad_y):
        (x,) = ctx.saved_tensors
        return grad_y * x.sigmoid()


class GradReverse(Function):
    @staticmethod
    def forward(ctx, x, lam):
        ctx.lam = lam
        return x.clone()

    @staticmethod
    def backward(ctx, grad_y):
        return -ctx.lam * grad_y, None


def test_lecture03_right_answers_pass_and_mistakes_fail():
    assert lecture03.softplus_ok(Softplus, hidden=True)
    assert lecture03.grad_reverse_ok(GradReverse, hidden=True)

    class Naive(Softplus):                      # overflows at x = 100
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return (1 + x.exp()).log()
    with np.errstate(over="ignore"):
        assert not lecture03.softplus_ok(Naive)

    class NotDone(Function):
        @staticmethod
        def forward(ctx, x):
            return None

        @staticmethod
        def backward(ctx, grad_y):
            return None
    v = first_failure(lecture03._softplus_verdicts(NotDone, False))
    assert v.message.startswith("not done yet")

    class Unscaled(GradReverse):
        @staticmethod
        def backward(ctx, grad_y):
            return -grad_y, None
    v = first_failure(lecture03._reverse_verdicts(Unscaled, False))
    assert "flipped but not scaled" in v.message


def test_lecture03_sigmoid_numbers_as_the_lecture_states():
    """Correction 2: sigma(-100) in float32 is the subnormal 3.78e-44 in labkit; PyTorch's CPU
    kernel returns 0 there (the lecture says so); both agree from -88 on."""
    tiny = np.finfo(np.float32).tiny
    x = labkit.tensor([-100.0], requires_grad=True)
    y = labkit.sigmoid(x)
    y.backward()
    assert 0 < y.item() < tiny and y.item() == pytest.approx(3.7835e-44, rel=1e-3)
    assert x.grad.item() == pytest.approx(y.item())
    assert torch.sigmoid(torch.tensor(-100.0)).item() == 0.0
    assert labkit.sigmoid(labkit.tensor(-104.0)).item() == 0.0          # below 2**-149
    for p in (-88.0, -50.0, -20.0, 0.0, 15.0):
        ours = labkit.sigmoid(labkit.tensor(p)).item()
        assert ours == pytest.approx(torch.sigmoid(torch.tensor(p)).item(), rel=1e-6)
    # where each version breaks: the composite's slope
    with np.errstate(over="ignore", invalid="ignore"):
        pts = labkit.tensor([-89.0, -88.0, -50.0, -44.0], requires_grad=True)
        (1 / (1 + (-pts).exp())).sum().backward()
    g = pts.grad.numpy()
    tp = torch.tensor([-89.0, -88.0, -50.0, -44.0], requires_grad=True)
    (1 / (1 + (-tp).exp())).sum().backward()       # the same numbers as torch's: 1 / u is
    np.testing.assert_array_equal(g, tp.grad.numpy())   # u.reciprocal() in both
    assert np.isnan(g[0]) and g[1] == 0 and 0 < g[2] < g[3] < tiny * 1e19
    assert math.log(np.finfo(np.float32).max) == pytest.approx(88.72, abs=0.01)
    assert math.log(np.finfo(np.float32).smallest_subnormal) / 2 == pytest.approx(-51.64, abs=0.01)
    assert math.log(tiny) / 2 == pytest.approx(-43.67, abs=0.01)
    assert -math.log(np.finfo(np.float32).smallest_subnormal) == pytest.approx(103.28, abs=0.01)
    assert -math.log(tiny) == pytest.approx(87.34, abs=0.01)



def test_lecture02_states_pytorchs_backward_order():
    """Correction 8: the order lecture 02 prints for PyTorch is the one torch records, with
    the code the lecture shows."""
    import ast
    import json
    from pathlib import Path
    nb = json.loads((Path(__file__).resolve().parent.parent / "course" / "lectures" /
                     "02_autograd.ipynb").read_text(encoding="utf-8"))
    cell = next("".join(c["source"]) for c in nb["cells"]
                if c["cell_type"] == "code" and "in_pytorch = [" in "".join(c["source"]))
    stated = next(ast.literal_eval(n.value) for n in ast.walk(ast.parse(cell))
                  if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "in_pytorch")
    shown = next("".join(c["source"]) for c in nb["cells"]
                 if c["cell_type"] == "markdown" and "def torch_order(" in "".join(c["source"]))
    code = shown.split("```python\n")[1].split("```")[0]
    w1, w2 = labkit.randn(1000, 100, requires_grad=True), labkit.randn(100, 10, requires_grad=True)
    x, y = labkit.randn(64, 1000), labkit.randn(64, 10)
    names = {"w1": w1, "w2": w2, "x": x, "y": y}
    exec(code.replace("torch_order((", "recorded = torch_order(("), names)  # noqa: S102
    assert names["recorded"] == stated
    assert stated.index("AccumulateGrad(w2)") < stated.index("ClampBackward1")
