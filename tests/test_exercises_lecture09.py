"""Lecture 09's checkers: right answers pass (visible and hidden), placeholders say 'not done',
known mistakes are named, and no wrong answer raises."""
import numpy as np

from labkit.exercises import lecture09 as ex


def _bytes(n, opt):
    return 4 * n * (2 + {"sgd": 0, "momentum": 1, "adam": 2}[opt])


def _scale(g):
    k = 0
    while abs(float(np.float16(g * 2.0 ** k))) < 2.0 ** -14:
        k += 1
    return 2 ** k


def test_right_answers_pass_hidden_tests_too():
    assert ex.training_bytes_ok(_bytes, hidden=True)
    assert ex.min_scale_ok(_scale, hidden=True)
    assert ex.segments_ok(lambda n, k: k + n // k, lambda n: int(round(n ** 0.5)), hidden=True)


def test_placeholders_are_not_done(capsys):
    assert not ex.check_training_bytes(lambda n, o: None)
    assert not ex.check_min_scale(None)
    assert not ex.check_segments(lambda n, k: None, None)
    out = capsys.readouterr().out
    assert out.count("not done yet") == 2 and "should be a function" in out


def test_known_mistakes_are_named(capsys):
    assert not ex.check_training_bytes(lambda n, o: n * (2 + {"sgd": 0, "momentum": 1,
                                                              "adam": 2}[o]))
    assert not ex.check_min_scale(lambda g: _scale(g) // 2 or 1)
    assert not ex.check_segments(lambda n, k: n // k, lambda n: 4)
    out = capsys.readouterr().out
    assert "bytes" in out and "2**-14" in out and "segment inputs" in out


def test_errors_in_student_code_are_reported_not_raised(capsys):
    def broken(*args):
        raise ZeroDivisionError("oops")
    assert not ex.check_training_bytes(broken)
    assert not ex.segments_ok(broken, broken, hidden=True)
    assert "raised ZeroDivisionError" in capsys.readouterr().out


def test_visible_right_but_hidden_wrong_loses_points():
    def only_visible(g):
        return 1024 if g == 1e-7 else 4 if g == 3e-5 else 1
    assert ex.min_scale_ok(only_visible) and not ex.min_scale_ok(only_visible, hidden=True)
