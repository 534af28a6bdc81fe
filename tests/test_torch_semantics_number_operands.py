"""torch.add / sub / subtract / mul / multiply / div / true_divide / floor_divide with a Python
number first (MIT 6.S191 lab 1 calls torch.add(1.5, 2.5)): the number becomes a 0-d tensor of
its default dtype, as torch's argument parser wraps it; values and dtypes against torch, the
default dtype followed, and torch's error for bool subtraction."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

NAMES = ["add", "sub", "subtract", "mul", "multiply", "div", "true_divide", "floor_divide"]
PAIRS = [(1.5, 2.5), (2, 3), (2, 2.5), (True, 2), (-7, 2), (3, labkit.tensor([1.5, 2.0]))]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("pair", range(len(PAIRS)))
def test_number_first_matches_torch(name, pair):
    a, b = PAIRS[pair]
    tb = torch.tensor(b.numpy()) if isinstance(b, labkit.Tensor) else b
    try:
        t = getattr(torch, name)(a, tb)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            getattr(labkit, name)(a, b)
        return
    m = getattr(labkit, name)(a, b)
    assert isinstance(m, labkit.Tensor) and tuple(m.shape) == tuple(t.shape)
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-6)


def test_follows_the_default_dtype():
    for lib in (torch, labkit):
        lib.set_default_dtype(lib.float64)
        try:
            assert lib.add(1.5, 2.5).dtype == lib.float64
        finally:
            lib.set_default_dtype(lib.float32)


def test_keyword_alpha_and_methods_unchanged():
    for lib in (torch, labkit):
        assert lib.add(1, 2, alpha=3).item() == 7
        assert lib.sub(5.0, 2.0, alpha=2).item() == 1.0
        x = lib.tensor([1.0, 2.0])
        assert (x.add(1.5) == lib.tensor([2.5, 3.5])).all()
