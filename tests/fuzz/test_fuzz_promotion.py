"""The type-promotion fuzzer (see promotion.py): one binary or in-place op on two operands of
any dtype pair and form (dimensioned tensor, 0-d tensor, Python number), on labkit and torch:
the same result dtype, shape and values (and, in place, the same _version), or the same
exception class.

Budget: LABKIT_FUZZ_PROMOTION when set, else LABKIT_FUZZ_EXAMPLES (`make fuzz`, fresh seeds),
else 300 (derandomized: the same programs every `make test`).
"""
import os

import numpy as np

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .promotion import BINARY, DTYPES, INPLACE, SCALARS, TENSOR_ONLY, apply, values_for
from .test_fuzz import compare
from .test_fuzz_autograd import run_both

torch = pytest.importorskip("torch")

N = int(os.environ.get("LABKIT_FUZZ_PROMOTION", os.environ.get("LABKIT_FUZZ_EXAMPLES", "300")))
SETTINGS = settings(max_examples=N, deadline=None, database=None,
                    derandomize="LABKIT_FUZZ_EXAMPLES" not in os.environ
                    and "LABKIT_FUZZ_PROMOTION" not in os.environ,
                    suppress_health_check=list(HealthCheck))


@st.composite
def tensor_spec(draw, dtype, shape):
    n = 1
    for s in shape:
        n *= s
    return (dtype, shape, draw(st.lists(st.sampled_from(values_for(dtype)), min_size=n,
                                        max_size=n)))


def same(mine, ref, what):
    if isinstance(ref, tuple):
        assert isinstance(mine, tuple) and len(mine) == len(ref), f"{what}: labkit {mine}"
        for m, r in zip(mine, ref):
            same(m, r, what)
    elif isinstance(ref, int):
        assert mine == ref, f"{what}: _version labkit {mine}, torch {ref}"
    elif ref.is_complex():
        assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1], \
            f"{what}: dtype labkit {mine.dtype} torch {ref.dtype}"
        compare(mine.real, ref.real, what + " (real part)")
        compare(mine.imag, ref.imag, what + " (imaginary part)")
    else:
        compare(mine, ref, what)


# Known gap: clamp_min_ of a bool tensor (torch: NotImplementedError; labkit clamps) or with a
# complex bound (torch: NotImplementedError; labkit: RuntimeError)
CLAMP_GAP = ("clamp_min_", "xlogy_")   # (xlogy_ of bool with a complex number: TypeError)


def half_with_complex(a, b):
    """Known gap: float16 with a complex operand is complex32 (ComplexHalf) in torch, a dtype
    labkit does not have (it refuses with a message; torch computes some ops and refuses
    others)."""
    kinds = [s[0] if s[0] != "scalar" else ("complex" if isinstance(s[1], complex) else "")
             for s in (a, b)]
    return "float16" in kinds and any(k.startswith("complex") for k in kinds)


_INTS = ("uint8", "int8", "int16", "int32", "int64")


def number_beyond_dtype(op, a, b):
    """Known gap: some of torch's in-place kernels (div_(rounding_mode=), clamp_min_, ...)
    convert a Python number to x's dtype first (2 ** 40 into uint8 is 0: ZeroDivisionError; into
    float16: an overflow error), others compute in the result dtype; labkit does the latter
    everywhere (and checks // by zero before the number wraps). A number that does not fit x's
    dtype is not compared."""
    if op in INPLACE and b[0] in _INTS and not b[1] and a[0] in _INTS:   # a 0-d integer b
        info = np.iinfo(a[0])                # that a's dtype cannot hold: torch converts it
        return not all(info.min <= v <= info.max for v in b[2])   # first (-32768 -> 0 in uint8)
    if b[0] != "scalar" or isinstance(b[1], (bool, complex)) or \
            a[0] == "bool" or a[0].startswith("complex"):
        return False
    info = (np.iinfo if a[0] in ("uint8", "int8", "int16", "int32", "int64") else np.finfo)(
        "float32" if a[0] == "bfloat16" else a[0])
    return not info.min <= b[1] <= info.max


def complex_non_finite(ref, a):
    """Known gap: where a complex result is inf or nan (z / 0, 0 ** z) or comes from an inf
    operand, torch's formulas (reciprocal * z, exp(z * log 0)) give other inf/nan patterns and
    roundings than numpy's; not compared."""
    ts = ref if isinstance(ref, tuple) else (ref,)
    odd_a = a[0] != "scalar" and any(isinstance(v, float) and not np.isfinite(v) for v in a[2])
    return any(isinstance(t, torch.Tensor) and t.is_complex() and
               (odd_a or not bool(torch.isfinite(t).all())) for t in ts)


@SETTINGS
@given(st.data())
def test_binary_ops_across_dtypes(data):
    op = data.draw(st.sampled_from(sorted(BINARY) + sorted(INPLACE)), label="op")
    shape = data.draw(st.sampled_from([(3,), (2, 2), (0,), (1, 3)]), label="shape")
    a = data.draw(tensor_spec(data.draw(st.sampled_from(DTYPES), label="a dtype"), shape),
                  label="a")
    form = data.draw(st.sampled_from(["dim", "dim", "zero_d", "scalar"]), label="b form")
    if form == "scalar" and op not in TENSOR_ONLY:
        b = ("scalar", data.draw(st.sampled_from(SCALARS), label="b"))
    else:
        bshape = () if form == "zero_d" else data.draw(st.sampled_from([shape, shape[-1:]]))
        b = data.draw(tensor_spec(data.draw(st.sampled_from(DTYPES), label="b dtype"),
                                  bshape), label="b")
    if op not in INPLACE and data.draw(st.integers(0, 3)) == 0:
        a = (a[0], (), a[2][:1]) if a[2] else a     # a 0-d left operand
    what = f"{op}: a {a}, b {b}"
    if half_with_complex(a, b) or number_beyond_dtype(op, a, b) or \
            (op in CLAMP_GAP and (a[0] == "bool" or "complex" in str(b) or
                                  isinstance(b[1], complex))):
        return
    (rt, et), (rl, el) = run_both(lambda L: apply(L, op, a, b))
    if et is not None or el is not None:
        assert et is not None, f"{what}: labkit raised {type(el).__name__} ({el}), torch " \
            "accepted"
        assert el is not None, f"{what}: torch raised {type(et).__name__} ({et}), labkit " \
            "accepted"
        assert isinstance(el, type(et)), f"{what}: torch raised {type(et).__name__} ({et}), " \
            f"labkit {type(el).__name__} ({el})"
        return
    if not complex_non_finite(rt, a):
        same(rl, rt, what)
