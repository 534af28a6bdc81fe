"""labkit.profiler.profile: what ran, for how long, how often, and with how much memory.

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        train_step()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))
    prof.export_chrome_trace("trace.json")      # open in https://ui.perfetto.dev

Events: each op's forward ('aten::linear'), each backward node ('AddmmBackward0', inside
'autograd::engine::evaluate_function: AddmmBackward0', as torch names them),
record_function blocks, DataLoader batches and optimizer steps. With a schedule, only the
active steps are kept, each inside a 'ProfilerStep#N' event.
"""
import enum
import json
import os
import threading
import time

from .events import Event, key_averages, nest
from . import record as _record
from .instrument import Probes

_clock = time.perf_counter_ns


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0):
    """torch.profiler.schedule: the action for step number k (skip_first steps, then cycles of
    wait, warmup, active steps; repeat cycles, 0 for no limit)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError("schedule: wait, warmup, repeat and skip_first must be >= 0 and "
                         "active > 0.")

    def action(step):
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


def _always(step):
    return ProfilerAction.RECORD


class profile:
    """torch.profiler.profile's arguments and methods (see the module doc)."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None,
                 execution_trace_observer=None, acc_events=False, use_cuda=None):
        activities = set(activities or [ProfilerActivity.CPU])
        bad = [a for a in activities if not isinstance(a, ProfilerActivity)]
        if bad:
            raise ValueError(f"profile: activities must be ProfilerActivity members, got {bad}.")
        self.activities = activities
        self.cuda = ProfilerActivity.CUDA in activities
        if self.cuda:
            from .. import cuda
            if not cuda.is_available():
                import warnings
                warnings.warn("profile: ProfilerActivity.CUDA asked for, but no CUDA GPU is "
                              "usable here: profiling the CPU only.")
                self.cuda = False
        self.schedule = schedule or _always
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.with_stack = with_stack
        self.events = []
        self.device_pending = []
        self.recording = False
        self.step_num = 0
        self._probes = None
        self._step_start = None
        self._kept = []          # events of the last saved (or current) active window
        self._pid = os.getpid()

    # --- lifetime ----------------------------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        if self._probes is not None:
            raise RuntimeError("profile: already started.")
        self._probes = Probes(self)
        self._probes.install()
        self._outer = getattr(_record._active, "profiler", None)
        _record._active.profiler = self
        self.step_num = 0
        self._enter_step()

    def stop(self):
        if self._probes is None:
            return
        action = self.schedule(self.step_num)
        self._end_step()
        self._probes.remove()
        self._probes = None
        _record._active.profiler = self._outer
        self.recording = False
        if action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE) or \
                self.schedule is _always:
            self._save()

    def step(self):
        """Mark the end of one training step (with a schedule: move to the next action)."""
        if self._probes is None:
            raise RuntimeError("profile.step(): the profiler is not running; call it inside "
                               "the `with profile(...)` block.")
        prev = self.schedule(self.step_num)
        self._end_step()
        if prev is ProfilerAction.RECORD_AND_SAVE:
            self._save()
        self.step_num += 1
        self._enter_step()

    def _enter_step(self):
        action = self.schedule(self.step_num)
        self.recording = action in (ProfilerAction.WARMUP, ProfilerAction.RECORD,
                                    ProfilerAction.RECORD_AND_SAVE)
        self._warmup = action is ProfilerAction.WARMUP
        self._step_start = _clock()

    def _end_step(self):
        self._probes.close_node()
        if self.recording and self._warmup:
            self.events = []             # warm-up steps run the probes but are not kept
            self.device_pending = []
        elif self.recording and self.schedule is not _always:
            self.events.append(Event(f"ProfilerStep#{self.step_num}", self._step_start, _clock(),
                                     "user_annotation", tid=self._probes.tid))

    def _save(self):
        if self.device_pending:
            from .. import cuda
            cuda.synchronize()
            for e, a, b in self.device_pending:
                e.device_ns = int(_elapsed_ms(a, b) * 1e6)
            self.device_pending = []
        self._kept = nest(self.events)
        self.events = []
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    # --- results ------------------------------------------------------------------------------
    def events_list(self):
        """Every event kept (the last active window), in start order."""
        return list(self._kept)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        if group_by_input_shape and not self.record_shapes:
            raise RuntimeError("key_averages(group_by_input_shape=True) needs "
                               "profile(record_shapes=True).")
        if group_by_stack_n and not self.with_stack:
            raise RuntimeError("key_averages(group_by_stack_n=...) needs profile(with_stack=True).")
        return key_averages(self._kept, self.profile_memory, group_by_input_shape, self.cuda,
                            group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        """Write the Chrome trace event format (JSON object with traceEvents; complete 'X'
        events with microsecond ts/dur): chrome://tracing and ui.perfetto.dev open it."""
        if not self._kept:
            raise RuntimeError("export_chrome_trace: nothing was recorded (see key_averages).")
        t0 = min(e.start for e in self._kept)
        pid, tids = self._pid, sorted({e.tid for e in self._kept})
        out = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "ts": 0,
                "args": {"name": "python"}}]
        for tid in tids:
            out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "ts": 0,
                        "args": {"name": f"thread {tid} (python)"}})
        for e in self._kept:
            ev = {"ph": "X", "cat": e.cat, "name": e.name, "pid": pid, "tid": e.tid,
                  "ts": (e.start - t0) / 1e3, "dur": e.duration / 1e3, "args": {}}
            if e.shapes is not None:
                ev["args"]["Input Dims"] = [list(s) for s in e.shapes]
            if self.profile_memory:
                ev["args"]["Bytes"] = e.mem
            if e.stack:
                ev["args"]["Call stack"] = ";".join(e.stack)
            out.append(ev)
            if e.device_ns is not None:
                out.append({"ph": "X", "cat": "kernel", "name": e.name, "pid": pid,
                            "tid": "stream 0", "ts": (e.start - t0) / 1e3,
                            "dur": e.device_ns / 1e3, "args": {"device": 0}})
        tmp = f"{path}.tmp{os.getpid()}.{threading.get_ident()}"
        with open(tmp, "w") as f:
            json.dump({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": out}, f)
        os.replace(tmp, path)
        return path


def _elapsed_ms(a, b):
    import cupy
    return cupy.cuda.get_elapsed_time(a, b)
