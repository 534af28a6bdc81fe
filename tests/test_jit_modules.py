"""Traced and scripted modules keep their parts (submodules, parameters, attributes, .code,
.graph), a scripted module whose submodule returns a tuple gets every output (regression: it
used to keep only the first), and the TorchScript tutorial's mix of scripted and traced
modules runs as in torch, control flow included."""
import numpy as np
import pytest

import labkit
from conftest import assert_close

torch = pytest.importorskip("torch")


def _load(lm, tm):
    lm.load_state_dict({k: labkit.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})


def _tuple_models(lib):
    class Sub(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(3, 2)

        def forward(self, x):
            h = self.fc(x)
            return h.relu(), h * 2

    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.sub = Sub()

        def forward(self, x):
            a, b = self.sub(x)
            return a + b, a.sum() * b.sum()
    return M()


def test_script_submodule_returning_a_tuple():
    torch.manual_seed(0)
    tm = _tuple_models(torch).double()
    lm = _tuple_models(labkit).double()
    _load(lm, tm)
    x = np.random.default_rng(0).standard_normal((4, 3))
    ts = torch.jit.script(tm)
    ls = labkit.jit.script(lm)
    tout = ts(torch.tensor(x))
    lout = ls(labkit.tensor(x))
    assert isinstance(lout, tuple) and len(lout) == 2
    for a, b in zip(lout, tout):
        assert_close(a.detach(), b.detach())
    for a, b in zip(lm(labkit.tensor(x)), lout):
        assert_close(a.detach(), b.detach())


def test_script_unpacks_tensor_method_tuples():
    def f(x):
        a, b = x.chunk(2)
        return a - b
    x = labkit.tensor(np.arange(6.0).reshape(2, 3))
    assert_close(labkit.jit.script(f)(x), f(x))


def test_scripted_submodule_returning_tuple_directly():
    class Pair(labkit.nn.Module):
        def forward(self, x):
            return x + 1, x * 3

    class Outer(labkit.nn.Module):
        def __init__(self):
            super().__init__()
            self.pair = Pair()

        def forward(self, x):
            return self.pair(x)
    out = labkit.jit.script(Outer())(labkit.ones(2))
    assert isinstance(out, tuple) and len(out) == 2
    assert_close(out[1], np.full(2, 3.0, dtype=np.float32))


def _net(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = lib.nn.Linear(4, 3)
            self.scale = 2.0

        def forward(self, x):
            return self.linear(x).relu() * self.scale
    return Net()


@pytest.mark.parametrize("how", ["trace", "script"])
def test_modules_expose_their_parts(how):
    torch.manual_seed(0)
    tm, lm = _net(torch).double(), _net(labkit).double()
    _load(lm, tm)
    x = np.random.default_rng(1).standard_normal((5, 4))
    if how == "trace":
        tj, lj = torch.jit.trace(tm, torch.tensor(x)), labkit.jit.trace(lm, labkit.tensor(x))
    else:
        tj, lj = torch.jit.script(tm), labkit.jit.script(lm)
    assert lj.linear is lm.linear and lj.scale == 2.0   # (torch's trace drops scale)
    if how == "script":
        assert tj.scale == 2.0
    assert lj.linear.weight is lm.linear.weight
    assert [n for n, _ in lj.named_parameters()] == [n for n, _ in tj.named_parameters()]
    assert list(lj.state_dict()) == list(tj.state_dict())
    assert [n for n, _ in lj.named_modules()] == [n for n, _ in tj.named_modules()]
    assert "linear" in dir(lj)
    assert isinstance(lj.code, str) and "def " in lj.code and "linear" in lj.code
    assert lj.graph is not None and "linear" in str(lj.graph)
    assert_close(lj.forward(labkit.tensor(x)).detach(), tj.forward(torch.tensor(x)).detach())
    assert_close(lj.linear(labkit.tensor(x)).detach(), tm.linear(torch.tensor(x)).detach())
    # parameters are read by reference: a step through lj.parameters() changes lj's results
    for lib, jm in ((labkit, lj), (torch, tj)):
        opt = lib.optim.SGD(jm.parameters(), lr=0.1)
        jm(lib.tensor(x)).sum().backward()
        opt.step()
    assert_close(lj(labkit.tensor(x)).detach(), tj(torch.tensor(x)).detach())
    with pytest.raises(AttributeError, match="nothing"):
        lj.nothing
    assert labkit.jit.script(lj) is lj


def _tutorial(lib, x, h):
    """The 'Introduction to TorchScript' tutorial's modules, built with lib."""
    class MyDecisionGate(lib.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x
            else:
                return -x

    class MyCell(lib.nn.Module):
        def __init__(self, dg):
            super().__init__()
            self.dg = dg
            self.linear = lib.nn.Linear(4, 4)

        def forward(self, x, h):
            new_h = lib.tanh(self.dg(self.linear(x)) + h)
            return new_h, new_h

    scripted_gate = lib.jit.script(MyDecisionGate())

    class MyRNNLoop(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.cell = lib.jit.trace(MyCell(scripted_gate).double(), (x, h))

        def forward(self, xs):
            h, y = lib.zeros(3, 4, dtype=lib.float64), lib.zeros(3, 4, dtype=lib.float64)
            for i in range(xs.size(0)):
                y, h = self.cell(xs[i], h)
            return y, h

    class WrapRNN(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.loop = lib.jit.script(MyRNNLoop())

        def forward(self, xs):
            y, h = self.loop(xs)
            return lib.relu(y)
    return MyCell, scripted_gate, WrapRNN


def test_torchscript_tutorial_mix_of_script_and_trace():
    rng = np.random.default_rng(0)
    x0, h0 = rng.random((3, 4)), rng.random((3, 4))
    xs = rng.random((10, 3, 4))
    results = {}
    for lib in (torch, labkit):
        torch.manual_seed(0)
        with torch.no_grad():
            MyCell, gate, WrapRNN = _tutorial(lib, lib.tensor(x0), lib.tensor(h0))
            wrap = WrapRNN()
            if lib is labkit:       # the same weights as torch's
                w = results[torch]["weights"]
                with labkit.no_grad():
                    wrap.loop.cell.linear.weight.copy_(labkit.tensor(w[0]))
                    wrap.loop.cell.linear.bias.copy_(labkit.tensor(w[1]))
            traced = lib.jit.trace(wrap, (lib.tensor(xs),))
        results[lib] = dict(
            weights=[p.detach().numpy().copy() for p in wrap.loop.cell.linear.parameters()],
            out=traced(lib.tensor(xs)).detach().numpy(),
            # other data: the scripted gate's branch must be decided again, not frozen
            other=traced(lib.tensor(-5 * xs)).detach().numpy(),
            eager=wrap(lib.tensor(-5 * xs)).detach().numpy(),
            gate=[gate(lib.tensor(v)).numpy() for v in (x0, -x0)],
            code=traced.code)
    for key in ("out", "other", "eager"):
        assert_close(results[labkit][key], results[torch][key], what=key)
    assert_close(results[labkit]["other"], results[labkit]["eager"])
    for a, b in zip(results[labkit]["gate"], results[torch]["gate"]):
        assert_close(a, b)
    assert "MyRNNLoop" in results[labkit]["code"]   # the scripted loop is one call in the trace


def test_trace_lstm_nested_outputs_matches_torch():
    """An LSTM returns (output, (h_n, c_n)): a trace keeps the nesting, and the traced module
    shows the LSTM's parameters under torch's names."""
    torch.manual_seed(0)
    tm = torch.nn.LSTM(3, 4, num_layers=2).double()
    lm = labkit.nn.LSTM(3, 4, num_layers=2).double()
    _load(lm, tm)
    x = np.random.default_rng(0).standard_normal((5, 2, 3))
    tt = torch.jit.trace(tm, torch.tensor(x))
    lt = labkit.jit.trace(lm, labkit.tensor(x))
    lout, (lh, lc) = lt(labkit.tensor(x))
    tout, (th, tc) = tt(torch.tensor(x))
    for a, b in ((lout, tout), (lh, th), (lc, tc)):
        assert_close(a.detach(), b.detach())
    assert [n for n, _ in lt.named_parameters()] == [n for n, _ in tt.named_parameters()]
    assert lt.weight_hh_l1 is lm.weight_hh_l1


def test_script_module_with_lstm_nested_unpacking():
    """out, (h, c) = self.lstm(x): nested tuple targets, each level kept whole."""
    def build(lib):
        class Tagger(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = lib.nn.LSTM(3, 4, batch_first=True)
                self.head = lib.nn.Linear(4, 2)

            def forward(self, x):
                out, (h, c) = self.lstm(x)
                return self.head(out) + c.sum(), h
        return Tagger().double()
    torch.manual_seed(0)
    tm, lm = build(torch), build(labkit)
    _load(lm, tm)
    x = np.random.default_rng(0).standard_normal((2, 5, 3))
    ls = labkit.jit.script(lm)
    lout = ls(labkit.tensor(x))
    tout = torch.jit.script(tm)(torch.tensor(x))
    for a, b in zip(lout, tout):
        assert_close(a.detach(), b.detach())
