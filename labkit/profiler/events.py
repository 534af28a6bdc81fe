"""What the profiler recorded: events, their averages by name, and torch's table layout."""
import collections

# torch.autograd.profiler_util's layout: a name column, then 12-wide right-aligned columns
_WIDTH = 12
_MAX_NAME = 55


class Event:
    """One timed interval: an op's forward ('aten::linear'), a backward node ('AddmmBackward0'),
    a record_function block, a DataLoader batch or an optimizer step. Times in ns."""
    __slots__ = ("name", "start", "end", "cat", "shapes", "mem", "stack", "device_ns",
                 "children", "parent", "tid")

    def __init__(self, name, start, end, cat="cpu_op", shapes=None, mem=0, stack=None, tid=0):
        self.name, self.start, self.end, self.cat = name, start, end, cat
        self.shapes, self.mem, self.stack, self.tid = shapes, mem, stack, tid
        self.device_ns = None
        self.children = []
        self.parent = None

    @property
    def duration(self):
        return self.end - self.start

    @property
    def self_ns(self):
        return self.duration - sum(c.duration for c in self.children)

    @property
    def self_mem(self):
        return self.mem - sum(c.mem for c in self.children)

    @property
    def self_device_ns(self):
        if self.device_ns is None:
            return 0
        return self.device_ns - sum(c.device_ns or 0 for c in self.children)

    def __repr__(self):
        return f"<Event {self.name} {self.duration / 1e3:.1f}us>"


def nest(events):
    """Link each event to the innermost event that encloses it (same thread); returns them
    sorted by start time."""
    events = sorted(events, key=lambda e: (e.tid, e.start, -e.end))
    stack = []
    for e in events:
        e.parent, e.children = None, []
        while stack and (stack[-1].tid != e.tid or stack[-1].end < e.end
                         or stack[-1].end <= e.start):
            stack.pop()
        if stack:
            e.parent = stack[-1]
            stack[-1].children.append(e)
        stack.append(e)
    return sorted(events, key=lambda e: e.start)


class FunctionEventAvg:
    """Totals over every event with the same key (name, and shapes/stack when grouped)."""

    def __init__(self, key, input_shapes="", stack=()):
        self.key, self.input_shapes, self.stack = key, input_shapes, stack
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0        # microseconds, as torch
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.device_time_total = self.self_device_time_total = 0.0

    def add(self, e):
        self.count += 1
        self.cpu_time_total += e.duration / 1e3
        self.self_cpu_time_total += e.self_ns / 1e3
        self.cpu_memory_usage += e.mem
        self.self_cpu_memory_usage += e.self_mem
        self.device_time_total += (e.device_ns or 0) / 1e3
        self.self_device_time_total += e.self_device_ns / 1e3

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(self.count, 1)

    @property
    def device_time(self):
        return self.device_time_total / max(self.count, 1)

    # torch's older spellings
    cuda_time_total = property(lambda self: self.device_time_total)
    self_cuda_time_total = property(lambda self: self.self_device_time_total)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total:.3f}us "
                f"cpu_time={self.cpu_time:.3f}us count={self.count}>")


class EventList(list):
    """The averages (what key_averages() returns): a list with torch's table()."""

    def __init__(self, items, total_self_us, memory, shapes, device, stacks=False):
        super().__init__(items)
        self._total, self._memory, self._shapes = total_self_us, memory, shapes
        self._device, self._stacks = device, stacks
        self._total_device = sum(a.self_device_time_total for a in items)

    def table(self, sort_by=None, row_limit=100, max_name_column_width=_MAX_NAME, header=None,
              top_level_events_only=False):
        return _table(self, sort_by, row_limit, max_name_column_width, header)

    def __str__(self):
        return self.table()


