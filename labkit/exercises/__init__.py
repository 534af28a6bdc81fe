"""Self-checking exercises for the course notebooks.

    from labkit.exercises import check
    check("grad_x", grad_x, expected)      # prints what is wrong, or that it is right

`check` compares in this order and reports the first problem it finds:

1. not done yet  -- the value is still the placeholder (None or ...);
2. not numbers   -- it cannot be read as an array;
3. wrong shape   -- with a hint when it is the transpose, or could be summed/broadcast to fit;
4. nan / inf     -- where the expected answer is finite;
5. wrong values  -- how many elements are off, and the worst one: index, got, expected.
   When the answer matches a known mistake (passed in `mistakes`), a sign flip or a
   constant factor, it says so.

It never raises on a wrong answer, so a notebook with unfinished exercises still runs top to
bottom. It returns a `Verdict` (truthy when correct) for code that wants the outcome;
`compare` does the same work without printing. Only numpy is needed: labkit, PyTorch and
cupy tensors are read through their own .detach()/.cpu()/.numpy() or .get().
"""
import numpy as np

__all__ = ["check", "compare", "Verdict"]


class Verdict:
    """The outcome of a check: `ok` (bool) and the `message` that was (or would be) printed."""
    __slots__ = ("ok", "message")

    def __init__(self, ok, message):
        self.ok, self.message = bool(ok), message

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return f"Verdict(ok={self.ok}, message={self.message!r})"

    def _ipython_display_(self):
        # check() has already printed the message; showing it again as Out[n] would be noise.
        pass


def _to_numpy(value):
    """An ndarray from a number, list, numpy array, or labkit/PyTorch/cupy tensor."""
    if hasattr(value, "detach") and callable(value.detach):   # labkit.Tensor, torch.Tensor
        value = value.detach()
        if hasattr(value, "cpu"):
            value = value.cpu()
        return np.asarray(value.numpy())
    if hasattr(value, "get") and hasattr(value, "__cuda_array_interface__"):  # cupy
        return value.get()
    return np.asarray(value)


def _fmt(v):
    return f"{v:.6g}" if isinstance(v, (float, np.floating)) else str(v)


def _index(idx):
    return str(idx[0]) if len(idx) == 1 else str(tuple(int(i) for i in idx))


def _shape_hint(got, want):
    if len(got) == 2 and got == want[::-1]:
        return " It is the transpose of the expected shape: did you forget (or add) a .T / .t()?"
    if len(want) == 0 or want == (1,):
        return " The answer is a single number: did you forget a .sum()?"
    if int(np.prod(got)) == int(np.prod(want)):
        return (" It has the right number of elements in the wrong arrangement: check the "
                "order of a product or a transpose.")
    try:
        if np.broadcast_shapes(got, want) == want:
            return (" It would broadcast to the right shape: the gradient of a broadcast input "
                    "must be summed back over the dimensions that were broadcast, not the "
                    "other way round.")
        if np.broadcast_shapes(got, want) == got:
            return (" It is bigger than the expected shape: sum over the dimensions the input "
                    "was broadcast along (a gradient always has its input's shape).")
    except ValueError:
        pass
    return " A gradient always has the same shape as the thing it is the gradient of."


def _close(a, b, rtol, atol):
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=False))


