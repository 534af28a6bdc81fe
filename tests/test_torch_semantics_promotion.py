"""Type promotion against torch, table-driven (tests/snippets.py): every pair of dtypes for the
arithmetic, comparison, bitwise and joining ops; tensors against 0-d tensors and Python
scalars (a 0-d tensor or a scalar wins only with a higher category); in-place ops that would
need a downcast; integer division and overflow; reductions' result dtypes."""
import itertools

import pytest

from snippets import check

pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]
VALUES = {"bool": "[True, False, True]", "uint8": "[0, 3, 250]", "int8": "[-3, 2, 127]",
          "int16": "[-3, 2, 32767]", "int32": "[-3, 2, 7]", "int64": "[-3, 2, 7]"}


def make(dtype, zero_d=False):
    v = VALUES.get(dtype, "[-1.5, 2.0, 0.5]")
    if zero_d:
        v = v.strip("[]").split(",")[1].strip()
    return f"L.tensor({v}, dtype=L.{dtype})"


PAIR_OPS = ["a + b", "a - b", "a * b", "a / b", "a // b", "a % b", "a ** b", "a == b", "a < b",
            "a >= b", "a & b", "a | b", "a ^ b", "L.maximum(a, b)", "L.minimum(a, b)",
            "L.where(a != 0, a, b)", "L.cat([a, b])", "L.stack([a, b])", "L.fmod(a, b)",
            "L.div(a, b, rounding_mode='floor')", "L.div(a, b, rounding_mode='trunc')",
            "a.add_(b)", "a.mul_(b)", "a.sub_(b)", "a.div_(b)", "a.copy_(b)", "a.clamp(b, None)",
            "a.masked_fill(L.tensor([True, False, True]), b)"]


@pytest.mark.parametrize("op", PAIR_OPS)
@pytest.mark.parametrize("a_dtype", DTYPES)
def test_every_pair_of_dtypes(op, a_dtype):
    for b_dtype, zero_d in itertools.product(DTYPES, (False, True)):
        check(f"a = {make(a_dtype)}; b = {make(b_dtype, zero_d)}; out = {op}")


SCALARS = ["True", "False", "2", "-3", "2.5", "300", "-1", "0", "float('nan')", "-129"]


@pytest.mark.parametrize("a_dtype", DTYPES)
@pytest.mark.parametrize("sym", ["+", "-", "*", "/", "//", "%", "**", "==", "<", "&", "|", "^",
                                 "<<", ">>"])
def test_tensor_and_python_scalar(a_dtype, sym):
    for s in SCALARS:
        for zero_d in (False, True):
            check(f"a = {make(a_dtype, zero_d)}; out = a {sym} {s}")
            check(f"a = {make(a_dtype, zero_d)}; out = {s} {sym} a")


@pytest.mark.parametrize("a_dtype", DTYPES)
def test_in_place_downcasts_and_scalar_fills(a_dtype):
    for s in SCALARS:
        for op in ["a.add_({s})", "a.mul_({s})", "a.div_({s})", "a.fill_({s})",
                   "L.full((2,), {s}, dtype=a.dtype)", "L.where(a != 0, a, {s})",
                   "L.where(a != 0, {s}, 1.5)", "a.clamp({s})", "a.masked_fill(a != 0, {s})",
                   "a.index_fill(0, L.tensor([0]), {s})", "a.pow({s})"]:
            check(f"a = {make(a_dtype)}; out = " + op.format(s=s))


REDUCTIONS = ["a.sum()", "a.sum(0)", "a.sum(dtype=L.float64)", "a.sum(dtype=L.int8)", "a.prod()",
              "a.prod(dtype=L.int16)", "a.cumsum(0)", "L.cumsum(a, 0, dtype=L.int32)", "a.cumprod(0)",
              "a.mean()", "a.mean(dtype=L.float32)", "a.max()", "a.amax(0)", "a.min(0)[0]",
              "a.argmax()", "a.std()", "a.var()", "a.nansum()", "a.any()", "a.all()",
              "a.count_nonzero()", "a.median()", "a.abs()", "-a", "a.sign()", "a.exp()",
              "a.sqrt()", "a.sigmoid()", "a.floor()", "a.round()", "a.reciprocal()", "a.square()",
              "a.clamp(0, 1)", "a.clamp(min=0.5)", "a.softmax(0)", "a.sum(0, keepdim=True)",
              "a.cummax(0)[0]", "a.sort()[0]", "a.neg()", "a.to(L.int8)", "a.to(L.uint8)",
              "a.long()", "a.bool()", "a.half()", "~a", "a.bitwise_not()", "a.logical_not()"]


@pytest.mark.parametrize("a_dtype", DTYPES)
def test_reductions_and_unary_result_dtypes(a_dtype):
    for op in REDUCTIONS:
        for zero_d in (False, True):
            check(f"a = {make(a_dtype, zero_d)}; out = {op}")