def key_averages(events, memory, shapes, device, group_by_input_shape=False,
                 group_by_stack_n=0):
    if not events:
        raise RuntimeError(
            "profiler: nothing was recorded, so there is no table to make. Run the code to "
            "measure inside `with profile(...) as prof:` (and, with a schedule, call "
            "prof.step() after each step so the active steps are reached).")
    groups = collections.OrderedDict()
    for e in events:
        shapes_s = _shapes(e.shapes) if group_by_input_shape else ""
        stack = tuple((e.stack or ())[:group_by_stack_n]) if group_by_stack_n else ()
        k = (e.name, shapes_s, stack)
        if k not in groups:
            groups[k] = FunctionEventAvg(e.name, shapes_s, stack)
        groups[k].add(e)
    total = sum(e.self_ns for e in events) / 1e3
    return EventList(list(groups.values()), total, memory, group_by_input_shape, device,
                     bool(group_by_stack_n))


def _shapes(shapes):
    return "" if shapes is None else str([list(s) for s in shapes])


def _time(us):
    """torch's _format_time: microseconds as s, ms or us with 3 decimals."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _memory(nbytes):
    """torch's _format_memory."""
    kb, mb, gb = 1024, 1024 ** 2, 1024 ** 3
    if abs(nbytes) >= gb:
        return f"{nbytes / gb:.2f} Gb"
    if abs(nbytes) >= mb:
        return f"{nbytes / mb:.2f} Mb"
    if abs(nbytes) >= kb:
        return f"{nbytes / kb:.2f} Kb"
    return f"{nbytes} b"


def _pct(part, total):
    return f"{100.0 * part / total:.2f}%" if total else "0.00%"


_SORT_KEYS = {"self_cpu_time_total", "cpu_time_total", "cpu_time", "count",
              "cpu_memory_usage", "self_cpu_memory_usage", "self_cuda_time_total",
              "cuda_time_total", "self_device_time_total", "device_time_total", "device_time"}


def _table(averages, sort_by, row_limit, max_name, header):
    rows = list(averages)
    if sort_by is not None:
        if sort_by not in _SORT_KEYS:
            raise ValueError(f"table: sort_by={sort_by!r} is not a column; use one of "
                             f"{sorted(_SORT_KEYS)}.")
        rows.sort(key=lambda a: getattr(a, sort_by), reverse=True)
    if row_limit is not None and row_limit > 0:
        rows = rows[:row_limit]
    name_w = min(max([len(a.key) for a in averages] + [4]) + 4, max_name)
    heads = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if averages._device:
        heads += ["Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"]
    if averages._memory:
        heads += ["CPU Mem", "Self CPU Mem"]
    heads += ["# of Calls"]
    if averages._shapes:
        heads += ["Input Shapes"]
    shape_w = max([len(a.input_shapes) for a in rows] + [12]) + 4 if averages._shapes else 0
    widths = [name_w] + [_WIDTH] * (len(heads) - 1 - bool(averages._shapes)) + \
        ([shape_w] if averages._shapes else [])

    def line(cells):
        return "".join(f"{c:>{w}}  " for c, w in zip(cells, widths)) + "\n"
    sep = "".join("-" * w + "  " for w in widths) + "\n"
    total, total_dev = averages._total, averages._total_device
    out = [] if header is None else [header + "\n"]
    out += [sep, line(heads), sep]
    for a in rows:
        name = a.key if len(a.key) <= max_name - 4 else a.key[:max_name - 7] + "..."
        cells = [name, _pct(a.self_cpu_time_total, total), _time(a.self_cpu_time_total),
                 _pct(a.cpu_time_total, total), _time(a.cpu_time_total), _time(a.cpu_time)]
        if averages._device:
            cells += [_time(a.self_device_time_total),
                      _pct(a.self_device_time_total, total_dev),
                      _time(a.device_time_total), _time(a.device_time)]
        if averages._memory:
            cells += [_memory(a.cpu_memory_usage), _memory(a.self_cpu_memory_usage)]
        cells += [str(a.count)]
        if averages._shapes:
            cells += [a.input_shapes]
        out.append(line(cells))
    out.append(sep)
    out.append(f"Self CPU time total: {_time(total)}\n")
    if averages._device:
        out.append(f"Self CUDA time total: {_time(total_dev)}\n")
    return "".join(out)
