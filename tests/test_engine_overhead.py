"""The per-op overhead work of issue 21 (W2), against torch: the elementwise backwards that run
on arrays (mul, tanh, exp, sub: values, dtypes, 0-d, broadcasting, numbers, and the Tensor path
under create_graph), the engine-hook count that lets each op skip per-thread reads, the rarely
set Node fields kept on the class (vars(ctx) / user_attrs), and Tensor without __getattr__
(missing torch names still named)."""
import numpy as np
import pytest

import labkit
from labkit.autograd.graph import saved_tensors_hooks
from labkit.engine import hooks, unsupported
from labkit.engine.function import user_attrs
from labkit.engine.grad_mode import process
from labkit.engine.tensor import Tensor

torch = pytest.importorskip("torch")

CASES = [  # (name, labkit fn, torch fn, shapes, dtypes)
    ("mul", lambda a, b: a * b, lambda a, b: a * b, [(4, 3), (3,)], ["float32", "float32"]),
    ("mul_0d", lambda a, b: a * b, lambda a, b: a * b, [(), ()], ["float32", "float32"]),
    ("mul_mixed", lambda a, b: a * b, lambda a, b: a * b, [(2, 3), (2, 3)], ["float32", "float64"]),
    ("sub", lambda a, b: a - b, lambda a, b: a - b, [(2, 1), (1, 5)], ["float64", "float64"]),
    ("sub_0d", lambda a, b: a - b, lambda a, b: a - b, [(), ()], ["float32", "float32"]),
    ("tanh", lambda a: a.tanh(), lambda a: a.tanh(), [(5,)], ["float32"]),
    ("tanh_0d", lambda a: a.tanh(), lambda a: a.tanh(), [()], ["float64"]),
    ("exp", lambda a: a.exp(), lambda a: a.exp(), [(2, 2)], ["float32"]),
    ("exp_0d", lambda a: a.exp(), lambda a: a.exp(), [()], ["float32"]),
]


def _twins(shapes, dtypes, seed):
    rng = np.random.default_rng(seed)
    arrs = [rng.uniform(-1.5, 1.5, s).astype(d) for s, d in zip(shapes, dtypes)]
    mine = [labkit.tensor(a, requires_grad=True) for a in arrs]
    ref = [torch.tensor(a, requires_grad=True) for a in arrs]
    return mine, ref


@pytest.mark.parametrize("name,f,g,shapes,dtypes", CASES, ids=[c[0] for c in CASES])
def test_array_backward_matches_torch(name, f, g, shapes, dtypes):
    mine, ref = _twins(shapes, dtypes, seed=len(name))
    y, yt = f(*mine), g(*ref)
    up = np.random.default_rng(1).standard_normal(yt.shape).astype(str(yt.dtype)[6:])
    y.backward(labkit.tensor(up))
    yt.backward(torch.tensor(up))
    for m, r in zip(mine, ref):
        assert type(m.grad._data) is np.ndarray            # a 0-d gradient stays an array
        assert m.grad.dtype == getattr(labkit, str(r.grad.dtype)[6:])
        assert m.grad.shape == tuple(r.grad.shape)
        np.testing.assert_allclose(m.grad._data, r.grad.numpy(), rtol=1e-6, atol=1e-7)


CURVED = [c for c in CASES if not c[0].startswith("sub")]   # sub's second derivative is 0


