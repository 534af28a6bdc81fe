"""Module hooks and the Module tree utilities against torch: the same model in both (torch's
weights loaded, float64), the same hooks, and what the hooks saw compared value by value."""
import warnings

import numpy as np
import pytest

import labkit
from conftest import assert_close

torch = pytest.importorskip("torch")


def _models():
    """A model whose inner block takes two inputs (one not needing grad) and returns a tuple."""
    def build(lib):
        class Pair(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = lib.nn.Linear(3, 3)

            def forward(self, x, y, scale=1.0):
                h = self.fc(x) * scale
                return h.tanh(), h * y

        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.pair = Pair()
                self.head = lib.nn.Linear(3, 2)

            def forward(self, x, y):
                a, b = self.pair(x, y)
                return self.head(a + b)
        return Net().double()
    torch.manual_seed(0)
    tm, lm = build(torch), build(labkit)
    lm.load_state_dict({k: labkit.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    return tm, lm


def _inputs(lib, x_grad=True):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    return lib.tensor(x, requires_grad=x_grad), lib.tensor(y)


def _run(model, lib, x_grad=True):
    x, y = _inputs(lib, x_grad)
    g = np.random.default_rng(1).standard_normal((4, 2))
    (model(x, y) * lib.tensor(g)).sum().backward()
    return x


def _both(record_hooks, x_grad=True):
    """Register record_hooks(model, log) on both models, run forward and backward; the logs."""
    tm, lm = _models()
    logs = []
    for lib, m in ((torch, tm), (labkit, lm)):
        log = []
        record_hooks(m, log)
        x = _run(m, lib, x_grad)
        logs.append((log, x.grad, [p.grad for p in m.parameters()]))
    (tlog, tgx, tgp), (llog, lgx, lgp) = logs
    assert len(llog) == len(tlog) and len(tlog) > 0
    for (tname, tvals), (lname, lvals) in zip(tlog, llog):
        assert lname == tname
        assert len(lvals) == len(tvals)
        for a, b in zip(lvals, tvals):
            assert (a is None) == (b is None), lname
            if b is not None:
                assert_close(a, b.detach(), what=lname)
    if tgx is not None:
        assert_close(lgx, tgx)
    for a, b in zip(lgp, tgp):
        assert_close(a, b)
    return llog


def test_full_backward_hook_sees_module_gradients():
    def hooks(m, log):
        m.pair.register_full_backward_hook(
            lambda mod, gin, gout: log.append(("pair", list(gin) + list(gout))))
        m.head.register_full_backward_hook(
            lambda mod, gin, gout: log.append(("head", list(gin) + list(gout))))
    _both(hooks)


def test_full_backward_hook_replaces_grad_input():
    def hooks(m, log):
        m.pair.register_full_backward_hook(lambda mod, gin, gout: (gin[0] * 3, None))
        m.pair.fc.register_full_backward_hook(
            lambda mod, gin, gout: log.append(("fc", list(gin) + list(gout))))
    _both(hooks)


def test_backward_pre_hook_replaces_grad_output():
    def hooks(m, log):
        m.pair.register_full_backward_pre_hook(
            lambda mod, gout: (log.append(("pre", list(gout))), (gout[0] * 2, gout[1]))[1])
        m.pair.register_full_backward_hook(
            lambda mod, gin, gout: log.append(("post", list(gin) + list(gout))))
    _both(hooks)


def test_backward_hook_when_no_input_needs_grad():
    """Called from the outputs' side with grad_input all None (the input is data)."""
    def hooks(m, log):
        m.pair.register_full_backward_hook(
            lambda mod, gin, gout: log.append(("pair", list(gin) + list(gout))))
    with pytest.warns(UserWarning, match="no inputs require gradients"):
        log = _both(hooks, x_grad=False)
    assert log[0][1][:2] == [None, None]
    tm, lm = _models()
    lm.pair.register_full_backward_hook(lambda mod, gin, gout: (labkit.ones(4, 3), None))
    with pytest.raises(RuntimeError, match="no input requires gradient"), \
            pytest.warns(UserWarning):
        _run(lm, labkit, x_grad=False)


def test_hook_errors_as_torch():
    _, lm = _models()
    lm.pair.register_full_backward_hook(lambda mod, gin, gout: (gin[0],))
    with pytest.raises(RuntimeError, match="invalid number of grad_input, got 1, but expected 2"):
        _run(lm, labkit)
    _, lm = _models()
    lm.pair.register_full_backward_pre_hook(lambda mod, gout: (gout[0],))
    with pytest.raises(RuntimeError, match="invalid number of grad_output"):
        _run(lm, labkit)
    _, lm = _models()
    lm.head.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both"):
        lm.head.register_backward_hook(lambda *a: None)


def test_old_style_backward_hook_warns_like_torch():
    """torch warns where its old-style hook would miss gradients (a leaf input, several ops);
    on one op fed by another op both give the same grad_input and grad_output, silently."""
    class TwoOps:
        def __init__(self, lib):
            class M(lib.nn.Module):
                def forward(self, x):
                    return (x * 2).sigmoid()
            self.m = M()
    for lib in (torch, labkit):
        x = lib.tensor(np.linspace(-1, 1, 5), requires_grad=True)
        for m, inp in ((lib.nn.Sigmoid(), x), (TwoOps(lib).m, x * 2)):
            m.register_backward_hook(lambda *a: None)
            with pytest.warns(FutureWarning, match="missing some grad_input"):
                m(inp)
        sig = lib.nn.Sigmoid()
        seen = []
        sig.register_backward_hook(lambda m, gin, gout: seen.append((gin, gout)))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y = sig(x * 2)
        (y * lib.tensor(np.arange(5.0))).sum().backward()
        assert len(seen) == 1
        if lib is torch:
            ref = [t.detach().numpy() for t in seen[0][0] + seen[0][1]]
        else:
            got = seen[0][0] + seen[0][1]
            assert len(got) == len(ref)
            for a, b in zip(got, ref):
                assert_close(a, b)


def test_forward_hooks_with_kwargs_and_prepend():
    def hooks(m, log):
        def pre(mod, args, kwargs):
            log.append(("pre", [args[0]]))
            return (args[0] * 2, args[1]), dict(kwargs, scale=0.5)

        def post(mod, args, kwargs, out):
            log.append(("post", [args[0], out[0]]))
            return out[0] + 1, out[1]
        m.pair.register_forward_pre_hook(pre, with_kwargs=True)
        m.pair.register_forward_hook(post, with_kwargs=True)
        m.pair.register_forward_hook(lambda mod, a, out: log.append(("first", [out[1]])),
                                     prepend=True)
    _both(hooks)


def test_forward_pre_hook_single_value_and_handle_removal():
    for lib in (torch, labkit):
        lin = lib.nn.Linear(2, 2)
        h = lin.register_forward_pre_hook(lambda m, args: args[0] * 0)
        out = lin(lib.ones(1, 2))
        assert np.allclose(out.detach().numpy(), lin.bias.detach().numpy())
        h.remove()
        with lin.register_forward_hook(lambda m, a, o: o * 0):
            assert float(lin(lib.ones(1, 2)).detach().abs().sum()) == 0
        assert float(lin(lib.ones(1, 2)).detach().abs().sum()) != 0


def test_global_module_hooks():
    def hooks(m, log):
        mod = torch.nn.modules.module if isinstance(m, torch.nn.Module) else \
            labkit.nn.modules.module
        handles = [
            mod.register_module_forward_pre_hook(
                lambda mm, args: log.append(("gpre " + type(mm).__name__, []))),
            mod.register_module_forward_hook(
                lambda mm, args, out: log.append(("gpost " + type(mm).__name__, []))),
            mod.register_module_full_backward_hook(
                lambda mm, gin, gout: log.append(("gbw " + type(mm).__name__,
                                                   [g for g in gin + gout]))),
            mod.register_module_full_backward_pre_hook(
                lambda mm, gout: log.append(("gbwpre " + type(mm).__name__, list(gout)))),
        ]
        m.head.register_forward_hook(lambda mm, a, o: log.append(("local", [])))
        hooks.handles = getattr(hooks, "handles", []) + handles
    try:
        log = _both(hooks)
    finally:
        for h in hooks.handles:
            h.remove()
    names = [n for n, _ in log]
    assert names.index("gpost Linear") < names.index("local")
    assert not labkit.nn.hooks._global_forward_hooks


def test_tree_utilities_match_torch():
    tm, lm = _models()
    assert [n for n, _ in lm.named_modules()] == [n for n, _ in tm.named_modules()]
    assert [n for n, _ in lm.named_modules(prefix="net")] == \
        [n for n, _ in tm.named_modules(prefix="net")]
    assert lm.get_submodule("pair.fc") is lm.pair.fc
    assert lm.get_parameter("pair.fc.bias") is lm.pair.fc.bias
    with pytest.raises(AttributeError):
        lm.get_parameter("pair.fc.nothing")
    with pytest.raises(AttributeError):
        lm.get_submodule("pair.nothing")
    order = []
    lm.apply(lambda m: order.append(type(m).__name__))
    torder = []
    tm.apply(lambda m: torder.append(type(m).__name__))
    assert order == torder
    lm.requires_grad_(False)
    assert not any(p.requires_grad for p in lm.parameters())
    lm.requires_grad_()
    _run(lm, labkit)
    lm.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in lm.parameters())
    lm.zero_grad()
    assert all(p.grad is None for p in lm.parameters())


def test_to_dtype_state_dict_keep_vars_and_non_persistent_buffers():
    for lib in (torch, labkit):
        m = lib.nn.Linear(2, 3)
        m.register_buffer("seen", lib.zeros(3), persistent=False)
        m.register_buffer("count", lib.zeros(1))
        w = m.weight
        m.to(lib.float64)
        assert m.weight is w and m.weight.dtype == lib.float64 and m.seen.dtype == lib.float64
        keys = list(m.state_dict())
        assert keys == ["weight", "bias", "count"]
        kept = m.state_dict(keep_vars=True)
        assert kept["weight"] is m.weight and kept["weight"].requires_grad
        assert not m.state_dict()["weight"].requires_grad
        assert [n for n, _ in m.named_buffers()] == ["seen", "count"]
        with pytest.raises(TypeError):
            m.to(lib.int64)


def test_always_call_forward_hook_runs_when_forward_raises():
    for lib in (torch, labkit):
        class Boom(lib.nn.Module):
            def forward(self, x):
                raise ValueError("boom")
        seen = []
        m = Boom()
        m.register_forward_hook(lambda mod, args, out: seen.append(("always", out)),
                                always_call=True)
        m.register_forward_hook(lambda mod, args, out: seen.append(("normal", out)))
        with pytest.raises(ValueError, match="boom"):
            m(lib.ones(1))
        assert seen == [("always", None)]


def test_inplace_on_a_hooked_output_is_caught():
    """The hooked output shares memory with the module's real output, which Sigmoid saved:
    changing it in place must raise (torch at the in-place op, labkit at backward), never
    give a wrong gradient."""
    for lib in (torch, labkit):
        s = lib.nn.Sigmoid()
        s.register_full_backward_hook(lambda *a: None)
        x = lib.tensor([0.5, -1.0], requires_grad=True)
        with pytest.raises(RuntimeError):
            y = s(x * 1)
            y.mul_(2)
            y.sum().backward()
