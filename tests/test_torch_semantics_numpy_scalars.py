"""numpy scalars meet tensors as torch reads them (np.float64 is a Python float to torch, so
`scores / np.sqrt(d)` stays float32; numpy 2 alone would make it float64), and tensor() of a
list keeps the dtypes of the numpy scalars, arrays and tensors in it, promoted together."""
import pytest

from snippets import check

pytest.importorskip("torch")

SCALARS = ["np.float64(2.5)", "np.float32(0.5)", "np.float16(1.5)", "np.int64(3)", "np.int8(2)",
           "np.bool_(True)", "np.uint8(200)", "np.sqrt(4.0)"]
TENSORS = ["L.ones(2, 3)", "L.arange(6).view(2, 3)", "L.ones(2, 3, dtype=L.float16)",
           "L.tensor(2., dtype=L.float64)", "L.tensor([True, False])"]
OPS = ["x + s", "s * x", "x - s", "x / s", "s / x", "x ** s", "x < s", "x == s",
       "L.where(x > 1, x, s)", "x.clamp(max=s)", "L.full((2,), s)", "L.full_like(x, s)",
       "x.add(x, alpha=s) if s != 1 else x"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("t", TENSORS)
@pytest.mark.parametrize("s", SCALARS)
def test_a_numpy_scalar_is_a_python_number(s, t, op):
    check(f"x = {t}; s = {s}; out = {op}")


def test_attention_scaling_by_np_sqrt_stays_float32():
    check("L.manual_seed(0); q = L.randn(2, 3, 4); k = L.randn(2, 3, 4).requires_grad_(); "
          "leaves = [k]; "
          "out = L.softmax(q @ k.transpose(-2, -1) / np.sqrt(4), dim=-1)")


LISTS = ["[np.float64(1), 2.0]", "[np.float16(1)]", "[np.float16(1), 2.0]", "[np.int32(1), 7]",
         "[np.int32(1), np.int32(2)]", "[np.uint8(1)]", "[True, np.int8(1)]", "[1, np.float32(2)]",
         "[np.array([1., 2.]), np.array([3., 4.])]", "[np.array([1, 2], dtype=np.int32)]",
         "[[np.float64(1)], [2.0]]", "[L.tensor(1., dtype=L.float64), L.tensor(2.)]",
         "[L.tensor(1, dtype=L.int32), 2]", "[L.tensor(1., dtype=L.float16), 2.5]",
         "[[L.tensor(1.), L.tensor(2.)]]", "[L.tensor([1., 2.])]", "[np.bool_(True)]", "[]",
         "[[], []]", "[[1, 2], [3, 4]]", "[[1.5, 2], [3, 4]]", "(np.float64(1), np.float32(2))",
         "np.float64(2.5)", "[2**63 - 1]", "2**63", "[1, 2**63]", "-(2**63) - 1", "[[1], [2**64]]",
         "[1.5, 2**63]"]


@pytest.mark.parametrize("data", LISTS)
@pytest.mark.parametrize("fn", ["tensor", "as_tensor"])
def test_tensor_of_a_list_infers_torchs_dtype(data, fn):
    check(f"out = L.{fn}({data})")


@pytest.mark.parametrize("data", ["[np.float64(1), 2.0]", "[np.int32(1), 7]", "[1, 2**63]"])
def test_an_explicit_dtype_wins(data):
    check(f"out = L.tensor({data}, dtype=L.float16)")
