"""F.conv_transpose3d / torch.conv_transpose3d / nn.ConvTranspose3d against torch: values and
gradients (input, weight, bias) for strides, padding, output_padding, dilation and groups per
axis, size-1 dims, unbatched input, second derivatives, the module's output_size=, its
initialisation shapes, float32 dtype, and torch's errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array, twins

torch = pytest.importorskip("torch")

CASES = [
    ((2, 4, 3, 5, 4), (4, 3, 3, 2, 3), {}),
    ((2, 4, 3, 5, 4), (4, 3, 3, 2, 3), {"stride": 2}),
    ((1, 4, 2, 3, 3), (4, 2, 2, 3, 2), {"stride": (2, 1, 3), "padding": (1, 0, 1),
                                        "output_padding": (1, 0, 2), "dilation": (1, 2, 1)}),
    ((2, 4, 3, 3, 2), (4, 3, 3, 3, 3), {"groups": 2, "stride": 2, "padding": 1}),
    ((1, 2, 1, 1, 1), (2, 3, 1, 1, 1), {}),                       # size-1 everywhere
    ((3, 1, 4, 1, 2), (1, 2, 2, 1, 2), {"stride": (3, 1, 2), "dilation": (2, 1, 1)}),
]


@pytest.mark.parametrize("x_shape, w_shape, kw", CASES)
def test_values_and_gradients(device, x_shape, w_shape, kw):
    groups = kw.get("groups", 1)
    arrays = [rand_array(x_shape, 1), rand_array(w_shape, 2), rand_array((w_shape[1] * groups,), 3)]
    check_op(lambda x, w, b: labkit.nn.functional.conv_transpose3d(x, w, b, **kw),
             lambda x, w, b: torch.nn.functional.conv_transpose3d(x, w, b, **kw),
             arrays, device=device)
    check_op(lambda x, w: labkit.conv_transpose3d(x, w, None, **kw),
             lambda x, w: torch.conv_transpose3d(x, w, None, **kw), arrays[:2], device=device)


def test_unbatched_input():
    arrays = [rand_array((2, 3, 2, 2), 4), rand_array((2, 3, 2, 2, 2), 5)]
    check_op(lambda x, w: labkit.nn.functional.conv_transpose3d(x, w, stride=2),
             lambda x, w: torch.nn.functional.conv_transpose3d(x, w, stride=2), arrays)


def test_second_derivative():
    out = []
    for lib, (x, w) in ((labkit, twins(rand_array((1, 2, 2, 2, 2), 6))[0:1] + twins(rand_array((2, 2, 2, 2, 2), 7))[0:1]),
                        (torch, twins(rand_array((1, 2, 2, 2, 2), 6))[1:2] + twins(rand_array((2, 2, 2, 2, 2), 7))[1:2])):
        y = lib.nn.functional.conv_transpose3d(x, w, stride=2)
        g, = lib.autograd.grad((y ** 2).sum(), w, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), x)
        out.append(gg.detach().numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-9, atol=1e-12)


def test_module_matches_torch_with_output_size():
    torch.manual_seed(0)
    ref = torch.nn.ConvTranspose3d(4, 6, kernel_size=(3, 2, 3), stride=(2, 2, 3), padding=1,
                                   groups=2)
    mine = labkit.nn.ConvTranspose3d(4, 6, kernel_size=(3, 2, 3), stride=(2, 2, 3), padding=1,
                                     groups=2)
    assert tuple(mine.weight.shape) == tuple(ref.weight.shape) == (4, 3, 3, 2, 3)
    assert tuple(mine.bias.shape) == (6,)
    with labkit.no_grad():
        mine.weight.copy_(labkit.tensor(ref.weight.detach().numpy()))
        mine.bias.copy_(labkit.tensor(ref.bias.detach().numpy()))
    x = rand_array((2, 4, 3, 4, 2), 8).astype(np.float32)
    for size in (None, (6, 7, 5), (2, 4, 6, 7, 6)):
        a = mine(labkit.tensor(x), output_size=size)
        t = ref(torch.tensor(x), output_size=size)
        assert a.dtype == labkit.float32 and tuple(a.shape) == tuple(t.shape)
        np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-5)
    for lib, m in ((torch, ref), (labkit, mine)):
        with pytest.raises(ValueError):
            m(lib.tensor(x), output_size=(9, 9, 9))
    assert "ConvTranspose3d(4, 6" in repr(mine)


@pytest.mark.parametrize("x_shape, w_shape, kw", [
    ((1, 3, 2, 2, 2), (4, 2, 2, 2, 2), {}),                      # in_channels mismatch
    ((1, 4, 2, 2), (4, 2, 2, 2), {}),                            # a 4-D weight
    ((1, 4, 2, 2, 2), (4, 2, 2, 2, 2), {"output_padding": 1}),   # output_padding >= stride
    ((1, 4, 1, 1, 1), (4, 2, 1, 1, 1), {"padding": 1}),          # output too small
])
def test_errors(x_shape, w_shape, kw):
    for lib in (torch, labkit):
        with pytest.raises(RuntimeError):
            lib.nn.functional.conv_transpose3d(lib.zeros(x_shape), lib.zeros(w_shape), **kw)
