"""What a student sees in the graph, against torch 2.13: `y.grad_fn`'s name and the names along
`next_functions` for the composite ops torch computes as one node (NativeLayerNormBackward0,
SiluBackward0, BinaryCrossEntropyBackward0 ...), plus the values, gradients (random upstream
gradient) and second derivatives (create_graph) of each of those ops, with size-0, size-1 and
0-d inputs where the op takes them."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

DEPTH = 3


def chain(fn, depth=DEPTH):
    """grad_fn's name, then its next_functions' names, `depth` levels down (None: no edge)."""
    if fn is None:
        return None
    if depth == 0:
        return type(fn).__name__
    return (type(fn).__name__, tuple(chain(n, depth - 1) for n, _ in fn.next_functions))


def _inputs(mod, spec, device="cpu"):
    """spec: arrays (float64 arrays require grad; ('c', array) is a constant tensor; an int
    array is an index tensor) or plain values, passed as they are."""
    out = []
    for s in spec:
        if isinstance(s, tuple) and s and s[0] == "c":
            out.append(_tensor(mod, s[1], False, device))
        elif isinstance(s, np.ndarray):
            out.append(_tensor(mod, s, s.dtype.kind == "f", device))
        else:
            out.append(s)
    return out


def _tensor(mod, a, rg, device):
    if mod is torch:
        return torch.tensor(a, requires_grad=rg)
    return labkit.tensor(a, requires_grad=rg, device=device)


def _np(t):
    return np.asarray(t.detach().cpu().numpy()) if hasattr(t, "detach") else np.asarray(t)


def _close(a, b, what, rtol=1e-6, atol=1e-9):
    a, b = _np(a), _np(b)
    assert a.shape == b.shape, f"{what}: labkit shape {a.shape}, torch {b.shape}"
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=what)


def compare(f, spec, names=True, second=True, device="cpu", seed=0, rtol=1e-6, atol=1e-9):
    """Run f(mod, *inputs) on torch and labkit; compare grad_fn chains, values, gradients and
    second derivatives w.r.t. every input that requires grad."""
    tin, lin = _inputs(torch, spec), _inputs(labkit, spec, device)
    t, m = f(torch, *tin), f(labkit, *lin)
    if names:
        assert chain(m.grad_fn) == chain(t.grad_fn)
        if t.grad_fn is not None:
            assert m.grad_fn.name() == t.grad_fn.name()
    _close(m, t, "value", rtol, atol)
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    treq = [x for x in tin if isinstance(x, torch.Tensor) and x.requires_grad]
    lreq = [x for x in lin if isinstance(x, labkit.Tensor) and x.requires_grad]
    if not t.requires_grad:
        return
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(tuple(t.shape))
    tg = torch.autograd.grad(t, treq, torch.tensor(u), create_graph=True, allow_unused=True)
    lg = labkit.autograd.grad(m, lreq, labkit.tensor(u, device=device), create_graph=True,
                              allow_unused=True)
    for i, (a, b, x) in enumerate(zip(lg, tg, treq)):
        _close(np.zeros(tuple(x.shape)) if a is None else a,
               torch.zeros_like(x) if b is None else b, f"gradient {i}", rtol, atol)
    if not second:
        return
    vs = [rng.standard_normal(tuple(x.shape)) for x in treq]
    ts = sum((g * torch.tensor(v)).sum() for g, v in zip(tg, vs) if g is not None and
             g.requires_grad)
    ls = sum((g * labkit.tensor(v, device=device)).sum() for g, v in zip(lg, vs)
             if g is not None and g.requires_grad)
    if not isinstance(ts, torch.Tensor):
        return
    tgg = torch.autograd.grad(ts, treq, allow_unused=True)
    # a piecewise-linear op: labkit's gradient may not depend on x at all (zero curvature)
    lgg = (labkit.autograd.grad(ls, lreq, allow_unused=True) if isinstance(ls, labkit.Tensor)
           else [None] * len(lreq))
    for i, (a, b, x) in enumerate(zip(lgg, tgg, treq)):
        _close(np.zeros(tuple(x.shape)) if a is None else a,
               torch.zeros_like(x) if b is None else b, f"second derivative {i}", rtol, atol)


def r(*shape, seed=1, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def prob(*shape, seed=2):
    return np.random.default_rng(seed).uniform(0.05, 0.95, size=shape)


F = "nn.functional"


def fn(name):
    """f(mod, *args) calling mod.nn.functional.<name>."""
    def call(mod, *args, **kw):
        return getattr(mod.nn.functional, name)(*args, **kw)
    return call


# --- activations ---------------------------------------------------------------------------
ACTIVATIONS = {
    "silu": lambda m, x: m.nn.functional.silu(x),
    "mish": lambda m, x: m.nn.functional.mish(x),
    "hardsigmoid": lambda m, x: m.nn.functional.hardsigmoid(x),
    "hardswish": lambda m, x: m.nn.functional.hardswish(x),
    "celu": lambda m, x: m.nn.functional.celu(x, alpha=0.7),
    "hardshrink": lambda m, x: m.nn.functional.hardshrink(x, 0.3),
    "softshrink": lambda m, x: m.nn.functional.softshrink(x, 0.3),
    "threshold": lambda m, x: m.nn.functional.threshold(x, 0.1, 2.0),
    "glu": lambda m, x: m.nn.functional.glu(x, 0),
    "glu_last": lambda m, x: m.nn.functional.glu(x),
    "gelu": lambda m, x: m.nn.functional.gelu(x),
    "gelu_tanh": lambda m, x: m.nn.functional.gelu(x, approximate="tanh"),
    "elu": lambda m, x: m.nn.functional.elu(x),
    "softplus": lambda m, x: m.nn.functional.softplus(x),
    "leaky_relu": lambda m, x: m.nn.functional.leaky_relu(x, 0.2),
    "hardtanh": lambda m, x: m.nn.functional.hardtanh(x),
    "relu6": lambda m, x: m.nn.functional.relu6(x),
    "log_softmax": lambda m, x: m.nn.functional.log_softmax(x, 0),
    "softmax": lambda m, x: m.nn.functional.softmax(x, 0),
}


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("shape", [(4, 6), (2, 1), (0, 4), ()])
def test_activation(name, shape):
    if name.startswith("glu") and (shape == () or shape == (2, 1) and name == "glu_last"):
        pytest.skip("glu halves a dim: it needs an even one")
    if name in ("log_softmax", "softmax") and shape == ():
        shape = (1,)
    # torch has no second derivative for hardsigmoid (labkit's is zero, as it is a.e.)
    compare(ACTIVATIONS[name], [r(*shape, low=-4, high=4)], second=name != "hardsigmoid")


@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish", "hardshrink", "softshrink",
                                  "threshold", "relu6", "hardtanh"])
def test_activation_kinks(name):
    """The gradient at the kinks is torch's choice, not a half-way value."""
    x = np.array([-3.0, 3.0, -0.3, 0.3, 0.1, 0.0, 6.0, -1.0, 1.0])
    compare(ACTIVATIONS[name], [x], second=name != "hardsigmoid")


def test_activation_float32_and_module():
    x = r(3, 4).astype(np.float32)
    compare(lambda m, x: m.nn.SiLU()(x), [x], rtol=1e-5, atol=1e-6)
    compare(lambda m, x: m.nn.Hardswish()(x), [x], rtol=1e-5, atol=1e-6)
    compare(lambda m, x: m.nn.Mish()(x), [x], rtol=1e-5, atol=1e-6)
