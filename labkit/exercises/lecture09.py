"""Checkers for lecture 09 (memory, precision and profiling). `check_*` prints what is wrong
(never raises); `*_ok(..., hidden=False)` says whether it is right, and with hidden=True also
tries other inputs, which the student does not see.
"""
import numpy as np

from . import Verdict, compare
from ._support import call as _call, first_failure as _first_failure, not_done as _not_done
from ._support import show as _show


# Exercise 1: the bytes of training state (parameters, gradients, optimizer state)

_STATE = {"sgd": 0, "momentum": 1, "adam": 2}


def _state_verdicts(training_bytes, hidden):
    cases = [(1_000_000, "adam"), (1_000_000, "sgd")]
    if hidden:
        cases += [(7, "momentum"), (123_456_789, "adam"), (0, "adam")]
    for n, opt in cases:
        got, err = _call("training_bytes", training_bytes, n, opt)
        if err is not None or got is None:
            yield err if err is not None else _not_done("training_bytes")
            return
        want = 4 * n * (2 + _STATE[opt])
        yield compare(f"training_bytes({n}, {opt!r})", got, want, mistakes={
            "the gradients are missing: one float32 number per parameter": 4 * n * (1 + _STATE[opt]),
            "that counts elements, not bytes: float32 is 4 bytes each": n * (2 + _STATE[opt]),
            "Adam keeps two buffers per parameter (exp_avg and exp_avg_sq)": 4 * n * 3})


def check_training_bytes(training_bytes):
    return _show(_first_failure(_state_verdicts(training_bytes, False)))


def training_bytes_ok(training_bytes, hidden=False):
    return bool(_first_failure(_state_verdicts(training_bytes, hidden)))


# Exercise 2: the loss scale that lifts a gradient into float16's normal range

def _min_scale(g):
    k = 0
    while abs(float(np.float16(g * 2.0 ** k))) < 2.0 ** -14:
        k += 1
    return 2 ** k


def _scale_verdicts(min_scale, hidden):
    cases = [1e-7, 3e-5]
    if hidden:
        cases += [1e-3, 6.2e-5, 1e-10, -2e-6]
    for g in cases:
        got, err = _call("min_scale", min_scale, g)
        if err is not None or got is None:
            yield err if err is not None else _not_done("min_scale")
            return
        want = _min_scale(g)
        yield compare(f"min_scale({g:g})", got, want, mistakes={
            "one power of two too few: the result must reach 2**-14, float16's smallest "
            "normal number": want / 2,
            "one power of two too many: take the smallest that works": want * 2})


def check_min_scale(min_scale):
    return _show(_first_failure(_scale_verdicts(min_scale, False)))


def min_scale_ok(min_scale, hidden=False):
    return bool(_first_failure(_scale_verdicts(min_scale, hidden)))


# Exercise 3: checkpointing's memory law, and the best number of segments

def _segments_verdicts(peak_activations, best_segments, hidden):
    ns = [16] + ([36, 64, 100] if hidden else [])
    for n in ns:
        ks = [k for k in range(1, n + 1) if n % k == 0]
        got = []
        for k in ks:
            v, err = _call("peak_activations", peak_activations, n, k)
            if err is not None or v is None:
                yield err if err is not None else _not_done("peak_activations")
                return
            got.append(v)
        want = [k + n // k for k in ks]
        yield compare(f"peak_activations({n}, k) for k = {ks}", got, want, mistakes={
            "the k segment inputs kept through the forward pass are missing":
                [n // k for k in ks],
            "during backward only ONE segment's activations are alive at a time, n/k of "
            "them, not all n": [k + n for k in ks]})
        best, err = _call("best_segments", best_segments, n)
        if err is not None or best is None:
            yield err if err is not None else _not_done("best_segments")
            return
        yield compare(f"best_segments({n})", best, ks[int(np.argmin(want))])


def check_segments(peak_activations, best_segments):
    return _show(_first_failure(_segments_verdicts(peak_activations, best_segments, False)))


def segments_ok(peak_activations, best_segments, hidden=False):
    return bool(_first_failure(_segments_verdicts(peak_activations, best_segments, hidden)))
