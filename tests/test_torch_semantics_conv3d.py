"""F.conv3d / torch.conv3d / nn.Conv3d (and the torch.conv2d-style function names) against
torch: values, gradients of input, weight and bias, a second derivative, geometry options
(stride, padding incl. 'same'/'valid', dilation, groups), unbatched input and errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("kw", [
    {}, {"stride": 2, "padding": 1}, {"stride": (1, 2, 1), "padding": (2, 0, 1), "dilation": (2, 1, 1)},
    {"groups": 2}, {"padding": "same"}, {"padding": "valid", "dilation": 2}, {"padding": "same", "dilation": (1, 2, 1)},
])
def test_conv3d(kw, device):
    g = kw.get("groups", 1)
    with np.errstate(all="ignore"):
        check_op(lambda x, w, b: labkit.nn.functional.conv3d(x, w, b, **kw),
                 lambda x, w, b: torch.nn.functional.conv3d(x, w, b, **kw),
                 [rand_array((2, 4, 5, 6, 5), 1), rand_array((6, 4 // g, 3, 2, 3), 2),
                  rand_array((6,), 3)], device=device, rtol=1e-10)


def test_conv3d_unbatched_no_bias_and_size_one():
    check_op(lambda x, w: labkit.conv3d(x, w), lambda x, w: torch.conv3d(x, w),
             [rand_array((2, 3, 3, 3), 1), rand_array((1, 2, 3, 3, 3), 2)], rtol=1e-10)
    check_op(lambda x, w: labkit.conv3d(x, w, stride=3), lambda x, w: torch.conv3d(x, w, stride=3),
             [rand_array((1, 1, 1, 1, 1), 1), rand_array((2, 1, 1, 1, 1), 2)])


def test_conv3d_second_derivative():
    x0, w0 = rand_array((1, 2, 3, 4, 4), 1), rand_array((2, 2, 2, 2, 2), 2)
    res = []
    for lib in (labkit, torch):
        x, w = lib.tensor(x0, requires_grad=True), lib.tensor(w0, requires_grad=True)
        y = lib.nn.functional.conv3d(x, w, padding=1)
        gx, gw = lib.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        (h,) = lib.autograd.grad((gx * gx).sum() + gw.sum(), w)
        res.append((gx.detach().numpy(), gw.detach().numpy(), h.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_conv3d_module():
    labkit.manual_seed(0)
    m = labkit.nn.Conv3d(2, 4, (1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1), bias=False)
    t = torch.nn.Conv3d(2, 4, (1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1), bias=False).double()
    assert repr(m) == repr(t)
    assert m.bias is None and tuple(m.weight.shape) == tuple(t.weight.shape)
    with torch.no_grad():
        t.weight.copy_(torch.tensor(m.weight.detach().numpy()))
    x = rand_array((2, 2, 3, 8, 8), 5)
    np.testing.assert_allclose(m.double()(labkit.tensor(x)).detach().numpy(),
                               t(torch.tensor(x)).detach().numpy(), rtol=1e-10)
    assert m.weight.std().item() < 1 / np.sqrt(18)    # kaiming_uniform(a=sqrt(5)) bound


@pytest.mark.parametrize("name, args", [
    ("conv1d", ((2, 3, 8), (4, 3, 3))), ("conv2d", ((2, 3, 5, 5), (4, 3, 3, 3))),
    ("conv_transpose2d", ((2, 3, 4, 4), (3, 2, 3, 3))),
])
def test_torch_level_conv_names(name, args):
    check_op(lambda x, w: getattr(labkit, name)(x, w, None, 1, 1),
             lambda x, w: getattr(torch, name)(x, w, None, 1, 1),
             [rand_array(args[0], 1), rand_array(args[1], 2)], rtol=1e-10)


def test_torch_level_pool_names():
    x = rand_array((2, 3, 6, 6), 1)
    for name, a in (("max_pool2d", (2,)), ("max_pool1d", (2,)), ("avg_pool1d", (3, 2)),
                    ("adaptive_avg_pool1d", (4,))):
        inp = x if name == "max_pool2d" else x[:, :, 0]
        check_op(lambda t: getattr(labkit, name)(t, *a), lambda t: getattr(torch, name)(t, *a),
                 [inp])


@pytest.mark.parametrize("call", [
    lambda lib: lib.conv3d(lib.ones(1, 2, 3, 3, 3), lib.ones(1, 3, 1, 1, 1)),
    lambda lib: lib.conv3d(lib.ones(1, 2, 3, 3, 3), lib.ones(1, 2, 1, 1)),
    lambda lib: lib.conv3d(lib.ones(1, 2, 3, 3, 3), lib.ones(1, 2, 4, 1, 1)),
    lambda lib: lib.conv3d(lib.ones(1, 2, 3, 3, 3), lib.ones(1, 2, 1, 1, 1), padding="same", stride=2),
    lambda lib: lib.conv3d(lib.ones(1, 2, 3, 3, 3), lib.ones(3, 1, 1, 1, 1), groups=2),
])
def test_conv3d_errors_like_torch(call):
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError):
        call(labkit)


def test_conv3d_module_errors():
    for lib in (torch, labkit):
        with pytest.raises(ValueError):
            lib.nn.Conv3d(3, 4, 3, groups=2)
        with pytest.raises(ValueError):
            lib.nn.Conv3d(2, 4, 3, stride=2, padding="same")
