"""labkit.bench: timing done right.

A GPU call returns as soon as its work is queued, and the first calls of anything pay one-off
costs (loading kernels, allocating memory, warming caches). So a correct timing
1. warms up: runs the function a few times untimed;
2. synchronizes the device before reading the clock, so the clock sees the work, not the queueing;
3. repeats, and reports the median (robust to the odd slow run), with min and max for the spread.
timeit(fn, sync=False) skips step 2 on purpose, to show the wrong number that gives.

Results print as a line, tables of them print and plot (`Table.plot`), and both save as JSON.
"""
import json
import statistics
import time

from . import cuda
from ._io import atomic_write
from .engine.device import Device


class Timing:
    """One function's timing: seconds per call for each repeat, and what they mean."""

    def __init__(self, times, *, label="", device="cpu", flops=None, nbytes=None, sync=True,
                 warmup=0):
        self.times = list(times)
        self.label, self.device, self.sync, self.warmup = label, str(device), sync, warmup
        self.flops, self.nbytes = flops, nbytes

    @property
    def min(self):
        return min(self.times)

    @property
    def median(self):
        return statistics.median(self.times)

    @property
    def max(self):
        return max(self.times)

    @property
    def flops_per_s(self):
        """Floating-point operations per second at the median time (None without flops=)."""
        return None if self.flops is None else self.flops / self.median

    @property
    def bytes_per_s(self):
        """Bytes moved per second at the median time (None without nbytes=)."""
        return None if self.nbytes is None else self.nbytes / self.median

    def row(self):
        """This timing as a dict of plain numbers (a Table row; JSON-ready)."""
        r = {"label": self.label, "device": self.device, "sync": self.sync,
             "median_ms": self.median * 1e3, "min_ms": self.min * 1e3, "max_ms": self.max * 1e3,
             "repeat": len(self.times)}
        if self.flops is not None:
            r["gflops"] = self.flops_per_s / 1e9
        if self.nbytes is not None:
            r["gb_per_s"] = self.bytes_per_s / 1e9
        return r

    def __repr__(self):
        rate = ""
        if self.flops is not None:
            rate += f", {self.flops_per_s / 1e9:,.1f} GFLOP/s"
        if self.nbytes is not None:
            rate += f", {self.bytes_per_s / 1e9:,.2f} GB/s"
        what = f"{self.label}, " if self.label else ""
        unsynced = ", NOT synchronized" if not self.sync else ""
        return (f"Timing({what}{self.device}{unsynced}: median {_fmt(self.median)} "
                f"[min {_fmt(self.min)}, max {_fmt(self.max)}] over {len(self.times)} runs{rate})")


def _fmt(seconds):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def _sync_target(device):
    """What to synchronize: None (nothing, a cpu) or a cuda device name."""
    if device is None:     # unknown: wait for every GPU there is, as torch.utils.benchmark does
        return "cuda" if cuda.is_available() else None
    dev = Device(device)
    if dev.type == "cuda":
        dev.xp             # a clear error when no GPU is usable
        return str(dev)
    return None


def timeit(fn, *, warmup=3, repeat=10, number=1, device=None, sync=True, flops=None,
           nbytes=None, label="", timer=time.perf_counter):
    """Time `fn()`: `warmup` untimed calls, then `repeat` measurements of `number` calls each.

    device   where fn's work runs: 'cpu', 'cuda', 'cuda:1'. None waits for every GPU present
             (safe, but the Timing cannot say where the work ran: name the device).
    sync     synchronize the device before each clock read (leave True: False is the mistake
             the lecture shows; the queue is drained once afterwards either way).
    flops    floating-point operations per call (e.g. 2*n**3 for an n x n matmul) -> FLOP/s.
    nbytes   bytes moved per call (e.g. a transfer) -> bytes/s.
    timer    the clock, in seconds (tests pass a fake one).
    Returns a Timing (seconds per call: min, median, max).
    """
    if repeat < 1 or number < 1 or warmup < 0:
        raise ValueError(f"timeit(): need repeat >= 1, number >= 1, warmup >= 0; got "
                         f"repeat={repeat}, number={number}, warmup={warmup}.")
    target = _sync_target(device)

    def wait():
        if target is not None:
            cuda.synchronize(target)

    for _ in range(warmup):
        fn()
    wait()
    times = []
    for _ in range(repeat):
        if sync:
            wait()
        t0 = timer()
        for _ in range(number):
            fn()
        if sync:
            wait()
        times.append((timer() - t0) / number)
    wait()                 # leave no queued work behind to slow down whatever runs next
    where = str(Device(device)) if device is not None else (
        "unspecified, GPUs synced" if target else "cpu")
    return Timing(times, label=label, device=where, flops=flops, nbytes=nbytes,
                  sync=sync, warmup=warmup)


