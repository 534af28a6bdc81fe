"""labkit.bench with a fake clock: which calls are timed, where it synchronizes, the statistics,
and the wrong number an unsynchronized timing of an asynchronous device gives."""
import json

import matplotlib
import pytest

import labkit
from labkit import bench

matplotlib.use("Agg")


class FakeGPU:
    """A clock plus a queue, like a GPU: launch() costs the CPU a little and queues `cost`
    seconds of device work; synchronize() makes the CPU wait until the queue is empty."""
    LAUNCH = 10e-6

    def __init__(self):
        self.now = 0.0        # the CPU's clock
        self.busy_until = 0.0  # when the device finishes its queue
        self.log = []

    def timer(self):
        self.log.append("clock")
        return self.now

    def launch(self, cost):
        self.log.append("launch")
        self.now += self.LAUNCH
        self.busy_until = max(self.busy_until, self.now) + cost

    def synchronize(self, device=None):
        self.log.append("sync")
        self.now = max(self.now, self.busy_until)


@pytest.fixture
def gpu(monkeypatch):
    g = FakeGPU()
    monkeypatch.setattr(labkit.cuda, "is_available", lambda: True)
    monkeypatch.setattr(labkit.cuda, "synchronize", g.synchronize)
    return g


def test_synchronized_timing_sees_the_device_work(gpu):
    t = bench.timeit(lambda: gpu.launch(2e-3), warmup=2, repeat=5, timer=gpu.timer)
    assert t.median == pytest.approx(2e-3 + FakeGPU.LAUNCH)
    assert t.device == "unspecified, GPUs synced" and t.sync


def test_unsynchronized_timing_sees_only_the_launch(gpu):
    t = bench.timeit(lambda: gpu.launch(2e-3), warmup=2, repeat=5, sync=False, timer=gpu.timer)
    assert t.median == pytest.approx(FakeGPU.LAUNCH)      # 200x too fast: the wrong number
    assert "NOT synchronized" in repr(t)
    assert gpu.now >= gpu.busy_until, "the queue must be drained before timeit returns"


def test_warmup_is_not_timed_and_the_clock_is_read_after_a_sync(gpu):
    bench.timeit(lambda: gpu.launch(1e-3), warmup=3, repeat=2, timer=gpu.timer)
    log = gpu.log
    assert log[:4] == ["launch"] * 3 + ["sync"]
    timed = log[4:]
    assert timed == ["sync", "clock", "launch", "sync", "clock"] * 2 + ["sync"]


def test_number_divides_the_time_per_call(gpu):
    t = bench.timeit(lambda: gpu.launch(1e-3), warmup=0, repeat=3, number=4, timer=gpu.timer)
    # four calls queue back to back behind the first launch: (10 us + 4 ms) / 4
    assert t.median == pytest.approx((FakeGPU.LAUNCH + 4e-3) / 4)


def test_min_median_max_and_rates_from_known_durations():
    durations = iter([5e-3, 1e-3, 3e-3, 2e-3, 4e-3])
    clock = {"t": 0.0, "start": True}

    def timer():
        if not clock["start"]:
            clock["t"] += next(durations)
        clock["start"] = not clock["start"]
        return clock["t"]

    t = bench.timeit(lambda: None, warmup=0, repeat=5, device="cpu", flops=6e9, nbytes=3e6,
                     label="mm", timer=timer)
    assert (t.min, t.median, t.max) == pytest.approx((1e-3, 3e-3, 5e-3))
    assert t.flops_per_s == pytest.approx(2e12)
    assert t.bytes_per_s == pytest.approx(1e9)
    row = t.row()
    assert row["gflops"] == pytest.approx(2000) and row["gb_per_s"] == pytest.approx(1.0)
    assert row["median_ms"] == pytest.approx(3.0) and row["label"] == "mm"
    assert "median 3 ms" in repr(t) and "2,000.0 GFLOP/s" in repr(t)


def test_cpu_timing_never_synchronizes(monkeypatch):
    calls = []
    monkeypatch.setattr(labkit.cuda, "synchronize", lambda *a: calls.append(a))
    t = bench.timeit(lambda: sum(range(100)), warmup=1, repeat=3, device="cpu")
    assert calls == [] and t.device == "cpu" and len(t.times) == 3


def test_a_real_function_is_really_timed():
    a = labkit.randn(64, 64)
    t = bench.timeit(lambda: a @ a, repeat=3, device="cpu", flops=2 * 64 ** 3)
    assert 0 < t.min <= t.median <= t.max and t.flops_per_s > 0


@pytest.mark.parametrize("kw, match", [
    ({"repeat": 0}, "repeat >= 1"), ({"number": 0}, "number >= 1"), ({"warmup": -1}, "warmup"),
])
def test_bad_arguments_are_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        bench.timeit(lambda: None, **kw)


def test_timing_on_cuda_without_a_gpu_says_so():
    if labkit.cuda.is_available():
        pytest.skip("a CUDA GPU is present")
    with pytest.raises(RuntimeError, match="no CUDA GPU is usable"):
        bench.timeit(lambda: None, device="cuda")


def _table():
    tab = bench.Table(meta={"machine": "test"})
    for dev, scale in (("cpu", 1.0), ("gpu", 10.0)):
        for n in (64, 128):
            tab.add({"gflops": scale * n, "median_ms": 1.0 / n}, size=n, label=dev)
    return tab


def test_table_columns_filters_and_text():
    tab = _table()
    assert len(tab) == 4 and tab.column("size") == [64, 128, 64, 128]
    assert tab.where(label="gpu").column("gflops") == [640.0, 1280.0]
    text = repr(tab).splitlines()
    assert text[0].split() == ["size", "label", "gflops", "median_ms"] and len(text) == 5
    assert "<th>gflops</th>" in tab._repr_html_() and "<td>1280</td>" in tab._repr_html_()


def test_table_add_takes_a_timing():
    t = bench.Timing([1e-3, 2e-3, 3e-3], label="x", flops=1e6)
    row = bench.Table().add(t, size=8).rows[0]
    assert row["size"] == 8 and row["gflops"] == pytest.approx(0.5) and row["repeat"] == 3


def test_table_json_round_trip_and_bad_files(tmp_path):
    tab = _table()
    path = tmp_path / "t.json"
    tab.to_json(path)
    back = bench.Table.read_json(path)
    assert back.rows == tab.rows and back.meta == {"machine": "test"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([1, 2]))
    with pytest.raises(ValueError, match="not a saved labkit.bench.Table"):
        bench.Table.read_json(bad)


def test_table_plots_one_labelled_line_per_group():
    ax = _table().plot(title="sweep")
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == ["cpu", "gpu"]
    assert list(lines[1].get_ydata()) == [640.0, 1280.0]
    assert ax.get_xlabel() == "matrix size n (n x n)" and "GFLOP/s" in ax.get_ylabel()
    assert ax.get_xscale() == "log" and ax.get_title() == "sweep"
    assert ax.get_legend() is not None
