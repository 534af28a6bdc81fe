"""PixelShuffle / PixelUnshuffle against torch: values, gradients, leading batch dims, repr,
round trip, errors."""
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 4), 2), ((1, 9, 2, 2), 3), ((8, 3, 4), 2),
                                     ((2, 3, 4, 5, 6), 1)])
def test_pixel_shuffle(shape, r, device):
    check_op(lambda x: labkit.nn.functional.pixel_shuffle(x, r),
             lambda x: torch.nn.functional.pixel_shuffle(x, r), [rand_array(shape)], device=device)
    check_op(lambda x: labkit.nn.PixelShuffle(r)(x), lambda x: torch.nn.PixelShuffle(r)(x),
             [rand_array(shape)])


def test_pixel_shuffle_of_an_empty_batch():
    # torch's own backward fails on size-0 inputs: compare the forward, check labkit's gradient
    x = labkit.zeros(0, 4, 2, 3, requires_grad=True)
    y = labkit.nn.functional.pixel_shuffle(x, 2)
    assert tuple(y.shape) == tuple(torch.nn.functional.pixel_shuffle(torch.zeros(0, 4, 2, 3), 2).shape)
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 4, 2, 3)


@pytest.mark.parametrize("shape,r", [((2, 2, 6, 4), 2), ((1, 1, 6, 9), 3), ((3, 4, 4), 4)])
def test_pixel_unshuffle_and_round_trip(shape, r, device):
    check_op(lambda x: labkit.nn.functional.pixel_unshuffle(x, r),
             lambda x: torch.nn.functional.pixel_unshuffle(x, r), [rand_array(shape)], device=device)
    x = labkit.tensor(rand_array(shape))
    back = labkit.nn.PixelShuffle(r)(labkit.nn.PixelUnshuffle(r)(x))
    assert labkit.equal(back, x)
    assert repr(labkit.nn.PixelUnshuffle(r)) == repr(torch.nn.PixelUnshuffle(r))
    assert repr(labkit.nn.PixelShuffle(r)) == repr(torch.nn.PixelShuffle(r))


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.pixel_shuffle(lib.ones(1, 5, 2, 2), 2),
    lambda lib: lib.nn.functional.pixel_shuffle(lib.ones(4, 2), 2),
    lambda lib: lib.nn.functional.pixel_unshuffle(lib.ones(1, 1, 3, 4), 2),
    lambda lib: lib.nn.functional.pixel_unshuffle(lib.ones(1, 1, 4, 3), 2),
])
def test_errors_like_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(labkit)
