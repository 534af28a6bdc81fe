"""F.pad's amounts as torch takes them: ints or integer tensors of one element (x-transformers'
align_right pads by pad_lens.amax(), a 0-d tensor), negative ones cropping, also on bool
tensors (its top_p); floats and bools refused with torch's TypeError (labkit used to pad
silently wrong with a tensor amount)."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("amounts", [
    lambda M: (M.tensor(2), 0),
    lambda M: (M.tensor([1]), M.tensor(3)),
    lambda M: (np.int64(1), 2),
    lambda M: (1, -1),
    lambda M: (0, 0, M.tensor(1), -1),
])
@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
def test_pad_amounts_like_torch(amounts, dtype):
    x = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    mine = labkit.nn.functional.pad(labkit.tensor(x), amounts(labkit), value=0)
    ref = torch.nn.functional.pad(torch.tensor(x), amounts(torch), value=0)
    assert str(mine.dtype).split(".")[1] == str(ref.dtype).split(".")[1]
    np.testing.assert_array_equal(mine.numpy(), ref.numpy())


@pytest.mark.parametrize("bad", [(1.0, 0), (True, 0), "tensor"])
def test_pad_refuses_non_integer_amounts_like_torch(bad):
    for M in (labkit, torch):
        amounts = (M.tensor(1.5), 0) if bad == "tensor" else bad
        with pytest.raises(TypeError, match="must be tuple of ints"):
            M.nn.functional.pad(M.ones(2, 3), amounts)
