"""A numpy array used as an index reads as torch reads it (as a sequence): integer arrays of
any width select, float arrays are truncated to long, a uint8 array is a mask; the gradient
goes back to the right rows, on every device."""
import pytest

from snippets import check

pytest.importorskip("torch")

INDEXES = ["np.array([2, 0, 2])", "np.array([0, 1], dtype=np.int16)",
           "np.array([[1, 0], [3, 3]], dtype=np.int8)", "np.array([1, 0], dtype=np.uint16)",
           "np.array([0.5, 1.7, -0.5])", "np.array(2.0)", "np.array(3)",
           "np.array([True, False, True, False])", "np.array([1, 0, 1, 1], dtype=np.uint8)",
           "np.array([0, 1], dtype=np.uint8)", "np.array([], dtype=np.int64)",
           "(np.array([0, 1]), np.array([2, 0]))", "(slice(None), np.array([1, -1]))"]


@pytest.mark.filterwarnings("ignore:indexing with dtype")
@pytest.mark.parametrize("i", INDEXES)
def test_numpy_index_reads_and_writes_like_torch(i):
    check(f"L.manual_seed(0); x = L.randn(4, 3).requires_grad_(); leaves = [x]; out = x[{i}] * 2")
    if "uint8" not in i:    # torch's y[uint8 mask] = 5. fails inside masked_fill_ (its quirk)
        check(f"y = L.zeros(4, 3); y[{i}] = 5.; out = y")
