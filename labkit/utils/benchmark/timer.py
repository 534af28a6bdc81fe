"""Timer: torch.utils.benchmark.Timer on labkit.bench's timing core (warm-up, device
synchronization, per-call seconds), adding torch's statement strings, labels, and its ways to
pick how many calls to time."""
import time

from ... import bench
from .common import Measurement, TaskSpec


class Timer:
    """Time `stmt` (Python source) after `setup`, in a namespace made from `globals`.

    label, sub_label, description and env name the measurement (Compare groups tables by
    label, rows by sub_label, columns by description). num_threads is recorded, as torch
    does; labkit's cpu kernels are numpy's, so it does not change their thread count.
    Each clock read waits for queued GPU work first (labkit.bench's synchronization)."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=time.perf_counter,
                 globals=None, label=None, sub_label=None, description=None, env=None,
                 num_threads=1, language="python"):
        if not isinstance(stmt, str):
            raise ValueError("Timer: stmt must be a string of Python source, e.g. "
                             "Timer('f(x)', globals={'f': f, 'x': x}).")
        if language not in ("python", "py"):
            raise ValueError(f"Timer: language {language!r} is not supported (labkit times "
                             "Python only).")
        self._stmt = compile(stmt, "<timeit-src>", "exec")
        self._setup = compile(setup, "<timeit-setup>", "exec")
        self._globals = dict(globals or {})
        self._timer = timer
        self._task_spec = TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup,
                                   label=label, sub_label=sub_label, description=description,
                                   env=env, num_threads=num_threads)

    def _timeit(self, number):
        """Seconds for `number` runs of stmt (setup first, untimed), via labkit.bench."""
        ns = dict(self._globals)
        exec(self._setup, ns)
        stmt = self._stmt
        return bench.timeit(lambda: exec(stmt, ns), warmup=0, repeat=1, number=number,
                            timer=self._timer).times[0] * number

    def timeit(self, number=1000000):
        """One measurement of `number` runs, after max(number // 100, 2) warm-up runs."""
        self._timeit(max(int(number // 100), 2))
        return Measurement(number_per_run=number, raw_times=[self._timeit(number)],
                           task_spec=self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _estimate_block_size(self, min_run_time):
        """Grow the block (x10) until the clock's own overhead is <= 0.01% of a block and a
        block lasts >= min_run_time / 1000 (torch's rule)."""
        overhead = self._overhead()
        number = 1
        while True:
            taken = self._timeit(number)
            if (overhead / taken <= 1e-4 and taken >= min_run_time / 1000) \
                    or taken > min_run_time or number * 10 > 2147483647:
                return number
            number *= 10

    def _overhead(self):
        """The median cost of reading the clock around an empty block."""
        empty = [bench.timeit(lambda: None, warmup=0, repeat=1, timer=self._timer).times[0]
                 for _ in range(5)]
        return sorted(empty)[2]

    def _loop(self, number, stop, min_run_time, max_run_time=None, callback=None):
        total, times, can_stop = 0.0, [], False
        while total < min_run_time or not can_stop:
            spent = self._timeit(number)
            times.append(spent)
            total += spent
            if callback:
                callback(number, spent)
            can_stop = stop(times)
            if max_run_time and total > max_run_time:
                break
        return times

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of a size estimated up front, repeated until min_run_time has passed:
        low overhead per call, and many replicates for the median and IQR."""
        number = self._estimate_block_size(min_run_time)
        times = self._loop(number, lambda times: True, min_run_time, callback=callback)
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """Blocks until IQR / median < threshold (after > 3 blocks and min_run_time), or
        max_run_time has passed."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop(times):
            return len(times) > 3 and Measurement(number, times, self._task_spec) \
                .meets_confidence(threshold)
        times = self._loop(number, stop, min_run_time, max_run_time, callback)
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

