"""labkit.autograd.functional (jacobian, hessian, vjp, jvp, hvp, vhp), gradgradcheck, and the
Function API's 2.x style (setup_context), once_differentiable and mark_dirty, against torch."""
import numpy as np
import pytest

import labkit
from labkit.autograd import functional as AF
from conftest import assert_close

torch = pytest.importorskip("torch")


def _args(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal(s) for s in shapes]
    return tuple(labkit.tensor(a) for a in arrs), tuple(torch.tensor(a) for a in arrs)


def _same(mine, ref):
    if isinstance(ref, tuple):
        assert isinstance(mine, tuple) and len(mine) == len(ref)
        for a, b in zip(mine, ref):
            _same(a, b)
    else:
        assert_close(mine, ref.detach())


def f_one(a):
    return (a.sin() * a).sum(-1)


def f_two(a, b):
    return (a.tanh() * b.sum(), (a * a).sum() * b.exp())


def f_scalar(a, b):
    return (a.sin() * (b * b).sum() + a.exp()).sum()


@pytest.mark.parametrize("fn,shapes,single", [
    (f_one, [(2, 3)], True), (f_one, [()], True), (f_two, [(3,), (2,)], False),
    (lambda a: (a * 2, a.sum()), [(2, 2)], True), (lambda a, b: a * 3, [(2,), (4,)], False),
])
def test_jacobian(fn, shapes, single):
    (l_in, t_in) = _args(*shapes)
    if single:
        l_in, t_in = l_in[0], t_in[0]
    _same(AF.jacobian(fn, l_in), torch.autograd.functional.jacobian(fn, t_in))


def test_jacobian_strict_and_create_graph():
    l_in, t_in = _args((2,), (4,))
    with pytest.raises(RuntimeError, match="independent of input 1"):
        AF.jacobian(lambda a, b: a * 3, l_in, strict=True)
    with pytest.raises(RuntimeError, match="independent of input 1"):
        torch.autograd.functional.jacobian(lambda a, b: a * 3, t_in, strict=True)
    lx = labkit.tensor(np.array([0.5, -1.0]), requires_grad=True)
    tx = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
    lj = AF.jacobian(lambda a: a.sin() * a, lx, create_graph=True)
    tj = torch.autograd.functional.jacobian(lambda a: a.sin() * a, tx, create_graph=True)
    assert lj.requires_grad and tj.requires_grad
    lj.sum().backward()
    tj.sum().backward()
    assert_close(lx.grad, tx.grad)
    assert not AF.jacobian(lambda a: a.sin(), lx).requires_grad


@pytest.mark.parametrize("shapes,single", [([(3,)], True), ([(2, 2)], True),
                                           ([(3,), (2,)], False)])
def test_hessian(shapes, single):
    l_in, t_in = _args(*shapes)
    fn = f_scalar if not single else (lambda a: (a.sin() * a.exp()).sum() * a.sum())
    if single:
        l_in, t_in = l_in[0], t_in[0]
    _same(AF.hessian(fn, l_in), torch.autograd.functional.hessian(fn, t_in))
    with pytest.raises(RuntimeError, match="single element"):
        AF.hessian(lambda a: a * 2, labkit.ones(2, dtype=labkit.float64))


def test_vjp_jvp_hvp_vhp():
    (la, lb), (ta, tb) = _args((3,), (2,))
    (lu, lw), (tu, tw) = _args((3,), (2,), seed=1)
    TF = torch.autograd.functional
    _same(AF.vjp(f_two, (la, lb), (lu, lw)), TF.vjp(f_two, (ta, tb), (tu, tw)))
    _same(AF.jvp(f_two, (la, lb), (lu, lw)), TF.jvp(f_two, (ta, tb), (tu, tw)))
    _same(AF.hvp(f_scalar, (la, lb), (lu, lw)), TF.hvp(f_scalar, (ta, tb), (tu, tw)))
    _same(AF.vhp(f_scalar, (la, lb), (lu, lw)), TF.vhp(f_scalar, (ta, tb), (tu, tw)))
    _same(AF.vjp(lambda a: (a * a).sum(), la), TF.vjp(lambda a: (a * a).sum(), ta))
    with pytest.raises(RuntimeError, match="Mismatch in size"):
        AF.vjp(f_one, la, labkit.ones(3, dtype=labkit.float64))


