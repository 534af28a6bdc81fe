"""The engine's core (issue 12): one dispatch path, the ctx class, Node's fields, saved kinds,
set_materialize_grads and saved_tensors_hooks against torch, and the engine hooks module."""
import threading

import numpy as np
import pytest

import labkit
from labkit.autograd.function import FunctionCtx
from labkit.engine import hooks
from labkit.engine.device import cpu
from labkit.engine.ops.unary import Exp, Tanh
from labkit.engine.tensor import Tensor

torch = pytest.importorskip("torch")


def _bad():
    """A tensor numpy cannot compute on (an object array): the op's forward raises."""
    return Tensor._make(np.array(["a"], dtype=object), cpu)


@pytest.mark.parametrize("call", [lambda x: x.exp(), lambda x: Exp.apply(x),
                                  lambda x: x.tanh(), lambda x: x * x, lambda x: x.sign()])
def test_every_dispatch_path_names_the_op(call):
    with pytest.raises((ValueError, TypeError)) as err:
        call(_bad())
    assert "(inputs: (1,)" in str(err.value)


def test_method_and_apply_give_the_same_error():
    errors = []
    for call in (lambda x: x.exp(), lambda x: Exp.apply(x)):
        with pytest.raises(ValueError) as err:
            call(_bad())
        errors.append(str(err.value))
    assert errors[0] == errors[1] and errors[0].startswith("exp")


