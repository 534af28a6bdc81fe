"""Torch semantics that the tutorial/recipe/examples compat programs (tests/compat/programs/tut_*)
exposed: each test compares labkit with torch on the case a program met."""
import warnings

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a.detach().numpy()), b.detach().numpy())


# --- channel dropout: torch's feature dropout masks (N, C, 1, ...) whatever the rank ----------

@pytest.mark.parametrize("name,shape", [
    ("dropout2d", (4, 6)), ("dropout2d", (2, 3, 4)), ("dropout2d", (2, 3, 4, 5)),
    ("dropout2d", (2, 3, 2, 2, 2)), ("dropout1d", (3, 5)), ("dropout1d", (2, 3, 5)),
    ("dropout3d", (2, 3, 4)), ("dropout3d", (3, 2, 2, 2)), ("dropout3d", (2, 3, 2, 2, 2)),
])
def test_channel_dropout_masks_like_torch(name, shape):
    x = np.ones(shape, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labkit.manual_seed(3)
        ours = getattr(labkit.nn.functional, name)(labkit.tensor(x), 0.5)
        torch.manual_seed(3)
        theirs = getattr(torch.nn.functional, name)(torch.tensor(x), 0.5)
    _same(ours, theirs)


def test_dropout2d_of_a_2d_input_warns_and_drops_elements():
    """The 'defining a neural network' recipe applies nn.Dropout2d after a Linear layer."""
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        labkit.nn.Dropout2d(0.5)(labkit.ones(1, 128))


@pytest.mark.parametrize("mod", [labkit, torch])
def test_channel_dropout_errors(mod):
    F = mod.nn.functional
    with pytest.raises(RuntimeError, match="at least 2 dimensions"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F.dropout2d(mod.ones(5), 0.5)
    with pytest.raises(RuntimeError, match="Expected 2D or 3D input"):
        F.dropout1d(mod.ones(2, 2, 2, 2), 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert F.dropout2d(mod.ones(5), 0.5, training=False).shape == (5,)
