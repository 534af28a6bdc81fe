"""asarray, frombuffer, scalar_tensor, the signal windows and unravel_index against torch:
values, dtypes, memory sharing (a change to the source shows in the tensor), and errors."""
import pytest

from snippets import check

pytest.importorskip("torch")


@pytest.mark.parametrize("code", [
    "t = L.arange(6.); a = L.asarray(t); out = (a, a is t)",
    "out = L.asarray([1., 2.])", "out = L.asarray(3)", "out = L.asarray(3.5)",
    "out = L.asarray(True)", "out = L.asarray([1, 2.5])", "out = L.asarray(np.float32(2.5))",
    "a = np.arange(3.); t = L.asarray(a); a[0] = 9; out = t",
    "a = np.arange(3.); t = L.asarray(a, copy=True); a[0] = 9; out = t",
    "a = np.arange(3.); t = L.asarray(a, dtype=L.float32); a[0] = 9; out = t",
    "a = np.arange(3.); out = L.asarray(a, copy=False, dtype=L.float32)",
    "t = L.arange(3.); c = L.asarray(t, copy=True); c[0] = 5; out = (t, c, c is t)",
    "t = L.arange(3.); r = L.asarray(t, requires_grad=True); out = (r is t, r.requires_grad)",
    "t = L.arange(3.); out = L.asarray([t[0], t[2]])",
    "out = L.asarray([[1, 2], [3, 4]], dtype=L.float64)",
    "out = L.asarray([])",
])
def test_asarray(code):
    check(code)


@pytest.mark.parametrize("code", [
    "b = bytearray(b'\\x01\\x00\\x00\\x00\\x02\\x00\\x00\\x00'); t = L.frombuffer(b, "
    "dtype=L.int32); b[0] = 7; out = t",
    "b = bytearray(range(8)); out = L.frombuffer(b, dtype=L.int8, count=3, offset=2)",
    "b = bytearray(range(8)); t = L.frombuffer(b, dtype=L.uint8); t[1] = 200; out = b[1]",
    "out = L.frombuffer(bytearray(), dtype=L.float32)",
    "out = L.frombuffer(bytearray(8), dtype=L.float32, count=3)",
    "out = L.frombuffer(bytearray(7), dtype=L.float32)",
    "out = L.frombuffer(bytearray(8), dtype=L.float32, offset=8)",
    "import array; out = L.frombuffer(array.array('d', [1.5, 2.5]), dtype=L.float64)",
    "out = L.scalar_tensor(3)", "out = L.scalar_tensor(True)",
    "out = L.scalar_tensor(2, dtype=L.int64)", "out = L.scalar_tensor(2.5, dtype=L.float64)",
])
def test_frombuffer_and_scalar_tensor(code):
    check(code)


@pytest.mark.parametrize("window", ["hann_window", "hamming_window", "blackman_window",
                                    "bartlett_window", "kaiser_window"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(window, n, periodic):
    check(f"out = (L.{window}({n}), L.{window}({n}, {periodic}), "
          f"L.{window}({n}, periodic={periodic}, dtype=L.float64))")


@pytest.mark.parametrize("code", [
    "L.hamming_window(6, True, 0.5, 0.4)", "L.kaiser_window(7, False, 3.0)",
    "L.hann_window(3, dtype=L.int64)", "L.hann_window(-1)",
    "L.hann_window(4, requires_grad=True).requires_grad",
])
def test_window_options_and_errors(code):
    check(f"out = {code}")


@pytest.mark.parametrize("code", [
    "L.unravel_index(L.tensor([4, 1]), (2, 3))", "L.unravel_index(L.tensor(5), (2, 3))",
    "L.unravel_index(L.tensor([[1234], [5678]]), (10, 10, 10, 10))",
    "L.unravel_index(L.tensor([-1, 7]), (2, 3))", "L.unravel_index(L.tensor([3]), 5)",
    "L.unravel_index(L.tensor([3], dtype=L.int32), L.Size([2, 2]))",
    "L.unravel_index(L.arange(6).reshape(2, 3).argmax(), (2, 3))",
    "L.unravel_index(L.tensor([1.]), (2, 3))", "L.unravel_index(L.tensor([True]), (2, 3))",
    "L.unravel_index(L.tensor([1]), (2, -3))", "L.unravel_index(L.tensor([1]), (2.0, 3))",
    "L.unravel_index(L.tensor([1]), '23')",
])
def test_unravel_index(code):
    check(f"out = {code}")
