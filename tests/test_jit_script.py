"""jit.script: control flow survives as If/Loop nodes and is decided at run time, results
and gradients equal eager, and unsupported syntax is refused with the line and a fix."""
import numpy as np
import pytest

import labkit
import labkit.nn.functional as F
from labkit import jit, nn
from jit_models import close


def gated(x, w, n: int):
    h = x.mm(w)
    if h.sum() > 0:
        h = h.relu()
    else:
        h = -h
    for i in range(n):
        h = h * 0.5 + i
    y = h.tanh() if n > 2 else h
    return y.sum(), h


@pytest.mark.parametrize("sign,n", [(1, 3), (-1, 1), (1, 0)])
def test_script_follows_each_branch_like_eager_with_gradients(sign, n):
    s = jit.script(gated)
    x = labkit.randn(3, 4) * sign
    w = labkit.randn(4, 2, requires_grad=True)
    loss, h = s(x, w, n)
    loss.backward()
    g = w.grad.numpy().copy()
    w.grad = None
    eager, eh = gated(x, w, n)
    eager.backward()
    assert close(loss, eager) and close(h, eh) and close(g, w.grad)


def test_script_ir_has_if_and_loop_nodes():
    text = str(jit.script(gated).graph)
    assert "= If(" in text and "= Loop(0, %n, 1," in text
    assert "then():" in text and "else():" in text and "body(" in text
    assert "%n : int" in text


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(4, 8), nn.Linear(8, 2)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        return self.fc2(h)


def test_script_a_module_calls_its_submodules():
    m = TwoLayer()
    s = jit.script(m)
    x = labkit.randn(5, 4)
    assert close(s(x), m(x))
    assert "fc1(%x)" in str(s.graph)


def test_early_returns_become_an_if():
    def clipped(x):
        if x.sum() > 0:
            return x.clamp(max=1.0)
        y = x * 2
        return y.clamp(min=-1.0)
    s = jit.script(clipped)
    for x in (labkit.tensor([0.5, 3.0]), labkit.tensor([-3.0, 0.25])):
        assert close(s(x), clipped(x))
    assert "= If(" in str(s.graph)


def test_script_works_as_a_decorator():
    @jit.script
    def double(x):
        return x * 2
    assert close(double(labkit.ones(2)), [2, 2])


def _while(x):
    while x.sum() > 0:
        x = x - 1
    return x


def _print(x):
    print(x)
    return x


def _loop_return(x):
    for i in range(3):
        return x
    return x


def _foreign(x):
    return np.tanh(x)


def _lambda(x):
    f = lambda t: t * 2  # noqa: E731
    return f(x)


def _comprehension(x):
    ys = [x * i for i in range(3)]
    return ys


def _one_branch(x):
    if x.sum() > 0:
        y = x
    return y


@pytest.mark.parametrize("fn,what,fix", [
    (_while, "a while loop", "for i in range"),
    (_print, "side effect", "outside the scripted function"),
    (_loop_return, "a return inside a loop", "after the loop"),
    (_foreign, "not a labkit function", "labkit functions"),
    (_lambda, "a lambda", "inline"),
    (_comprehension, "list comprehension", "for loop"),
    (_one_branch, "set in only one branch", "both branches"),
])
def test_unsupported_syntax_names_the_line_and_a_fix(fn, what, fix):
    with pytest.raises(jit.ScriptError) as err:
        jit.script(fn)
    msg = str(err.value)
    assert what in msg and fix in msg and f"{fn.__name__}, line " in msg
