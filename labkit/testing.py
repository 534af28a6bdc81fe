"""torch.testing.assert_close: are two tensors (or numbers, or nested lists/dicts of them) close,
elementwise |actual - expected| <= atol + rtol * |expected|, with torch's default tolerances per
dtype and torch's messages (the mismatched count, the greatest differences and where)."""
import math
import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from .engine import Tensor

# (rtol, atol) by dtype name, as torch.testing
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7)}


def _fail(msg, default):
    raise AssertionError(msg if isinstance(msg, str) else default)


def _dtype_name(x):
    return x.dtype.name if isinstance(x, Tensor) else ("float64" if isinstance(x, float) else "int64")


def _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg, where):
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        if tuple(actual.shape) != tuple(expected.shape):
            _fail(msg, f"The values for attribute 'shape' do not match: {actual.shape} != "
                       f"{expected.shape}.{where}")
        if check_device and actual.device != expected.device:
            _fail(msg, f"The values for attribute 'device' do not match: {actual.device} != "
                       f"{expected.device}.{where}")
        if check_dtype and actual.dtype != expected.dtype:
            _fail(msg, f"The values for attribute 'dtype' do not match: {actual.dtype} != "
                       f"{expected.dtype}.{where}")
        a = actual.detach().cpu().numpy()
        e = expected.detach().cpu().numpy()
        kind = "Tensor-likes"
    elif isinstance(actual, numbers.Number) and isinstance(expected, numbers.Number) \
            and not isinstance(actual, Tensor) and not isinstance(expected, Tensor):
        if type(actual) is not type(expected) and check_dtype:
            _fail(msg, f"The (d)types do not match: {type(actual)} != {type(expected)}.{where}")
        a, e = np.asarray(actual), np.asarray(expected)
        kind = "Scalars"
    else:
        raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} "
                        f"and {type(expected)}.")
    if rtol is None:
        names = {_dtype_name(actual), _dtype_name(expected)}
        rtol, atol = max((_TOLERANCES.get(n, (0.0, 0.0)) for n in names), key=lambda t: t[0])
    dt = np.result_type(a, e)                   # torch compares in the common dtype
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if dt.kind in "iub":
            a_, e_ = a.astype(np.int64), e.astype(np.int64)
            diff = np.abs(a_ - e_)
            rel = diff.astype(np.float32) / np.abs(e_).astype(np.float32)
            ok = diff <= atol + rtol * np.abs(e_)
        else:
            a_, e_ = a.astype(dt), e.astype(dt)
            diff = np.abs(a_ - e_)
            rel = diff / np.abs(e_)
            ok = (diff <= atol + rtol * np.abs(e_)) | (a_ == e_)
            if equal_nan:
                ok |= np.isnan(a_) & np.isnan(e_)
        if ok.all():
            return
        bad = ~ok
        exact = rtol == 0 and atol == 0
    n_bad, n = int(bad.sum()), a.size
    report = [f"{kind} are not {'equal' if exact else 'close'}!", ""]
    if kind == "Scalars":
        report = [f"Scalars are not {'equal' if exact else 'close'}!", "",
                  f"Expected {expected} but got {actual}.",
                  f"Absolute difference: {float(diff)}" + ("" if exact else f" (up to {atol} allowed)"),
                  f"Relative difference: {float(rel)}" + ("" if exact else f" (up to {rtol} allowed)")]
    else:
        def worst(values):
            v = np.where(bad, np.nan_to_num(values.astype(np.float64), nan=np.inf), -np.inf)
            i = np.unravel_index(int(np.argmax(v)), a.shape) if a.ndim else ()
            value = values[i] if a.ndim else values
            return _number(float(value), values.dtype), tuple(int(k) for k in i)
        d, di = worst(diff)
        r, ri = worst(rel)
        report.append(f"Mismatched elements: {n_bad} / {n} ({100 * n_bad / n:.1f}%)")
        report.append(f"Greatest absolute difference: {d} at index {di}"
                      + ("" if exact else f" (up to {atol} allowed)"))
        report.append(f"Greatest relative difference: {r} at index {ri}"
                      + ("" if exact else f" (up to {rtol} allowed)"))
    _fail(msg, "\n".join(report) + (f"\n\nThe failure occurred for item {where.strip()}"
                                    if where else ""))


def _number(v, dtype):
    if dtype.kind in "iub" and math.isfinite(v) and v == int(v):
        return int(v)
    return v


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'atol' if atol is None else 'rtol'}.")
    _walk(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg, [])


def _walk(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg, path):
    where = "".join(f"[{p!r}]" for p in path)
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            _fail(msg, f"The keys of the mappings do not match:\n{sorted(actual)} != "
                       f"{sorted(expected)}")
        for k in actual:
            _walk(actual[k], expected[k], rtol, atol, equal_nan, check_device, check_dtype, msg,
                  path + [k])
        return
    if isinstance(actual, Sequence) and not isinstance(actual, str) and \
            isinstance(expected, Sequence) and not isinstance(expected, str):
        if len(actual) != len(expected):
            _fail(msg, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _walk(a, e, rtol, atol, equal_nan, check_device, check_dtype, msg, path + [i])
        return
    _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg,
             f" {where}" if where else "")
