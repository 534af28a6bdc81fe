"""F.grid_sample on 5-D volumes against torch: trilinear and nearest, every padding mode, both
align_corners, gradients for input and grid, second derivatives, the affine_grid (N, 3, 4) ->
grid_sample pipeline of 3-D augmentation (DLwPT part 2), size-1 depth, and torch's errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array, twins

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_values_and_gradients(device, mode, padding_mode, align_corners):
    x = rand_array((2, 3, 4, 5, 3), 1)
    grid = rand_array((2, 3, 2, 4, 3), 2, low=-1.2, high=1.2)
    kw = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    check_op(lambda a, g: labkit.nn.functional.grid_sample(a, g, **kw),
             lambda a, g: torch.nn.functional.grid_sample(a, g, **kw), [x, grid], device=device,
             atol=1e-9)


def test_size_one_depth():
    check_op(lambda a, g: labkit.nn.functional.grid_sample(a, g, align_corners=False),
             lambda a, g: torch.nn.functional.grid_sample(a, g, align_corners=False),
             [rand_array((1, 2, 1, 3, 3), 3), rand_array((1, 1, 2, 2, 3), 4, low=-1, high=1)])


def test_second_derivative():
    out = []
    x0, g0 = rand_array((1, 2, 3, 3, 3), 5), rand_array((1, 2, 2, 2, 3), 6, low=-0.9, high=0.9)
    for i, lib in enumerate((labkit, torch)):
        x, g = twins(x0)[i], twins(g0)[i]
        y = lib.nn.functional.grid_sample(x, g, padding_mode="border", align_corners=True)
        gx, = lib.autograd.grad((y ** 2).sum(), x, create_graph=True)
        gg, = lib.autograd.grad(gx.sum(), g)
        out.append(gg.detach().numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-9, atol=1e-12)


def test_affine_grid_pipeline_flips_a_volume():
    vol = rand_array((1, 1, 4, 6, 5), 7)
    for lib in (torch, labkit):
        t = lib.eye(4, dtype=lib.float64)
        t[0, 0] *= -1                                     # flip x, the last dim
        grid = lib.nn.functional.affine_grid(t[:3].unsqueeze(0), (1, 1, 4, 6, 5), align_corners=False)
        out = lib.nn.functional.grid_sample(lib.tensor(vol), grid, padding_mode="border",
                                            align_corners=False)
        np.testing.assert_allclose(out.numpy(), vol[..., ::-1], atol=1e-12)


@pytest.mark.parametrize("x_shape, g_shape, mode", [
    ((1, 2, 3, 3, 3), (1, 2, 2, 2, 2), "bilinear"),    # (x, y) pairs for a volume
    ((1, 2, 3, 3, 3), (2, 2, 2, 2, 3), "bilinear"),    # batch sizes differ
    ((1, 2, 3, 3, 3), (1, 2, 2, 2, 3), "bicubic"),     # bicubic is 4-D only
])
def test_errors(x_shape, g_shape, mode):
    for lib in (torch, labkit):
        with pytest.raises(RuntimeError):
            lib.nn.functional.grid_sample(lib.zeros(x_shape), lib.zeros(g_shape), mode=mode,
                                          align_corners=False)