def test_gradgradcheck():
    x = labkit.tensor(np.array([0.3, -0.7, 1.1]), requires_grad=True)
    y = labkit.tensor(np.array([0.5, 2.0, -1.0]), requires_grad=True)
    assert labkit.autograd.gradgradcheck(lambda a, b: (a.sin() * b.exp(), a * a * b), (x, y))

    class FirstOrderOnly(labkit.autograd.Function):
        """Its backward uses a constant (detached) derivative: first order right, second
        order wrong. gradcheck passes; gradgradcheck must catch it."""
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a._data ** 3

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 3 * (a * a).detach()
    assert labkit.autograd.gradcheck(FirstOrderOnly.apply, (x,))
    assert not labkit.autograd.gradgradcheck(FirstOrderOnly.apply, (x,), raise_exception=False)
    with pytest.raises(labkit.autograd.GradcheckError):
        labkit.autograd.gradgradcheck(FirstOrderOnly.apply, (x,))


def _mul_functions(lib):
    class Mul(lib.autograd.Function):
        """2.x style: forward without ctx, setup_context saves what backward needs."""
        @staticmethod
        def forward(a, b):
            return a * b

        @staticmethod
        def setup_context(ctx, inputs, output):
            a, b = inputs
            ctx.save_for_backward(a, b)
            ctx.extra = output.shape

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            assert tuple(ctx.extra) == tuple(g.shape)
            return g * b, g * a
    return Mul


def test_setup_context_style_matches_torch():
    (la, lb), (ta, tb) = _args((2, 3), (2, 3))
    outs = []
    for lib, a, b in ((labkit, la, lb), (torch, ta, tb)):
        a.requires_grad_(), b.requires_grad_()
        Mul = _mul_functions(lib)
        out = Mul.apply(a, b)
        g, = (lib.autograd.grad(out.sum() * 1.0, a, create_graph=True))
        (g * a * b).sum().backward()     # second order flows through the Tensor-op backward
        outs.append((out, a.grad, b.grad))
        assert Mul.apply(a.detach(), b.detach()).grad_fn is None
    for m, r in zip(*outs):
        assert_close(m.detach(), r.detach())


def test_once_differentiable():
    for lib in (labkit, torch):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a ** 3 if lib is torch else a._data ** 3

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return g * 3 * a * a
        x = lib.tensor([0.5, -2.0], dtype=lib.float64, requires_grad=True)
        y = Cube.apply(x)
        (g,) = lib.autograd.grad(y.sum(), x)
        assert_close(g, np.array([0.75, 12.0]))
        (g,) = lib.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
        assert not g.requires_grad        # the seed needs no grad: nothing to guard (as torch)
        (g,) = lib.autograd.grad((Cube.apply(x) * x).sum(), x, create_graph=True)
        assert g.requires_grad
        with pytest.raises(RuntimeError, match="once_differentiable"):
            g.sum().backward()


def test_mark_dirty():
    results = []
    for lib in (labkit, torch):
        class AddOneInPlace(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.mark_dirty(a)
                if lib is torch:
                    return a.add_(1)
                a._data += 1
                return a

            @staticmethod
            def backward(ctx, g):
                return g * 1.0
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        h = x * 2
        v = h._version
        out = AddOneInPlace.apply(h)
        assert out is h and h._version > v
        assert type(h.grad_fn).__name__.startswith("AddOneInPlace")
        (h * h).sum().backward()
        results.append((h.detach().numpy().copy(), x.grad.numpy().copy()))
        leaf = lib.tensor([1.0], dtype=lib.float64, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            AddOneInPlace.apply(leaf)
    assert_close(results[0][0], results[1][0])
    assert_close(results[0][1], results[1][1])
