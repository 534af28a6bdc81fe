"""F.affine_grid and F.grid_sample against torch: values, gradients for input and grid (random
upstream grad), second derivatives, every mode x padding_mode x align_corners, 3-D affine grids,
size-1 axes, out-of-range grids and torch's errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")
F, LF = torch.nn.functional, labkit.nn.functional


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 1, 3), (2, 1, 2, 3, 4)])
def test_affine_grid(size, align_corners, device):
    k = len(size) - 2
    check_op(lambda t: LF.affine_grid(t, size, align_corners=align_corners),
             lambda t: F.affine_grid(t, size, align_corners=align_corners),
             [rand_array((size[0], k, k + 1), 3)], device=device)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample(mode, padding_mode, align_corners, device):
    x = rand_array((2, 3, 4, 5), 1)
    g = rand_array((2, 3, 6, 2), 2, -1.7, 1.7)        # some points outside [-1, 1]
    lk, t = check_op(lambda a, b: LF.grid_sample(a, b, mode, padding_mode, align_corners),
                     lambda a, b: F.grid_sample(a, b, mode, padding_mode, align_corners),
                     [x, g], device=device)
    assert tuple(lk[0].shape) == (2, 3, 3, 6)


@pytest.mark.parametrize("shape", [(1, 1, 1, 1), (1, 2, 1, 4), (3, 1, 5, 1)])
def test_grid_sample_size_one_axes(shape):
    g = rand_array((shape[0], 2, 3, 2), 4, -1.2, 1.2)
    for pm in ("zeros", "border", "reflection"):
        check_op(lambda a, b: LF.grid_sample(a, b, padding_mode=pm, align_corners=True),
                 lambda a, b: F.grid_sample(a, b, padding_mode=pm, align_corners=True),
                 [rand_array(shape, 5), g])


def test_grid_sample_second_derivative():
    x = rand_array((1, 2, 3, 4), 6)
    g = rand_array((1, 2, 2, 2), 7, -0.9, 0.9)
    out = []
    for lib, f in ((labkit, LF), (torch, F)):
        a = lib.tensor(x, requires_grad=True)
        b = lib.tensor(g, requires_grad=True)
        y = f.grid_sample(a, b, align_corners=False)
        (ga, gb) = lib.autograd.grad((y ** 2).sum(), (a, b), create_graph=True)
        (h,) = lib.autograd.grad((ga.sum() + (gb ** 2).sum()), (b,))
        out.append((ga.detach().numpy(), gb.detach().numpy(), h.numpy()))
    for m, t in zip(*out):
        np.testing.assert_allclose(m, t, rtol=1e-7, atol=1e-10)


def test_spatial_transformer_round_trip():
    # the identity transform with align_corners=True reproduces the image
    img = rand_array((2, 3, 5, 7), 8)
    theta = np.tile(np.array([[1.0, 0, 0], [0, 1, 0]]), (2, 1, 1))
    for lib, f in ((labkit, LF), (torch, F)):
        grid = f.affine_grid(lib.tensor(theta), (2, 3, 5, 7), align_corners=True)
        back = f.grid_sample(lib.tensor(img), grid, align_corners=True)
        np.testing.assert_allclose(back.numpy(), img, atol=1e-12)
        assert back.dtype == lib.float64


def test_float32_dtype():
    x = np.ones((1, 1, 2, 2), np.float32)
    g = np.zeros((1, 1, 1, 2), np.float32)
    out = LF.grid_sample(labkit.tensor(x), labkit.tensor(g), align_corners=False)
    ref = F.grid_sample(torch.tensor(x), torch.tensor(g), align_corners=False)
    assert out.dtype == labkit.float32 and ref.dtype == torch.float32
    np.testing.assert_allclose(out.numpy(), ref.numpy())


@pytest.mark.parametrize("call, exc", [
    (lambda lib, f: f.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 2, 2, 2), mode="area"),
     ValueError),
    (lambda lib, f: f.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 2, 2, 2),
                                  padding_mode="wrap"), ValueError),
    (lambda lib, f: f.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 2, 2)), RuntimeError),
    (lambda lib, f: f.grid_sample(lib.zeros(2, 1, 2, 2), lib.zeros(1, 2, 2, 2)), RuntimeError),
    (lambda lib, f: f.affine_grid(lib.zeros(1, 2, 2), (1, 1, 2, 2)), ValueError),
    (lambda lib, f: f.affine_grid(lib.zeros(1, 2, 3), (1, 1, 2)), NotImplementedError),
    (lambda lib, f: f.affine_grid(lib.zeros(1, 2, 3, dtype=lib.int64), (1, 1, 2, 2)), ValueError),
])
def test_errors_like_torch(call, exc):
    with pytest.raises(exc):
        call(torch, F)
    with pytest.raises(exc):
        call(labkit, LF)


def test_default_align_corners_warns_like_torch():
    for lib, f in ((torch, F), (labkit, LF)):
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            f.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 2))
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            f.affine_grid(lib.zeros(1, 2, 3), (1, 1, 2, 2))
