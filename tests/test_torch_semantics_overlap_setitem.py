"""x[a] = x[b] where the two slices overlap and are not dense: torch's overlap check gives up
('too hard') and copies row by row in the destination's order, so rows already written are read
again (fastai course22p2's random-copy augmentation relies on it). labkit must give torch's
values; a dense overlap (y[1:] = y[:-1]) stays an error on both."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

S = slice(None)
CASES = [
    ((2, 1, 10, 10), (S, S, slice(2, 5), slice(3, 6)), (S, S, slice(1, 4), slice(2, 5))),
    ((2, 40), (S, slice(0, 38)), (S, slice(1, 39))),
    ((3, 12, 12), (S, slice(0, 8), slice(0, 8)), (S, slice(3, 11), slice(2, 10))),
    ((3, 12, 12), (S, slice(3, 11), slice(2, 10)), (S, slice(0, 8), slice(0, 8))),
    ((4, 6, 5), (slice(1, 4), S, slice(0, 3)), (slice(0, 3), S, slice(1, 4))),
    ((5, 4), (slice(1, 5), slice(0, 2)), (slice(0, 4), slice(2, 4))),      # disjoint columns
    ((6, 3), (slice(2, 6, 2), S), (slice(0, 4, 2), S)),                      # strided rows
    ((3, 4, 4), (S, 1, slice(0, 3)), (S, 0, slice(1, 4))),                   # an int index
]


@pytest.mark.parametrize("shape, dst, src", CASES)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_overlapping_slice_assignment_matches_torch(shape, dst, src, dtype):
    out = []
    for lib in (torch, labkit):
        x = (lib.arange(int(np.prod(shape))).reshape(shape) % 3).to(getattr(lib, dtype))
        x[dst] = x[src]
        out.append(x.numpy())
    np.testing.assert_array_equal(out[1], out[0])


def test_broadcast_source_that_overlaps():
    out = []
    for lib in (torch, labkit):
        x = lib.arange(30.).reshape(5, 6)
        x[1:4, 2:5] = x[0, 1:4]        # one row broadcast over three, read after each write
        out.append(x.numpy())
    np.testing.assert_array_equal(out[1], out[0])


def test_dense_overlap_is_still_an_error():
    for lib in (torch, labkit):
        y = lib.arange(10.)
        with pytest.raises(RuntimeError, match="single memory location"):
            y[1:6] = y[0:5]


def test_gradient_through_an_overlapping_copy():
    out = []
    for lib in (torch, labkit):
        w = lib.arange(1., 17.).reshape(4, 4).requires_grad_()
        x = w * 1
        x[1:3, 1:3] = x[0:2, 0:2]
        (x * lib.arange(16.).reshape(4, 4)).sum().backward()
        out.append((x.detach().numpy(), w.grad.numpy()))
    np.testing.assert_array_equal(out[1][0], out[0][0])
    np.testing.assert_array_equal(out[1][1], out[0][1])
