"""Custom autograd Functions (lecture 3): the same class body, subclassing labkit's Function or
torch's, gives the same values and gradients; the ctx API behaves like torch's."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

BASES = {labkit: labkit.autograd.Function, torch: torch.autograd.Function}


def make_functions(M):
    """Functions written once against the shared API, built on labkit's or torch's base."""
    Base = BASES[M]

    class MyExp(Base):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)          # saves an output
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    class MulAdd(Base):
        """x * y + z * k: three tensors and a non-tensor argument."""
        @staticmethod
        def forward(ctx, x, y, z, k):
            ctx.save_for_backward(x, y)
            ctx.k = k
            ctx.seen_needs = tuple(ctx.needs_input_grad)
            return x * y + z * k

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            nx, ny, nz, nk = ctx.needs_input_grad
            assert nk is False
            return (grad * y if nx else None, grad * x if ny else None,
                    grad * ctx.k if nz else None, None)

    class SplitSigns(Base):
        """Two differentiable outputs and one integer output marked non-differentiable."""
        @staticmethod
        def forward(ctx, x):
            pos, neg = x.clamp(min=0), x.clamp(max=0)
            signs = (x > 0).long()
            ctx.mark_non_differentiable(signs)
            ctx.save_for_backward(x)
            return pos, neg, signs

        @staticmethod
        def backward(ctx, gpos, gneg, gsigns):
            (x,) = ctx.saved_tensors
            return gpos * (x > 0) + gneg * (x <= 0)

    class Cube(Base):
        """x**3 with a backward made of differentiable ops: double backward works."""
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

    class StableSigmoid(Base):
        @staticmethod
        def forward(ctx, x):
            e = (-x.abs()).exp()                  # never overflows
            y = M.where(x >= 0, 1 / (1 + e), e / (1 + e))
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y * (1 - y)

    class IgnoreSecond(Base):
        """Returns None as the gradient of a tensor input: it gets no gradient."""
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, grad):
            return grad, None

    return {f.__name__: f for f in (MyExp, MulAdd, SplitSigns, Cube, StableSigmoid, IgnoreSecond)}


LK, TH = make_functions(labkit), make_functions(torch)


def twin(values, requires_grad=True):
    arr = np.asarray(values, dtype=np.float64)
    return (labkit.tensor(arr, requires_grad=requires_grad),
            torch.tensor(arr, requires_grad=requires_grad))


def close(a, b, **kw):
    a = a.detach().numpy() if a is not None else None
    b = b.detach().numpy() if b is not None else None
    if a is None or b is None:
        assert a is None and b is None, (a, b)
        return
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, **kw)


def test_saving_an_output():
    x, xt = twin([0.5, -1.0, 2.0])
    y, yt = LK["MyExp"].apply(x), TH["MyExp"].apply(xt)
    close(y, yt)
    g = np.array([1.0, -2.0, 0.5])
    y.backward(labkit.tensor(g))
    yt.backward(torch.tensor(g))
    close(x.grad, xt.grad)
    assert type(y.grad_fn).__name__ == type(yt.grad_fn).__name__ == "MyExpBackward"


@pytest.mark.parametrize("needs", [(True, True, True), (True, False, True), (False, True, False),
                                   (False, False, True)])
def test_several_inputs_needs_input_grad_and_non_tensor_args(needs):
    rng = np.random.default_rng(0)
    vals = [rng.standard_normal((2, 3)) for _ in range(3)]
    lk = [labkit.tensor(v, requires_grad=n) for v, n in zip(vals, needs)]
    th = [torch.tensor(v, requires_grad=n) for v, n in zip(vals, needs)]
    out, out_t = LK["MulAdd"].apply(*lk, 2.5), TH["MulAdd"].apply(*th, 2.5)
    close(out, out_t)
    assert out.grad_fn.seen_needs == out_t.grad_fn.seen_needs == needs + (False,)
    g = rng.standard_normal((2, 3))
    out.backward(labkit.tensor(g))
    out_t.backward(torch.tensor(g))
    for a, b in zip(lk, th):
        close(a.grad, b.grad)


def test_multiple_outputs_and_mark_non_differentiable():
    x, xt = twin([1.5, -0.5, 2.0, -3.0])
    pos, neg, signs = LK["SplitSigns"].apply(x)
    pos_t, neg_t, signs_t = TH["SplitSigns"].apply(xt)
    for a, b in ((pos, pos_t), (neg, neg_t)):
        close(a, b)
        assert a.requires_grad and b.requires_grad
    assert signs.tolist() == signs_t.tolist()
    assert not signs.requires_grad and not signs_t.requires_grad and signs.dtype == labkit.int64
    (pos * 2 + neg * 3).sum().backward()
    (pos_t * 2 + neg_t * 3).sum().backward()
    close(x.grad, xt.grad)


def test_using_only_one_of_several_outputs():
    # the unused output's gradient arrives as zeros (torch materializes it too)
    x, xt = twin([1.5, -0.5])
    LK["SplitSigns"].apply(x)[1].sum().backward()
    TH["SplitSigns"].apply(xt)[1].sum().backward()
    close(x.grad, xt.grad)


def test_returning_none_for_a_tensor_input():
    (x, xt), (y, yt) = twin([1.0, 2.0]), twin([3.0, 4.0])
    LK["IgnoreSecond"].apply(x, y).sum().backward()
    TH["IgnoreSecond"].apply(xt, yt).sum().backward()
    close(x.grad, xt.grad)
    assert y.grad is None and yt.grad is None


def test_double_backward_through_a_custom_function():
    x, xt = twin(2.0)
    grads = []
    for f, v in ((LK["Cube"], x), (TH["Cube"], xt)):
        y = f.apply(v)
        (g,) = (labkit if f is LK["Cube"] else torch).autograd.grad(y, v, create_graph=True)
        (h,) = (labkit if f is LK["Cube"] else torch).autograd.grad(g, v)
        grads.append((g.item(), h.item()))
    assert grads[0] == grads[1] == (12.0, 12.0)


def test_custom_function_composes_with_builtin_ops():
    x, xt = twin([[0.3, -0.7], [1.1, 0.2]])
    out = (LK["MyExp"].apply(x * 2).sum(0) * LK["Cube"].apply(x).mean()).sum()
    out_t = (TH["MyExp"].apply(xt * 2).sum(0) * TH["Cube"].apply(xt).mean()).sum()
    close(out, out_t)
    out.backward()
    out_t.backward()
    close(x.grad, xt.grad)


def test_no_graph_when_no_input_requires_grad_or_under_no_grad():
    x = labkit.tensor([1.0, 2.0])
    assert LK["MyExp"].apply(x).grad_fn is None
    xg = labkit.tensor([1.0, 2.0], requires_grad=True)
    with labkit.no_grad():
        y = LK["MyExp"].apply(xg)
    assert y.grad_fn is None and not y.requires_grad


def test_forward_runs_without_recording():
    seen = []

    class Probe(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            seen.append((labkit.is_grad_enabled(), y.requires_grad))
            return y

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    out = Probe.apply(labkit.ones(2, requires_grad=True))
    assert seen == [(False, False)] and out.requires_grad


def test_forward_returning_arrays_lecture_style():
    """A forward may compute on raw arrays (x._data) with the device's array module."""
    class Square(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.device.xp.square(x._data)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = labkit.tensor([1.0, -3.0], requires_grad=True)
    y = Square.apply(x)
    assert isinstance(y, labkit.Tensor) and y.tolist() == [1.0, 9.0]
    y.sum().backward()
    assert x.grad.tolist() == [2.0, -6.0]
    assert labkit.autograd.gradcheck(Square.apply, (labkit.tensor([0.3, -1.2], dtype=labkit.float64,
                                                                   requires_grad=True),))


def test_saving_a_0d_output_array_keeps_it_linked():
    """A 0-d forward result saved with save_for_backward must come back as the output tensor,
    so that a second derivative through it is right (numpy turns 0-d results into scalars)."""
    class Exp(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.device.xp.exp(x._data)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    x = labkit.tensor(1.0, dtype=labkit.float64, requires_grad=True)
    (g,) = labkit.autograd.grad(Exp.apply(x), x, create_graph=True)
    assert g.requires_grad, "the saved output came back as a constant"
    (h,) = labkit.autograd.grad(g, x)
    assert h.item() == pytest.approx(np.e)


def test_backward_returning_the_wrong_number_of_gradients_raises():
    class Bad(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, grad):
            return grad

    x, y = labkit.ones(2, requires_grad=True), labkit.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"BadBackward.*1 gradient.*2") as e:
        Bad.apply(x, y).sum().backward()
    assert "one per forward argument" in str(e.value)


def test_backward_returning_a_wrongly_shaped_gradient_raises():
    class BadShape(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return labkit.ones(5)

    x = labkit.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"BadShape.*\(5,\).*\(3,\)"):
        BadShape.apply(x).sum().backward()


def test_a_backward_broadcast_gradient_is_summed_to_the_input_shape():
    class AddBias(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, x, b):
            return x + b

        @staticmethod
        def backward(ctx, grad):
            return grad, grad        # grad has x's shape; the engine sums it down for b

    x, b = labkit.ones(4, 3, requires_grad=True), labkit.zeros(3, requires_grad=True)
    AddBias.apply(x, b).sum().backward()
    assert b.grad.tolist() == [4.0, 4.0, 4.0]


def test_node_name_override():
    class Thing(labkit.autograd.Function):
        node_name = "ThingBackward0"

        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            return grad

    y = Thing.apply(labkit.ones(1, requires_grad=True))
    assert type(y.grad_fn).__name__ == "ThingBackward0" and y.grad_fn.name() == "ThingBackward0"


# --- the stable sigmoid of lecture 3 ----------------------------------------------------------

def naive_sigmoid(x):
    return 1 / (1 + (-x).exp())


def test_naive_sigmoid_gradient_is_nan_at_minus_1000_like_torch():
    """exp(1000) overflows to inf; backward then meets 0 * inf: nan, in labkit as in torch."""
    grads = []
    for M, x in zip((labkit, torch), twin([-1000.0, 0.0, 3.0])):
        with np.errstate(all="ignore"):
            naive_sigmoid(x).sum().backward()
        grads.append(x.grad.detach().numpy())
    np.testing.assert_array_equal(np.isnan(grads[0]), np.isnan(grads[1]))
    assert np.isnan(grads[0][0])
    np.testing.assert_allclose(grads[0][1:], grads[1][1:], rtol=1e-12)


def test_stable_sigmoid_function_gives_zero_gradient_at_minus_1000():
    for fns, x in zip((LK, TH), twin([-1000.0, -20.0, 0.0, 3.0, 1000.0])):
        y = fns["StableSigmoid"].apply(x)
        y.sum().backward()
        g = x.grad.detach().numpy()
        assert g[0] == 0.0 and g[-1] == 0.0 and not np.isnan(g).any()
        np.testing.assert_allclose(g[1:4], torch.sigmoid(torch.tensor([-20.0, 0.0, 3.0],
                                                                       dtype=torch.float64)).numpy()
                                   * (1 - torch.sigmoid(torch.tensor([-20.0, 0.0, 3.0],
                                                                     dtype=torch.float64)).numpy()),
                                   rtol=1e-12)


def test_builtin_sigmoid_gradient_is_finite_at_extremes():
    x = labkit.tensor([-1000.0, 1000.0], requires_grad=True)
    x.sigmoid().sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("extra", ["None", "None, None", "g"])
def test_backward_may_return_extra_trailing_nones(extra):
    """torch drops extra gradients that are all None (the fused conv-bn tutorial returns
    one per ctx field); a non-None extra, or too few, is an error in both."""
    from snippets import check
    check("class F(L.autograd.Function):\n"
          "    @staticmethod\n"
          "    def forward(ctx, x, k):\n"
          "        return x * k\n"
          "    @staticmethod\n"
          "    def backward(ctx, g):\n"
          f"        return g * 2, None, {extra}\n"
          "x = L.ones(3, requires_grad=True); leaves = [x]\n"
          "out = F.apply(x, 3.) * F.apply(x, 2.)")


@pytest.mark.parametrize("call", ["pow(1.5, 2.5)", "maximum(1., 2.)", "fmod(1., 2.)",
                                  "eq(1., 2.)", "lt(1, 2)", "hypot(1., 2.)", "atan2(1., 2.)",
                                  "add(1.5, 2.5)", "mul(2, 3)", "sub(2, 0.5)"])
def test_an_op_on_numbers_alone(call):
    """torch refuses most ops on two numbers (TypeError), and makes a 0-d tensor for
    add/sub/mul/div; labkit raised AttributeError from inside the op."""
    from snippets import check
    check(f"out = L.{call}")
