"""labkit.utils.benchmark against torch.utils.benchmark: the same Measurement statistics and
printing, and the same Compare tables, for the same raw times (timings themselves vary, so
the printing tests feed both the same numbers; Timer's own runs are checked for structure)."""
import random

import pytest

import labkit as lk
from labkit.utils import benchmark as lb

torch = pytest.importorskip("torch")
tb = pytest.importorskip("torch.utils.benchmark")


def _pair(raw, number=10, **spec):
    spec.setdefault("stmt", "x + y")
    spec.setdefault("setup", "pass")
    return (lb.Measurement(number, list(raw), lb.TaskSpec(**spec)),
            tb.Measurement(number, list(raw), tb.utils.common.TaskSpec(**spec)))


def _body(m):
    return repr(m).split("\n", 1)[1]          # the first line names the object's address


RAWS = [[1.5e-5], [2e-6, 3e-6], [1e-3, 1.1e-3, 1.05e-3, 0.9e-3, 1.2e-3],
        [4e-7] * 3 + [9e-7] * 5, [2.5, 2.6, 2.4, 7.0], [3e-8, 3.1e-8, 2.9e-8, 3e-8, 3.2e-8]]


@pytest.mark.parametrize("raw", RAWS)
@pytest.mark.parametrize("spec", [dict(), dict(label="add", sub_label="float",
                                               description="n=4"),
                                  dict(stmt="a = 1\nb = a + 1", setup="import math\nx = 1",
                                       num_threads=4),
                                  dict(stmt="f()", sub_label="small", setup="x = 1")])
def test_measurement_statistics_and_repr_like_torch(raw, spec):
    m, tm = _pair(raw, **spec)
    for attr in ("median", "mean", "iqr"):
        assert getattr(m, attr) == pytest.approx(getattr(tm, attr), rel=1e-12), attr
    for attr in ("significant_figures", "has_warnings", "times", "title", "as_row_name", "env"):
        assert getattr(m, attr) == getattr(tm, attr), attr
    assert m.meets_confidence(0.05) == tm.meets_confidence(0.05)
    assert _body(m) == _body(tm)
    assert repr(m).startswith("<labkit.utils.benchmark.common.Measurement object at")


def test_merge_pools_replicates_like_torch():
    a, ta = _pair([1e-3, 2e-3], number=2, label="L")
    b, tb_ = _pair([3e-3], number=1, label="L")
    c, tc = _pair([5e-3], number=1, label="M")
    merged, tmerged = lb.Measurement.merge([a, b, c]), tb.Measurement.merge([ta, tb_, tc])
    assert [m.times for m in merged] == [m.times for m in tmerged]
    assert [m.number_per_run for m in merged] == [m.number_per_run for m in tmerged] == [1, 1]


def _grid(seed, labels=("matmul", "add"), rows=("float", "double"), cols=("n=1", "n=64"),
          threads=(1,), envs=(None,), skip=()):
    rng = random.Random(seed)
    out = []
    for label in labels:
        for t in threads:
            for env in envs:
                for r in rows:
                    for c in cols:
                        if (label, r, c) in skip:
                            continue
                        scale = 10 ** rng.uniform(-7, -1)
                        raw = [scale * rng.uniform(0.7, 1.6) for _ in range(rng.choice([1, 3, 8]))]
                        out.append(_pair(raw, number=rng.choice([1, 10, 100]), label=label,
                                         sub_label=r, description=c, num_threads=t, env=env,
                                         stmt=f"{label}(x)"))
    return [m for m, _ in out], [tm for _, tm in out]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("setting", ["plain", "trim", "colour", "rowwise", "warnings", "all"])
@pytest.mark.parametrize("shape", ["grid", "threads_envs", "holes"])
def test_compare_prints_like_torch(seed, setting, shape):
    kwargs = {"grid": {}, "threads_envs": dict(threads=(1, 4), envs=("A", "Bee")),
              "holes": dict(skip={("matmul", "float", "n=64"), ("add", "double", "n=1")})}[shape]
    ms, tms = _grid(seed, **kwargs)
    c, tc = lb.Compare(ms), tb.Compare(tms)
    for obj in (c, tc):
        if setting in ("trim", "all"):
            obj.trim_significant_figures()
        if setting in ("colour", "all"):
            obj.colorize()
        if setting == "rowwise":
            obj.colorize(rowwise=True)
        if setting in ("warnings", "all"):
            obj.highlight_warnings()
    assert str(c) == str(tc)
    assert "[" in str(c) and "Times are in" in str(c)


def test_compare_html_keeps_the_table_and_colours():
    ms, _ = _grid(0)
    c = lb.Compare(ms)
    c.colorize()
    page = c._repr_html_()
    assert page.startswith("<pre>") and page.endswith("</pre>") and "\033" not in page
    assert '<span style="color:#1a9f1a">' in page and "Times are in" in page
    assert page.count("<span") == page.count("</span>")


def test_compare_refuses_what_torch_refuses():
    with pytest.raises(ValueError, match="Measurement"):
        lb.Compare([1.0])
    with pytest.raises(ValueError):
        tb.Compare([1.0])


def test_timer_measures_like_torch():
    x = lk.randn(32, 32)
    fake = iter(range(10**9))                 # a clock that ticks 1 s per read: exact numbers
    t = lb.Timer("x @ x", globals={"x": x}, label="matmul", sub_label="32",
                 description="cpu", num_threads=2, timer=lambda: float(next(fake)))
    m = t.timeit(100)
    assert (m.number_per_run, len(m.raw_times), m.raw_times[0]) == (100, 1, 1.0)
    assert m.median == pytest.approx(0.01) and m.task_spec.num_threads == 2
    tt = tb.Timer("x @ x", globals={"x": torch.randn(32, 32)}, label="matmul", sub_label="32",
                  description="cpu", num_threads=2)
    tm = tt.timeit(100)
    assert (tm.number_per_run, len(tm.raw_times)) == (100, 1)
    assert _body(m).splitlines()[0] == _body(tm).splitlines()[0] == "matmul: 32"
    b = t.blocked_autorange(min_run_time=0.001)     # fake clock: 1 s per block of 1 call
    assert (b.number_per_run, b.raw_times) == (1, [1.0])


def test_blocked_and_adaptive_autorange_on_the_real_clock():
    t = lb.Timer("y = x + 1", setup="x = 3", label="add", description="int")
    m = t.blocked_autorange(min_run_time=0.02)
    assert sum(m.raw_times) >= 0.02 and m.number_per_run >= 1 and m.median > 0
    calls = []
    m2 = t.adaptive_autorange(min_run_time=0.01, max_run_time=0.2,
                              callback=lambda n, s: calls.append((n, s)))
    assert len(m2.raw_times) == len(calls) >= 4 or sum(m2.raw_times) > 0.2
    assert all(n == m2.number_per_run for n, _ in calls)
    assert "add" in str(lb.Compare([m, m2]))  # replicates of one task merge into one cell


def test_timer_errors():
    with pytest.raises(ValueError, match="string"):
        lb.Timer(lambda: None)
    with pytest.raises(SyntaxError):
        lb.Timer("x +")
    with pytest.raises(NotImplementedError):
        lb.Timer("pass").repeat()