class Table:
    """Rows of results (each a dict: parameters such as size, then a Timing's figures).

    Prints as text, shows as HTML in Jupyter, plots one line per group, saves to JSON with
    metadata (which machine, when, which versions) so a recorded run can be shown elsewhere.
    """

    def __init__(self, rows=(), meta=None):
        self.rows = [dict(r) for r in rows]
        self.meta = dict(meta or {})

    def add(self, timing, **params):
        """Append a Timing (or a plain dict of figures), tagged with parameters like size=512."""
        figures = timing.row() if isinstance(timing, Timing) else dict(timing)
        self.rows.append({**params, **figures})
        return self

    def column(self, name):
        return [r.get(name) for r in self.rows]

    def where(self, **match):
        """The rows whose columns equal the given values, as a new Table."""
        return Table([r for r in self.rows if all(r.get(k) == v for k, v in match.items())],
                     self.meta)

    def _columns(self):
        cols = []
        for r in self.rows:
            cols += [k for k in r if k not in cols]
        return cols

    def _cells(self):
        cols = self._columns()
        return cols, [[_cell(r.get(c)) for c in cols] for r in self.rows]

    def __len__(self):
        return len(self.rows)

    def __repr__(self):
        cols, cells = self._cells()
        widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(cols)]
        lines = ["  ".join(c.rjust(w) for c, w in zip(cols, widths))]
        lines += ["  ".join(x.rjust(w) for x, w in zip(row, widths)) for row in cells]
        return "\n".join(lines)

    def _repr_html_(self):
        import html
        cols, cells = self._cells()
        head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in row) + "</tr>"
                       for row in cells)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def plot(self, x="size", y="gflops", by="label", ax=None, logx=True, logy=True,
             title=None, **line_kw):
        """One line of `y` against `x` per value of column `by`; returns the matplotlib Axes."""
        import matplotlib.pyplot as plt
        if ax is None:
            _, ax = plt.subplots(figsize=(6.4, 4))
        groups = {}
        for r in self.rows:
            if r.get(x) is not None and r.get(y) is not None:
                groups.setdefault(r.get(by), []).append((r[x], r[y]))
        for name, pts in groups.items():
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=str(name),
                    **line_kw)
        ax.set_xscale("log" if logx else "linear")
        ax.set_yscale("log" if logy else "linear")
        ax.set_xlabel(_AXIS.get(x, x))
        ax.set_ylabel(_AXIS.get(y, y))
        if title:
            ax.set_title(title)
        if len(groups) > 1 or None not in groups:
            ax.legend()
        ax.grid(True, which="both", alpha=0.3)
        return ax

    def to_json(self, path):
        """Save rows and metadata as JSON (plain data: loading it runs no code)."""
        text = json.dumps({"meta": self.meta, "rows": self.rows}, indent=1)
        with atomic_write(path, "Table.to_json") as f:   # a crash mid-write keeps the old file
            f.write(text.encode())

    @classmethod
    def read_json(cls, path):
        with open(path) as f:
            data = json.load(f)
        if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
            raise ValueError(f"Table.read_json(): {path} is not a saved labkit.bench.Table "
                             "(expected an object with 'meta' and 'rows').")
        return cls(data["rows"], data.get("meta"))


_AXIS = {"size": "matrix size n (n x n)", "gflops": "GFLOP/s (higher is better)",
         "median_ms": "median time per call (ms)", "gb_per_s": "GB/s (higher is better)",
         "nbytes": "bytes per copy"}


def _cell(v):
    if isinstance(v, float):
        return f"{v:.4g}"
    return "" if v is None else str(v)


__all__ = ["Table", "Timing", "timeit"]
