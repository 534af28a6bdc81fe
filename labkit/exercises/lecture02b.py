"""Checkers for lecture 02b (tensor internals): strides predicted by hand, compared with what
labkit's tensors report (tests/test_lecture_exercises.py checks those against PyTorch)."""
from . import Verdict
from ._support import call, first_failure, not_done, show

# Exercise 1: the strides of a contiguous tensor

_SHAPES = [(3, 4)]
_HIDDEN_SHAPES = [(2, 3, 4), (5,), (), (7, 1, 2), (1, 1), (2, 3, 1, 5)]


def _contiguous_verdicts(fn, hidden):
    import labkit
    for shape in _SHAPES + (_HIDDEN_SHAPES if hidden else []):
        got, err = call("contiguous_strides", fn, shape)
        if err is not None:
            yield err
            return
        if got is None:
            yield not_done("contiguous_strides")
            return
        want = labkit.zeros(shape).stride()
        try:
            ok = tuple(int(s) for s in got) == want
        except (TypeError, ValueError):
            ok = False
        if not ok:
            hint = (" The strides run the wrong way: the LAST dimension has stride 1."
                    if list(got) == list(want[::-1]) and want != want[::-1] else "")
            yield Verdict(False, f"contiguous_strides({shape}) returned {got!r}, expected "
                                 f"{want}.{hint}")
            return
    yield Verdict(True, "correct: contiguous_strides gives labkit's (and PyTorch's) strides.")


def check_contiguous_strides(fn):
    return show(first_failure(_contiguous_verdicts(fn, False)))


def contiguous_strides_ok(fn, hidden=False):
    return bool(first_failure(_contiguous_verdicts(fn, hidden)))


# Exercise 2: predict the strides of views of x = arange(24.).reshape(2, 3, 4)

#: the expressions of exercise 2; `x` is labkit.arange(24.).reshape(2, 3, 4), strides (12, 4, 1)
EXPRESSIONS = ("x.transpose(0, 2)", "x[:, 1]", "x[..., ::2]",
               "x[1:, :, 1:3]", "x.unsqueeze(1)", "x[0].expand(5, 3, 4)",
               "x.permute(2, 0, 1).contiguous()")


def actual_strides(lib):
    """{expression: strides} computed by `lib` (labkit, or torch in the tests)."""
    x = lib.arange(24.0).reshape(2, 3, 4)
    return {e: tuple(eval(e, {"x": x}).stride()) for e in EXPRESSIONS}  # noqa: S307 (our own)


def _predicted_verdicts(predicted, hidden):
    import labkit
    if not isinstance(predicted, dict) or set(predicted) != set(EXPRESSIONS):
        yield Verdict(False, "`predicted` should be a dict with one entry per expression: "
                             f"{list(EXPRESSIONS)}.")
        return
    actual = actual_strides(labkit)
    for e in EXPRESSIONS:
        p = predicted[e]
        if p is None:
            yield not_done(f"predicted[{e!r}]")
            return
        if hidden and not (isinstance(p, tuple) and all(isinstance(s, int) for s in p)):
            yield Verdict(False, f"predicted[{e!r}] should be a tuple of ints, as .stride() "
                                 f"returns (got {p!r}).")
            return
        if tuple(p) != actual[e]:
            yield Verdict(False, f"predicted[{e!r}] is {tuple(p)}, but its strides are "
                                 f"{actual[e]}. Look at the picture of memory: how far does "
                                 "one step along each dimension move?")
            return
    yield Verdict(True, f"correct: all {len(EXPRESSIONS)} predictions match.")


def check_predicted_strides(predicted):
    return show(first_failure(_predicted_verdicts(predicted, False)))


def predicted_strides_ok(predicted, hidden=False):
    return bool(first_failure(_predicted_verdicts(predicted, hidden)))
