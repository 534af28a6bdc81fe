"""The boundaries of the engine's fast paths (function._call, autograd.run_backward's inline
hand-over, _pack_saved, saved_tensors), each against torch: the fast path takes the common
case (one array out, same shape and dtype, a node's first gradient, one output gradient), and
everything else must still reach the general code and give torch's answer."""
import numpy as np
import pytest

import labkit
import labkit.autograd.graph
from labkit.utils.benchmark.op_cost import PARTS, op_cost

torch = pytest.importorskip("torch")


def _pair(shape, dtype="float32", seed=0, rg=True):
    arr = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return (labkit.tensor(arr.copy(), requires_grad=rg),
            torch.tensor(arr.copy(), requires_grad=rg))


def _same(mine, ref, rtol=1e-5):
    assert mine.dtype == getattr(labkit, str(ref.dtype).split(".")[1])
    assert tuple(mine.shape) == tuple(ref.shape)
    np.testing.assert_allclose(mine.detach().numpy(), ref.detach().numpy(), rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("sa,sb", [((4,), (4,)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (3,)),
                                   ((2, 3), ()), ((0, 3), (3,)), ((1,), (5,))])
@pytest.mark.parametrize("op", ["add", "mul", "tanh_mix"])
def test_chain_grads_broadcast_and_0d(op, sa, sb):
    """Broadcast gradients leave the inline hand-over for _fit's sum_to, 0-d included."""
    (a, ta), (b, tb) = _pair(sa, seed=1), _pair(sb, seed=2)

    def f(x, y):
        z = x + y if op == "add" else x * y
        return (z.tanh() * y + x).sum() if op == "tanh_mix" else (z * z).sum()
    f(a, b).backward()
    f(ta, tb).backward()
    _same(a.grad, ta.grad)
    _same(b.grad, tb.grad)


@pytest.mark.parametrize("da,db", [("float32", "float64"), ("float64", "float32"),
                                   ("float32", "int64"), ("float16", "float32")])
def test_mixed_dtypes_each_input_gets_its_own_dtype(da, db):
    """A gradient in the promoted dtype is cast back per input (the hand-over's dtype check)."""
    (a, ta) = _pair((3,), da, seed=3)
    rg = db.startswith("float")
    (b, tb) = _pair((3,), db, seed=4, rg=rg)
    out, tout = (a * b + a).tanh(), (ta * tb + ta).tanh()
    _same(out, tout, rtol=2e-3)
    out.sum().backward()
    tout.sum().backward()
    _same(a.grad, ta.grad, rtol=2e-3)
    if rg:
        _same(b.grad, tb.grad, rtol=2e-3)


def test_requires_grad_mixes_and_no_grad():
    """needs_input_grad follows which inputs require grad; no_grad records nothing."""
    (a, ta), (b, tb) = _pair((4,), seed=5), _pair((4,), seed=6, rg=False)
    out, tout = a * b, ta * tb
    assert out.grad_fn.needs_input_grad == (True, False)
    assert [e is None for e, _ in out.grad_fn.next_functions] == \
        [e is None for e, _ in tout.grad_fn.next_functions]
    out.sum().backward()
    tout.sum().backward()
    _same(a.grad, ta.grad)
    assert b.grad is None and tb.grad is None
    with labkit.no_grad():
        z = a * b
    with torch.no_grad():
        tz = ta * tb
    assert z.grad_fn is None and not z.requires_grad
    assert tz.grad_fn is None and not tz.requires_grad
    with labkit.inference_mode():
        assert (a.tanh() + 1).grad_fn is None


def test_shared_input_sums_gradients():
    """A node reached twice takes the general _add path (its second gradient is summed)."""
    (a, ta) = _pair((5,), seed=7)
    y, ty = a.tanh(), ta.tanh()
    (y * y + y).sum().backward()
    (ty * ty + ty).sum().backward()
    _same(a.grad, ta.grad)


def test_saved_output_of_a_multi_output_op_reattaches_with_its_index():
    """saved_tensors re-attaches an output saved at index 1 with _out_idx 1 (double backward)."""
    class Two(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            a, b = x * 2, x.exp()
            ctx.save_for_backward(b)
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            (b,) = ctx.saved_tensors
            assert b.grad_fn is ctx and b._out_idx == 1
            return ga * 2 + gb * b

    x = labkit.tensor([0.5, -1.0], requires_grad=True)
    _, b = Two.apply(x)
    (g,) = labkit.autograd.grad(b.sum(), x, create_graph=True)
    tx = torch.tensor([0.5, -1.0], requires_grad=True)
    (tg,) = torch.autograd.grad(tx.exp().sum(), tx, create_graph=True)
    _same(g, tg)
    (gg,) = labkit.autograd.grad(g.sum(), x)
    (tgg,) = torch.autograd.grad(tg.sum(), tx)
    _same(gg, tgg)


def test_backward_returning_an_array_or_wrong_arity():
    """An array from backward is wrapped (_fit); a wrong number of gradients is named."""
    class Arr(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x._data * 3

        @staticmethod
        def backward(ctx, g):
            return g._data * 3

    class Bad(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x._data * 1

        @staticmethod
        def backward(ctx, g):
            return g, g

    x = labkit.tensor([1.0, 2.0], requires_grad=True)
    Arr.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    with pytest.raises(RuntimeError, match="returned 2 gradient"):
        Bad.apply(x).sum().backward()


def test_second_backward_and_in_place_change_still_raise():
    """The inline call keeps both checks: freed saved tensors, and the version counter."""
    (a, ta), (b, tb) = _pair((3,), seed=8), _pair((3,), seed=9, rg=False)
    y = (a * b).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()
    ty = (ta * tb).sum()
    ty.backward()
    with pytest.raises(RuntimeError):
        ty.backward()
    z, tz = a.tanh(), ta.tanh()
    out, tout = z * 2, tz * 2
    with labkit.no_grad():
        z.add_(1)
    with torch.no_grad():
        tz.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        tout.sum().backward()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_anomaly_mode_still_checks_every_node():
    x = labkit.tensor([0.0, 1.0], requires_grad=True)
    with labkit.autograd.detect_anomaly():
        y = x.sqrt() * 0
        with pytest.raises(RuntimeError, match="nan"):
            (y / y).sum().backward()


def test_hooks_and_retain_grad_on_the_fast_path():
    (a, ta) = _pair((4,), seed=10)
    seen, tseen = [], []
    y, ty = a * 3, ta * 3
    y.retain_grad(), ty.retain_grad()
    y.register_hook(lambda g: seen.append(g) or g * 2)
    ty.register_hook(lambda g: tseen.append(g) or g * 2)
    y.tanh().sum().backward()
    ty.tanh().sum().backward()
    _same(seen[0], tseen[0])
    _same(y.grad, ty.grad)
    _same(a.grad, ta.grad)


def test_saved_tensors_hooks_see_every_saved_tensor():
    packed = []
    (a, _), (b, _) = _pair((3,), seed=11), _pair((3,), seed=12, rg=False)
    with labkit.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        y = (a * b).tanh()
    y.sum().backward()
    assert len(packed) == 2      # mul saved b (a's gradient needs it), tanh saved its output
    tb = torch.tensor(b.numpy())
    ta = torch.tensor(a.detach().numpy(), requires_grad=True)
    (ta * tb).tanh().sum().backward()
    _same(a.grad, ta.grad)


def test_op_cost_parts_add_up():
    """The breakdown is measured, positive where it must be, and sums to the total."""
    r = op_cost(n_ops=9, rounds=3, number=1, torch=False)
    assert list(r.parts) == list(PARTS)
    assert r.parts["numpy"] > 0 and r.parts["backward formulas"] > 0
    assert r.total == pytest.approx(sum(r.parts.values()))
    assert r.ratio == pytest.approx(r.total / r.parts["numpy"])
    assert "labkit fwd+bwd" in r.table() and r.torch_total is None