class _Scale(labkit.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        ctx.save_for_backward(x)
        return x._data * alpha

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.alpha, None


def test_vars_of_a_node_hold_only_what_forward_put_on_ctx():
    x = labkit.randn(3, requires_grad=True)
    assert vars(_Scale.apply(x, 2.0).grad_fn) == {"alpha": 2.0}
    assert vars((x * x).grad_fn) == {}
    assert isinstance((x * x).grad_fn, FunctionCtx)


def test_the_ctx_of_an_unrecorded_op_keeps_nothing():
    seen = []

    class Peek(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            seen.append(ctx)
            ctx.save_for_backward(x)
            ctx.mark_non_differentiable(x)
            return x._data + 1

    Peek.apply(labkit.randn(2))
    ctx = seen[0]
    assert isinstance(ctx, FunctionCtx) and ctx.needs_input_grad == ()
    assert ctx._to_save == () and ctx._to_mark == ()


def test_saved_values_name_their_kinds():
    x = labkit.randn(3, requires_grad=True)
    y = labkit.randn(3, requires_grad=True)
    kinds = [k for k, _, _ in (x * y).grad_fn.saved_values()]
    assert kinds == ["input", "input"]
    node = x.tanh().grad_fn
    ((kind, value, tensor),) = node.saved_values()
    assert kind == "output" and tensor is None and value.shape == (3,)
    assert all(k == "input" and t is s for (k, _, t), s in
               zip((x * y).grad_fn.saved_values(), (y, x)))


def _two_outputs(lib):
    """A Function with two outputs, only the first used; what backward receives for the
    second, with and without set_materialize_grads(False)."""
    got = []

    class Split(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            got.append(None if g2 is None else np.asarray(g2.detach().numpy()))
            return g1 * 2 + (0 if g2 is None else g2 * 3), None

    return Split, got


@pytest.mark.parametrize("materialize", [True, False])
def test_set_materialize_grads_matches_torch(materialize):
    results = []
    for lib in (labkit, torch):
        Split, got = _two_outputs(lib)
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        a, _ = Split.apply(x, materialize)
        a.sum().backward()
        results.append((got[0], x.grad.numpy().copy()))
    (mine, mine_grad), (ref, ref_grad) = results
    np.testing.assert_allclose(mine_grad, ref_grad)
    if materialize:
        np.testing.assert_array_equal(mine, ref)           # zeros, in both
    else:
        assert mine is None and ref is None


def test_saved_tensors_hooks_pack_and_unpack_as_torch():
    calls = {}
    results = []
    for name, lib, ctxmgr in (("labkit", labkit, hooks.saved_tensors_hooks),
                              ("torch", torch, torch.autograd.graph.saved_tensors_hooks)):
        log = calls[name] = []

        def pack(t, log=log):
            log.append("pack")
            return t.detach().numpy().copy()      # stored off the graph, as a plain array

        def unpack(arr, log=log, lib=lib):
            log.append("unpack")
            return lib.from_numpy(arr)

        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(x, y)
                return x * x * x * y

            @staticmethod
            def backward(ctx, g):
                x, y = ctx.saved_tensors
                return g * 3 * x * x * y, g * x * x * x

        x = lib.tensor([0.5, -1.5, 2.0], requires_grad=True)
        y = lib.tensor([1.0, 2.0, -3.0], requires_grad=True)
        with ctxmgr(pack, unpack):
            out = Cube.apply(x, y)
        out.backward(lib.tensor([1.0, -1.0, 0.5]))
        results.append((x.grad.numpy().copy(), y.grad.numpy().copy()))
    assert calls["labkit"] == calls["torch"] == ["pack", "pack", "unpack", "unpack"]
    for mine, ref in zip(*results):
        np.testing.assert_allclose(mine, ref)


def test_saved_tensors_hooks_keep_the_version_check():
    x = labkit.randn(3, requires_grad=True)
    with hooks.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x * 1
        z = y * y
    with labkit.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_op_and_node_hooks_register_with_a_with_block():
    ops, nodes = [], []
    x = labkit.randn(3, requires_grad=True)
    with hooks.op_hook(lambda node, args, outs: ops.append(type(node).__name__)):
        with hooks.node_hook(lambda node, grads: nodes.append(type(node).__name__)):
            (x.exp() * 2).sum().backward()
    assert ops == ["ExpBackward0", "MulBackward0", "SumBackward0"]
    assert nodes == ["SumBackward0", "MulBackward0", "ExpBackward0", "AccumulateGrad"]
    x.exp()
    assert len(ops) == 3 and len(hooks.op_hooks) == 0 and len(hooks.node_hooks) == 0


def test_a_hook_is_removed_when_the_block_raises():
    with pytest.raises(ZeroDivisionError):
        with hooks.op_hook(print):
            1 / 0
    assert len(hooks.op_hooks) == 0


def test_hooks_are_per_thread():
    seen = []
    x = labkit.randn(2, requires_grad=True)
    with hooks.op_hook(lambda *a: seen.append(threading.current_thread().name)):
        t = threading.Thread(target=lambda: x * 2, name="other")
        t.start()
        t.join()
        x * 2
    assert seen == [threading.current_thread().name]


def test_tracing_installs_and_restores_the_tracer():
    class Count:
        def __init__(self):
            self.ops = []

        def record(self, cls, args, result):
            self.ops.append(cls.__name__)

    outer, inner = Count(), Count()
    x = labkit.randn(2)
    with hooks.tracing(outer):
        x.tanh()
        with hooks.tracing(inner):
            x.exp()
        x + x
    assert hooks.current_tracer() is None
    assert outer.ops == ["Tanh", "Add"] and inner.ops == ["Exp"]


def test_trace_with_grad_inside_leaves_no_hook_on_the_leaf():
    w = labkit.randn(3, requires_grad=True)

    def f(x):
        (g,) = labkit.autograd.grad((w * x).sum(), [w])
        return g

    labkit.jit.trace(f, (labkit.randn(3),))
    assert not w._accum._post_hooks


def test_in_place_update_matches_torch_across_dtypes():
    for dt_x, dt_o in (("float32", "float32"), ("float64", "float32"), ("float32", "int64")):
        res = []
        for lib in (labkit, torch):
            x = lib.tensor(np.arange(4.0).astype(dt_x))
            o = lib.tensor(np.array([1, 2, 3, 4]).astype(dt_o))
            x -= o * 2
            x /= o
            res.append((x.numpy().copy(), str(x.dtype).split(".")[-1]))
        np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-6)
        assert res[0][1] == res[1][1]


def test_fetch_args_is_a_named_tuple():
    loader = labkit.utils.data.DataLoader(list(range(6)), batch_size=4)
    args = loader._fetch_args()
    assert args.dataset is loader.dataset and args.batch_size == 4 and args.drop_last is False