def compare(name, value, expected, *, rtol=1e-5, atol=1e-8, mistakes=None):
    """Like `check`, but return the Verdict without printing it."""
    if value is None or value is Ellipsis:
        return Verdict(False, f"not done yet: `{name}` is still the placeholder; replace it "
                              "with your code and run the cell again.")
    want = _to_numpy(expected)
    try:
        got = _to_numpy(value)
    except Exception as e:  # noqa: BLE001 (anything unreadable is a student-facing message)
        return Verdict(False, f"{name}: expected numbers (an array or tensor), but could not "
                              f"read a {type(value).__name__} as one ({e}).")
    if got.dtype == object or got.dtype.kind not in "biuf":
        return Verdict(False, f"{name}: expected numbers (an array or tensor), got a "
                              f"{type(value).__name__} (numpy sees dtype {got.dtype}).")
    if got.shape != want.shape:
        return Verdict(False, f"{name} has the wrong shape: got {tuple(got.shape)}, expected "
                              f"{tuple(want.shape)}." + _shape_hint(got.shape, want.shape))
    got, want = got.astype(np.float64), want.astype(np.float64)
    bad = ~np.isfinite(got) & np.isfinite(want)
    if bad.any():
        idx = np.unravel_index(np.argmax(bad), got.shape) if got.ndim else ()
        return Verdict(False, f"{name} contains {int(bad.sum())} non-finite value(s) (nan or inf), "
                              f"the first at index {_index(idx) if idx else '()'}: "
                              f"got {_fmt(got[idx])}, expected {_fmt(want[idx])}. Look for a "
                              "division by zero, a log of 0, or an exp that overflowed.")
    wrong = ~np.isclose(got, want, rtol=rtol, atol=atol)
    if not wrong.any():
        return Verdict(True, f"correct: {name} matches the expected answer"
                             + (f" (all {got.size} values)." if got.size > 1 else "."))
    err = np.abs(got - want)
    worst = np.unravel_index(np.argmax(np.where(wrong, err, -1.0)), got.shape) if got.ndim else ()
    where = f" at index {_index(worst)}" if got.ndim else ""
    if got.size == 1:
        msg = f"{name} has the wrong value: got {_fmt(got[worst])}, expected {_fmt(want[worst])}."
    else:
        msg = (f"{name} has the right shape but wrong values: {int(wrong.sum())} of {got.size} "
               f"elements differ. The worst{where}: got {_fmt(got[worst])}, expected "
               f"{_fmt(want[worst])}.")
    msg += _diagnose(got, want, rtol, atol, mistakes)
    return Verdict(False, msg)


def _diagnose(got, want, rtol, atol, mistakes):
    """A hint when the wrong answer has a recognizable cause."""
    for hint, wrong_answer in (mistakes or {}).items():
        try:
            if _close(got, _to_numpy(wrong_answer).astype(np.float64), rtol, atol):
                return f" This is a known mistake: {hint}"
        except (TypeError, ValueError):
            continue
    if _close(got, -want, rtol, atol):
        return " Every value has the wrong sign: check a subtraction or a minus sign."
    if _close(got, np.zeros_like(want), rtol, atol):
        return " Your answer is all zeros."
    scale = np.abs(want) > atol
    if scale.any():
        ratio = got[scale] / want[scale]
        c = float(np.median(ratio))
        if c != 0 and np.allclose(got, c * want, rtol=rtol, atol=atol):
            return f" It is the expected answer times {c:.4g}: a constant factor is off."
    wrong = ~np.isclose(got, want, rtol=rtol, atol=atol)
    if wrong.mean() < 0.5:
        return (" Most elements are right: look at what is special about the wrong ones "
                "(e.g. negative inputs, a mask, a boundary).")
    return ""


def check(name, value, expected, *, rtol=1e-5, atol=1e-8, mistakes=None):
    """Compare a student's answer with the expected one and print what is wrong (or right).

    name      how to call the answer in the message, e.g. "grad_x"
    value     the student's answer: None (placeholder), number, list, array or tensor
    expected  the right answer (same kinds)
    rtol/atol tolerances, as in numpy.allclose
    mistakes  optional {hint: wrong_answer}: when the value matches a wrong_answer, the
              hint is printed (e.g. {"forgot the ReLU mask": grad_without_mask})

    Prints one line: "✓ correct: ...", "… not done yet: ..." or "✗ " and the problem found;
    never raises on a wrong answer. Returns a Verdict: truthy when correct (e.g. `assert check(...)`).
    """
    verdict = compare(name, value, expected, rtol=rtol, atol=atol, mistakes=mistakes)
    print(("✓ " if verdict.ok else "… " if value is None or value is Ellipsis else "✗ ")
          + verdict.message)
    return verdict