@pytest.mark.parametrize("name,f,g,shapes,dtypes", CURVED, ids=[c[0] for c in CURVED])
def test_second_derivative_takes_the_tensor_path(name, f, g, shapes, dtypes):
    mine, ref = _twins(shapes, dtypes, seed=7)
    gm = labkit.autograd.grad(f(*mine).sum(), mine, create_graph=True)
    gr = torch.autograd.grad(g(*ref).sum(), ref, create_graph=True)
    assert all(x.grad_fn is not None or not x.requires_grad for x in gm)
    for x in mine:
        x.grad = None
    sum(x.sum() for x in gm if x.requires_grad).backward()
    sum(x.sum() for x in gr if x.requires_grad).backward()
    for m, r in zip(mine, ref):
        got = None if m.grad is None else m.grad._data
        want = None if r.grad is None else r.grad.numpy()
        if want is None:
            assert got is None or not np.any(got)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_mul_by_a_number_and_an_int_tensor_promote_as_torch():
    a = labkit.tensor([1.5, -2.0], requires_grad=True)
    at = torch.tensor([1.5, -2.0], requires_grad=True)
    (a * 3.0 * labkit.tensor([2, 5])).sum().backward()
    (at * 3.0 * torch.tensor([2, 5])).sum().backward()
    assert a.grad.dtype == labkit.float32
    np.testing.assert_array_equal(a.grad._data, at.grad.numpy())


def test_tanh_backward_bits_equal_the_formula_with_a_python_one():
    y0 = np.linspace(-0.99, 0.99, 33).astype(np.float32)
    x = labkit.tensor(np.arctanh(y0), requires_grad=True)
    y = x.tanh()
    g = np.random.default_rng(3).standard_normal(33).astype(np.float32)
    y.backward(labkit.tensor(g))
    yd = y._data
    np.testing.assert_array_equal(x.grad._data, g * (1 - yd * yd))   # same bits


def test_the_hook_count_goes_back_to_zero_even_when_the_block_raises():
    start = process.hooked
    x = labkit.ones(2, requires_grad=True)
    with hooks.op_hook(lambda *a: None), hooks.node_hook(lambda *a: None):
        assert process.hooked == start + 2
        (x * 2).sum().backward()
    with pytest.raises(ZeroDivisionError):
        with hooks.saved_tensors_hooks(lambda t: t, lambda t: t):
            assert process.hooked == start + 1
            1 / 0
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        with hooks.tracing(None):
            assert process.hooked == start + 2
    assert process.hooked == start


def test_hooks_still_see_every_op_and_saved_tensor():
    seen, packed = [], []
    x = labkit.ones(3, requires_grad=True)
    with hooks.op_hook(lambda node, args, outs: seen.append(node.name())):
        with hooks.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
            y = (x * 2).tanh().sum()
    y.backward()
    assert seen == ["MulBackward0", "TanhBackward0", "SumBackward0"]
    assert len(packed) == 1        # tanh's output; x * 2 saves a number (2), not a tensor
    xt = torch.ones(3, requires_grad=True)
    (xt * 2).tanh().sum().backward()
    np.testing.assert_allclose(x.grad._data, xt.grad.numpy(), rtol=1e-6)


def test_engine_fields_set_rarely_stay_out_of_user_attrs():
    class Scale(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            ctx.mark_non_differentiable()
            return x._data * k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x = labkit.ones(2, requires_grad=True)
    y = Scale.apply(x, 3.0)
    y.register_hook(lambda g: g)
    node = y.grad_fn
    assert user_attrs(node) == {"k": 3.0}
    assert node._hooks and not node._freed
    y.sum().backward()
    assert node._freed is False         # it saved nothing: nothing to free (as torch)
    np.testing.assert_array_equal(x.grad._data, [3.0, 3.0])


def test_a_freed_node_still_says_backward_twice():
    x = labkit.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    assert y.grad_fn.next_functions[0][0]._freed
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_tensor_attribute_reads_stay_on_the_fast_path_and_misses_are_named():
    assert "__getattr__" not in vars(Tensor)        # 3.11 would slow every attribute read
    x = labkit.ones(2)
    p = labkit.nn.Parameter(labkit.zeros(2))
    lacking = sorted(unsupported.lacking(Tensor))
    assert lacking and not hasattr(x, lacking[0])
    for obj in (x, p):
        with pytest.raises(AttributeError, match=rf"^labkit does not implement torch\.Tensor\."
                                                 rf"{lacking[0]}; see docs/compat\.md$"):
            getattr(obj, lacking[0])
        assert lacking[0] not in dir(obj) and "shape" in dir(obj)
    x.__dict__[lacking[0]] = 5                      # an instance value still wins
    assert getattr(x, lacking[0]) == 5
