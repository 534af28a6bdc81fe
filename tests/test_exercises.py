"""labkit.exercises.check: right answers pass; each kind of wrong answer gets its own message."""
import subprocess
import sys

import numpy as np
import pytest

import labkit
from labkit.exercises import Verdict, check, compare

EXPECTED = np.arange(12, dtype=np.float64).reshape(3, 4) - 5.5


def test_right_answer_passes_and_prints_correct(capsys):
    v = check("grad_x", EXPECTED.copy(), EXPECTED)
    out = capsys.readouterr().out
    assert v and isinstance(v, Verdict) and v.ok
    assert out.startswith("✓ correct: grad_x")
    assert out.count("\n") == 1


def test_within_tolerance_passes():
    assert compare("g", EXPECTED + 1e-9, EXPECTED)
    assert compare("g", EXPECTED.astype(np.float32), EXPECTED)  # float32 rounding is fine
    assert not compare("g", EXPECTED + 1e-3, EXPECTED)


@pytest.mark.parametrize("placeholder", [None, ...])
def test_placeholder_says_not_done_yet_without_raising(capsys, placeholder):
    v = check("grad_x", placeholder, EXPECTED)
    out = capsys.readouterr().out
    assert not v
    assert "not done yet" in out and "`grad_x`" in out


def test_wrong_shape_names_both_shapes(capsys):
    v = check("grad_w", np.zeros((2, 6)), EXPECTED)
    out = capsys.readouterr().out
    assert not v
    assert "wrong shape" in out and "(2, 6)" in out and "(3, 4)" in out


def test_transposed_shape_hints_at_transpose():
    v = compare("grad_w", EXPECTED.T, EXPECTED)
    assert not v and "transpose" in v.message and "(4, 3)" in v.message


def test_scalar_expected_hints_at_sum():
    v = compare("loss", np.ones(3), np.float64(3.0))
    assert "wrong shape" in v.message and ".sum()" in v.message


def test_broadcast_shape_hint():
    v = compare("grad_b", np.ones((3, 4)), np.ones(4))
    assert "wrong shape" in v.message and "sum over the dimensions" in v.message


def test_wrong_values_reports_worst_element():
    got = EXPECTED.copy()
    got[1, 2] += 0.5
    got[2, 3] += 4.0                       # the worst one
    v = compare("grad_x", got, EXPECTED)
    assert not v
    assert "wrong values" in v.message and "2 of 12" in v.message
    assert "index (2, 3)" in v.message
    assert "got 9.5" in v.message and "expected 5.5" in v.message
    assert "Most elements are right" in v.message


def test_known_mistake_is_named():
    forgot_mask = EXPECTED * 2
    v = compare("grad_h", forgot_mask, EXPECTED,
                mistakes={"forgot the ReLU mask grad_h[h < 0] = 0": forgot_mask})
    assert "known mistake: forgot the ReLU mask" in v.message


def test_sign_flip_and_constant_factor_are_recognized():
    assert "wrong sign" in compare("g", -EXPECTED, EXPECTED).message
    assert "times 2" in compare("g", 2 * EXPECTED, EXPECTED).message
    assert "all zeros" in compare("g", np.zeros_like(EXPECTED), EXPECTED).message


def test_nan_is_reported_with_index():
    got = EXPECTED.copy()
    got[0, 1] = np.nan
    v = compare("g", got, EXPECTED)
    assert not v and "non-finite" in v.message and "(0, 1)" in v.message


def test_not_numbers():
    v = compare("g", "a string", EXPECTED)
    assert not v and "expected numbers" in v.message


def test_accepts_labkit_tensors_and_lists():
    t = labkit.tensor(EXPECTED, dtype=labkit.float64, requires_grad=True)
    assert compare("g", t, EXPECTED)
    assert compare("g", EXPECTED.tolist(), t)
    assert compare("s", 3.0, labkit.tensor(3.0))
    v = compare("s", 2.0, 3.0)
    assert not v and "got 2, expected 3" in v.message


def test_verdict_does_not_display_twice_in_ipython():
    v = compare("g", EXPECTED, EXPECTED)
    assert v._ipython_display_() is None
    assert "ok=True" in repr(v)


def test_importing_labkit_does_not_import_plotting_or_jupyter():
    code = ("import sys, labkit, labkit.exercises; "
            "bad = [m for m in ('matplotlib', 'IPython', 'ipywidgets') if m in sys.modules]; "
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
