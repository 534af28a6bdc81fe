"""Checkers for lecture 04b (attention). The right answer comes from labkit's
F.scaled_dot_product_attention(is_causal=True); `check_*` prints what is wrong (never raises),
`*_ok(fn, hidden=False)` says whether it is right, and with hidden=True also tries other
lengths, widths and seeds, which the student does not see.
"""
import math

from ._support import call, first_failure, not_done, show


def exercise_data(seed=7, t=5, d=4):
    """q, k, v: three float64 tensors of shape (t, d), already projected."""
    import labkit
    labkit.manual_seed(seed)
    return tuple(labkit.randn(t, d, dtype=labkit.float64) for _ in range(3))


def _attend(q, k, v, scale, mask, dim=-1):
    """The variants of attention the known mistakes compute."""
    import labkit
    s = q @ k.T * scale
    j = labkit.arange(q.shape[0])
    if mask == "future":
        s = s.masked_fill(j.unsqueeze(0) > j.unsqueeze(1), float("-inf"))
    elif mask == "past":
        s = s.masked_fill(j.unsqueeze(0) < j.unsqueeze(1), float("-inf"))
    return s.softmax(dim=dim) @ v


def _case(fn, q, k, v):
    import labkit.nn.functional as F
    from . import compare
    got, err = call("causal_attention", fn, q.clone(), k.clone(), v.clone())
    if err is not None:
        return err
    if got is None:
        return not_done("causal_attention")
    d = q.shape[-1]
    right = 1 / math.sqrt(d)
    mistakes = {"no mask: every token still sees the future": _attend(q, k, v, right, None),
                f"the scores are not divided by sqrt(d) = {math.sqrt(d):g}":
                    _attend(q, k, v, 1.0, "future"),
                "the wrong triangle is masked: that hides the past, not the future":
                    _attend(q, k, v, right, "past"),
                "the softmax runs over the queries (dim 0); each row (dim -1) must sum to 1":
                    _attend(q, k, v, right, "future", dim=0)}
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return compare(f"causal_attention(q, k, v) for q, k, v of shape {tuple(q.shape)}", got,
                   want, mistakes=mistakes)


def _verdicts(fn, hidden):
    yield _case(fn, *exercise_data())
    if hidden:
        yield _case(fn, *exercise_data(seed=3, t=8, d=16))
        yield _case(fn, *exercise_data(seed=4, t=1, d=3))


def check_causal_attention(fn):
    """Print whether causal_attention(q, k, v) is causal scaled dot-product attention."""
    return show(first_failure(_verdicts(fn, False)))


def causal_attention_ok(fn, hidden=False):
    return bool(first_failure(_verdicts(fn, hidden)))
