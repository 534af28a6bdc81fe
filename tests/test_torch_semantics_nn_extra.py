"""hardshrink/softshrink/threshold, bilinear, local_response_norm, adaptive_max_pool1d/2d and
the modules Unfold, Fold, Hardshrink, Softshrink, Threshold, Softmax2d, Bilinear,
LocalResponseNorm, AdaptiveMaxPool1d/2d against torch: values, indices, gradients, a second
derivative, reprs, unbatched and size-1 inputs, errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")
F, LF = torch.nn.functional, labkit.nn.functional


@pytest.mark.parametrize("name, args", [("hardshrink", ()), ("hardshrink", (1.0,)),
                                        ("softshrink", ()), ("softshrink", (0.2,)),
                                        ("threshold", (0.3, -2.0))])
@pytest.mark.parametrize("shape", [(3, 4), (), (0, 2)])
def test_shrink_threshold(name, args, shape, device):
    x = rand_array(shape, 1, away_from=[-1.0, -0.5, -0.2, 0.2, 0.3, 0.5, 1.0])
    check_op(lambda a: getattr(LF, name)(a, *args), lambda a: getattr(F, name)(a, *args), [x],
             device=device)


def test_threshold_inplace_and_errors():
    for lib, f in ((labkit, LF), (torch, F)):
        x = lib.tensor([-1.0, 0.5, 2.0])
        assert f.threshold(x, 0.6, 9.0, inplace=True) is x and x.tolist() == [9.0, 9.0, 2.0]
        with pytest.raises(RuntimeError):
            f.softshrink(lib.ones(2), -1.0)


@pytest.mark.parametrize("lead", [(4,), (2, 3), ()])
def test_bilinear(lead, device):
    check_op(lambda a, b, w, c: LF.bilinear(a, b, w, c), lambda a, b, w, c: F.bilinear(a, b, w, c),
             [rand_array(lead + (3,), 1), rand_array(lead + (2,), 2), rand_array((5, 3, 2), 3),
              rand_array((5,), 4)], device=device)
    check_op(lambda a, b, w: LF.bilinear(a, b, w), lambda a, b, w: F.bilinear(a, b, w),
             [rand_array((4, 3), 1), rand_array((4, 2), 2), rand_array((1, 3, 2), 3)], device=device)


@pytest.mark.parametrize("shape", [(2, 5, 7), (2, 6, 3, 4), (1, 3, 2, 2, 2)])
@pytest.mark.parametrize("size", [1, 2, 3])
def test_local_response_norm(shape, size, device):
    check_op(lambda a: LF.local_response_norm(a, size, 0.1, 0.75, 1.5),
             lambda a: F.local_response_norm(a, size, 0.1, 0.75, 1.5), [rand_array(shape, 1)],
             device=device)


@pytest.mark.parametrize("out", [1, 2, 3, (2, 5), (None, 2)])
@pytest.mark.parametrize("shape", [(2, 3, 7, 5), (3, 6, 6)])
def test_adaptive_max_pool2d(out, shape, device):
    check_op(lambda a: tuple(LF.adaptive_max_pool2d(a, out, return_indices=True)),
             lambda a: tuple(F.adaptive_max_pool2d(a, out, return_indices=True)),
             [rand_array(shape, 1)], device=device)


@pytest.mark.parametrize("out", [1, 3, 4])
def test_adaptive_max_pool1d(out, device):
    check_op(lambda a: tuple(LF.adaptive_max_pool1d(a, out, return_indices=True)),
             lambda a: tuple(F.adaptive_max_pool1d(a, out, return_indices=True)),
             [rand_array((2, 3, 7), 1)], device=device)
    check_op(lambda a: LF.adaptive_max_pool1d(a, out), lambda a: F.adaptive_max_pool1d(a, out),
             [rand_array((3, 7), 1)], device=device)


def test_second_derivative():
    x0, y0, w0 = rand_array((2, 3), 1), rand_array((2, 4), 2), rand_array((5, 3, 4), 3)
    res = []
    for lib, f in ((labkit, LF), (torch, F)):
        x, y, w = (lib.tensor(v, requires_grad=True) for v in (x0, y0, w0))
        out = (f.bilinear(x, y, w) ** 2).sum() + f.local_response_norm(w, 2).pow(2).sum()
        (gx, gw) = lib.autograd.grad(out, (x, w), create_graph=True)
        (h,) = lib.autograd.grad((gx * gx).sum() + gw.sum(), w)
        res.append((gx.detach().numpy(), h.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("make, shape", [
    (lambda nn: nn.Unfold(2, padding=1, stride=2), (2, 3, 5, 4)),
    (lambda nn: nn.Fold((4, 5), 2), (2, 12, 12)),
    (lambda nn: nn.Hardshrink(0.3), (3, 4)), (lambda nn: nn.Softshrink(0.3), (3, 4)),
    (lambda nn: nn.Threshold(0.1, 20.0), (3, 4)), (lambda nn: nn.Softmax2d(), (2, 3, 4, 5)),
    (lambda nn: nn.Softmax2d(), (3, 4, 5)), (lambda nn: nn.LocalResponseNorm(3), (2, 4, 5)),
    (lambda nn: nn.AdaptiveMaxPool2d((2, 3)), (2, 3, 6, 7)), (lambda nn: nn.AdaptiveMaxPool1d(3), (2, 6, 7)),
])
def test_modules(make, shape, device):
    m, t = make(labkit.nn), make(torch.nn)
    assert repr(m) == repr(t)
    check_op(lambda a: m(a), lambda a: t(a), [rand_array(shape, 1, away_from=[-0.3, 0.1, 0.3])],
             device=device)


def test_bilinear_module():
    labkit.manual_seed(0)
    m, t = labkit.nn.Bilinear(3, 2, 4), torch.nn.Bilinear(3, 2, 4)
    assert repr(m) == repr(t)
    assert tuple(m.weight.shape) == (4, 3, 2) and tuple(m.bias.shape) == (4,)
    assert float(m.weight.abs().max()) <= 1 / np.sqrt(3)
    assert labkit.nn.Bilinear(3, 2, 4, bias=False).bias is None
    m = m.double()
    with torch.no_grad():
        t = t.double()
        t.weight.copy_(torch.tensor(m.weight.detach().numpy()))
        t.bias.copy_(torch.tensor(m.bias.detach().numpy()))
    check_op(lambda a, b: m(a, b), lambda a, b: t(a, b), [rand_array((5, 3), 1), rand_array((5, 2), 2)])


@pytest.mark.parametrize("call, exc", [
    (lambda lib, f: f.local_response_norm(lib.ones(2, 3), 2), ValueError),
    (lambda lib, f: f.adaptive_max_pool2d(lib.ones(3), 2), RuntimeError),
    (lambda lib, f: f.adaptive_max_pool2d(lib.ones(1, 2, 0, 3), 2), RuntimeError),
    (lambda lib, f: f.bilinear(lib.ones(2, 3), lib.ones(2, 2), lib.ones(4, 2, 2)), RuntimeError),
    (lambda lib, f: lib.nn.Softmax2d()(lib.ones(2, 3)), ValueError),
])
def test_errors_like_torch(call, exc):
    with pytest.raises(exc):
        call(torch, F)
    with pytest.raises(exc):
        call(labkit, LF)