CASES = [
    "out = L.tensor([127], dtype=L.int8) + 1",                       # wraps, as torch
    "out = L.tensor([250], dtype=L.uint8) * 2",
    "out = L.tensor([-128], dtype=L.int8) // -1",
    "out = L.tensor([255], dtype=L.uint8) + L.tensor(1, dtype=L.uint8)",
    "out = L.tensor([7, -7]) // L.tensor([2, 2])",                    # floor, not trunc
    "out = L.tensor([7, -7]) / 2",                                   # true division: float32
    "out = L.tensor([7, -7]) % -3",
    "out = L.tensor([7, -7]).div(2, rounding_mode='trunc')",
    "out = L.tensor([1, 2]) // 0",
    "out = L.tensor([1., -1., 0.]) // 0",
    "out = L.tensor([1, 2], dtype=L.uint8) - 3",
    "out = L.tensor([1, 2]).float().mean()",
    "out = L.tensor([1, 2]).mean()",
    "a = L.tensor([1, 2]); a += 1.5; out = a",
    "a = L.tensor([1, 2]); a /= 2; out = a",
    "a = L.tensor([1, 2]); a //= 2; out = a",
    "a = L.tensor([1., 2.]); a += L.tensor([1, 2]); out = a",
    "a = L.tensor([1, 2], dtype=L.int8); a += L.tensor([100, 100]); out = a",
    "a = L.tensor([1, 2], dtype=L.int32); a *= L.tensor(2.5); out = a",
    "a = L.tensor([True, False]); a |= L.tensor([False, True]); out = a",
    "a = L.tensor([5, 6]); a &= 3; out = a",
    "a = L.tensor([5, 6]); a ^= L.tensor(True); out = a",
    "a = L.tensor([5, 6]); a <<= 2; out = a",
    "out = L.result_type(L.tensor([1], dtype=L.int8), 1000)",
    "out = L.result_type(L.tensor(1.), L.tensor([1], dtype=L.int32))",
    "out = L.result_type(L.tensor([1.], dtype=L.float16), L.tensor(1., dtype=L.float64))",
    "out = L.promote_types(L.uint8, L.int8)",
    "out = L.promote_types(L.bfloat16, L.float16)",
    "out = L.tensor([1, 2], dtype=L.int8) + L.tensor(1000)",
    "out = L.tensor([1, 2], dtype=L.uint8) + L.tensor(-1)",
    "out = L.tensor([1, 2], dtype=L.int16) * L.tensor(2.5, dtype=L.float64)",
    "out = L.tensor(1, dtype=L.int8) + L.tensor(2, dtype=L.int16)",
    "out = L.tensor(1, dtype=L.int8) + 2.5",
    "out = L.tensor(True) + L.tensor(True)",
    "out = L.tensor([True]) + True",
    "out = L.cat([L.tensor([1], dtype=L.uint8), L.tensor([1.5], dtype=L.float16), L.tensor([2], dtype=L.int64)])",
    "out = L.stack([L.tensor(1, dtype=L.int8), L.tensor(2, dtype=L.uint8)])",
    "out = L.cat([L.zeros(0, dtype=L.int8), L.tensor([1.5])])",
    "out = L.where(L.tensor([True, False]), L.tensor([1], dtype=L.int8), 2.5)",
    "out = L.where(L.tensor([True, False]), L.tensor(1, dtype=L.int8), L.tensor([2], dtype=L.int16))",
    "out = L.tensor([1, 2]).to(L.float16) * L.tensor([1.], dtype=L.bfloat16)",
    "out = L.tensor([3], dtype=L.int8) & 300",
    "out = 5 & L.tensor([3], dtype=L.int8)",
    "out = L.tensor([True]) << 1",
    "out = L.tensor([-8]) >> 1",
    "out = ~L.tensor([1, -2], dtype=L.int8)",
    "out = ~L.tensor([1., 2.])",
    "out = L.tensor([1.]) & L.tensor([1.])",
    "out = L.tensor([1, 2]) + 10**20",
    "out = L.tensor([1], dtype=L.int8) ** 200",
    "out = L.tensor([True, False]) ** True",
    # found by the fuzzer
    "a = L.tensor(0, dtype=L.int8); a.add_(L.tensor(200, dtype=L.uint8)); out = a",
    "out = L.tensor([float('nan'), -1.], dtype=L.bfloat16).sign()",
    "out = L.tensor([], dtype=L.int64) // 0",
    "out = L.tensor([], dtype=L.int64) % L.tensor(0)",
    "out = L.tensor([1.5, 0.]).cumsum(0, dtype=L.bool)",
    "out = L.tensor([1.5, 2.5], requires_grad=True).sum(dtype=L.int8)",
    "out = L.tensor([1.5, 2.5], requires_grad=True).cumsum(0, dtype=L.int32)",
    "out = L.tensor([1.5, 2.5], requires_grad=True).sum(dtype=L.float64)",
    "out = L.tensor([[2.5, -1.5]], dtype=L.bfloat16).norm()",
    "a = L.tensor([2.5, -1.5], dtype=L.bfloat16); out = a.lerp(a * 2, 0.5)",
    "out = L.tensor([2.5, -1.5], dtype=L.bfloat16).logsumexp(0)",
    "out = L.tensor([2.5, -1.5, 3.5], dtype=L.float16).erf()",
]


@pytest.mark.parametrize("code", CASES)
def test_cases(code):
    check(code)
