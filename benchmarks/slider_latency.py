"""How long a student waits after moving a slider: every control in every lecture, timed.

    PYTHONPATH=$PWD python benchmarks/slider_latency.py [--positions 10] [lecture ...]

Each lecture runs top to bottom in a fresh kernel (nbclient), as Run All does. Then, in that
kernel, every control the lecture made (sliders, play buttons, checkboxes, drop-downs: found in
ipywidgets' registry of live widgets) is set to `positions` values across its range, ends
included, one at a time, the way the browser's comm message sets it: the time is from the value
change to the return of its callbacks, which includes the figure rendered to PNG/SVG and the
display update sent to the browser. Only the kernel's share is timed (the browser decoding one
image adds a few ms). A play button is timed as what it drives: the slider it is linked to, frame
by frame. Each position is visited once, in order from one end, and before each control the
pictures that labkit's sliders keep are put back as Run All left them (what precompute() made
stays; what an earlier control's sweep drew goes), so every figure is a first visit unless the
lecture drew it in advance. The machine is shared: each lecture's line gives the load average
and the time of one reference matplotlib render in the same kernel, to scale the figures by.

Goals (issue 21, 2 cores): median <= 150 ms and worst <= 500 ms per control.
"""
import argparse
import json
import os
import statistics
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEDIAN_GOAL_MS, WORST_GOAL_MS = 150, 500
MARK = "SLIDER_LATENCY_JSON "

# The kinds of widget a student changes; progress bars, labels, boxes and links are not.
CONTROLS = ("Play", "Checkbox", "ToggleButton", "ToggleButtons", "Dropdown", "RadioButtons",
            "Select", "SelectMultiple")


# ---- kernel side: run inside the lecture's kernel after its last cell ----------------------

def live_controls():
    """(widget, play-or-None) for every control alive in this kernel, in creation order."""
    from ipywidgets.widgets import widget
    alive = list(widget._instances.values())
    links = [w for w in alive if type(w).__name__ in ("Link", "DirectionalLink")]
    found = []
    for w in alive:
        kind = type(w).__name__
        if kind == "Play":
            partners = [end[0] for link in links for end in (link.source, link.target)
                        if w in (link.source[0], link.target[0]) and end[0] is not w]
            found.append((partners[0] if partners else w, w))
        elif kind.endswith("Slider") or kind in CONTROLS:
            found.append((w, None))
    return found


def callbacks(w):
    """The user callbacks on w.value (traitlets' own handlers left out)."""
    from traitlets.traitlets import ObserveHandler
    names = ("value", "index") if hasattr(w, "index") else ("value",)
    return [h for name in names for h in w._trait_notifiers.get(name, {}).get("change", [])
            if not isinstance(h, ObserveHandler)]


def callback_name(w):
    """What a slider drives, in words: slider_plot(<figure function>), FrameSlider(<frame>)..."""
    names = []
    for h in callbacks(w):
        owner = getattr(h, "__self__", None)
        kind = type(owner).__name__ if owner is not None else None
        if kind == "SliderPlot":
            names.append(f"slider_plot({owner.figure.__qualname__})")
        elif kind == "FrameSlider":
            names.append(f"FrameSlider({getattr(owner.frame, '__qualname__', '?')})")
        else:
            names.append(getattr(h, "__qualname__", type(h).__name__))
    return ", ".join(names) or "(no callback)"


def positions(w, n, play=False):
    """The values to visit: n across the range, ends included (every frame for a play button)."""
    import numpy as np
    kind = type(w).__name__
    if hasattr(w, "options") and hasattr(w, "index") and not isinstance(w.index, tuple):
        count = len(w.options)
        picks = range(count) if play else np.unique(np.linspace(0, count - 1, n).round())
        return [("index", int(i)) for i in picks]
    if kind in ("Checkbox", "ToggleButton"):
        return [("value", not w.value), ("value", w.value)]
    lo, hi = w.min, w.max
    if kind.startswith("Int"):
        step = w.step or 1
        picks = range(lo, hi + 1, step) if play else np.unique(
            (lo + np.round((np.linspace(lo, hi, n) - lo) / step) * step).astype(int))
        return [("value", int(v)) for v in picks]
    step = w.step or (hi - lo) / (n - 1)
    grid = np.unique(lo + np.round((np.linspace(lo, hi, n) - lo) / step) * step)
    grid = np.clip(grid, lo, hi)
    if kind.endswith("LogSlider"):
        return [("value", float(w.base ** e)) for e in grid]
    return [("value", float(v)) for v in grid]


class _Published:
    """Counts what the kernel sends to the browser (display data and updates) while it runs."""

    def __init__(self, shell):
        self.pub, self.sent = shell.display_pub, []

    def __enter__(self):
        self._publish = self.pub.publish

        def publish(data, *args, **kwargs):
            self.sent.append(hash(tuple(sorted((k, str(v)) for k, v in data.items()))))
            return self._publish(data, *args, **kwargs)
        self.pub.publish = publish
        return self

    def __exit__(self, *exc):
        self.pub.publish = self._publish
        return False


def drive(w, play, n):
    """Visit the positions; one record per value change: ms, outputs sent, output changed."""
    from IPython import get_ipython
    shell = get_ipython()
    attr0 = "index" if hasattr(w, "index") and not isinstance(w.index, tuple) else "value"
    start = getattr(w, attr0)
    steps, last = [], None
    for attr, v in positions(w, n, play=play is not None):
        if getattr(w, attr) == v:
            continue
        with _Published(shell) as out:
            t0 = time.perf_counter()
            setattr(w, attr, v)
            ms = (time.perf_counter() - t0) * 1e3
        shown = out.sent[-1] if out.sent else None
        steps.append({"to": v, "ms": ms, "sent": len(out.sent),
                      "changed": shown is not None and shown != last})
        last = shown if shown is not None else last
    with _Published(shell):
        setattr(w, attr0, start)       # leave the lecture as it was (not timed)
    return steps


def kept_pictures():
    """The Drawn caches of labkit's sliders, with the keys each holds now."""
    import gc
    try:
        from labkit.viz.widgets import Drawn
    except ImportError:         # a checkout from before sliders kept their pictures
        return []
    return [(d, list(d.kept)) for d in gc.get_objects() if isinstance(d, Drawn)]


def reference_render_ms(repeat=3):
    """One small matplotlib figure rendered to PNG as the kernel sends it: a load gauge."""
    import numpy as np
    from IPython import get_ipython
    from matplotlib.figure import Figure
    times = []
    for k in range(repeat):
        t0 = time.perf_counter()
        fig = Figure(figsize=(6, 3.2))
        ax = fig.add_subplot()
        ax.plot(np.linspace(0, 1, 100) ** (k + 1), label="reference")
        ax.legend()
        fig.tight_layout()
        get_ipython().display_formatter.format(fig)
        times.append((time.perf_counter() - t0) * 1e3)
    return sorted(times)[len(times) // 2]


def drive_all(n=10):
    rows = []
    kept = kept_pictures()
    gauge = reference_render_ms()
    for w, play in live_controls():
        for drawn, keys in kept:
            for key in [k for k in drawn.kept if k not in keys]:
                del drawn.kept[key]
        label = (play.description or "play") + " -> " if play is not None else ""
        label += w.description or type(w).__name__
        rows.append({"control": label, "kind": "Play" if play else type(w).__name__,
                     "callback": callback_name(w), "steps": drive(w, play, n)})
    print(MARK + json.dumps({"rows": rows, "reference_ms": gauge,
                             "load": os.getloadavg()[0]}))


# ---- driver side -------------------------------------------------------------------------

def run_lecture(path, n, timeout=600, repo=REPO):
    """Run the lecture in a fresh kernel (importing labkit from `repo`), then drive its
    controls; returns the rows."""
    import nbformat
    from nbclient import NotebookClient
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(
        "import importlib.util as _u\n"
        f"_s = _u.spec_from_file_location('slider_latency', {os.path.abspath(__file__)!r})\n"
        "_m = _u.module_from_spec(_s); _s.loader.exec_module(_m)\n"
        f"_m.drive_all({n})"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [repo, os.environ.get("PYTHONPATH")])))
    os.environ.update(env)    # the kernel inherits this process's environment
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(path)}})
    client.execute()
    for output in nb.cells[-1].outputs:
        if output.get("name") == "stdout" and MARK in output.text:
            return json.loads(output.text.split(MARK, 1)[1])
    raise RuntimeError(f"{path}: the slider driver printed nothing: {nb.cells[-1].outputs}")


def summarize(lecture, result):
    out = []
    for row in result["rows"]:
        ms = [s["ms"] for s in row["steps"]]
        if not ms:
            continue
        med, worst = statistics.median(ms), max(ms)
        ok = med <= MEDIAN_GOAL_MS and worst <= WORST_GOAL_MS
        out.append({"lecture": lecture, "control": row["control"], "callback": row["callback"],
                    "n": len(ms), "median_ms": med, "worst_ms": worst,
                    "changed": sum(s["changed"] for s in row["steps"]),
                    "verdict": "pass" if ok else "FAIL"})
    return out


def print_table(table):
    head = (f"{'lecture':<34} {'control':<30} {'n':>3} {'median ms':>10} {'worst ms':>9} "
            f"{'changed':>8}  goal   callback")
    print(head)
    print("-" * len(head))
    for r in table:
        print(f"{r['lecture']:<34} {r['control'][:30]:<30} {r['n']:>3} {r['median_ms']:>10.1f} "
              f"{r['worst_ms']:>9.1f} {r['changed']:>5}/{r['n']:<2}  {r['verdict']:<5}  "
              f"{r['callback']}")
    fails = sum(r["verdict"] != "pass" for r in table)
    print(f"\n{len(table)} controls, {len(table) - fails} meet the goals "
          f"(median <= {MEDIAN_GOAL_MS} ms, worst <= {WORST_GOAL_MS} ms), {fails} miss them.")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("lectures", nargs="*", help="lecture names (default: all)")
    parser.add_argument("--positions", type=int, default=10, help="values per control")
    parser.add_argument("--json", help="also write the table here")
    parser.add_argument("--repo", default=REPO,
                        help="the checkout whose lectures and labkit to measure (default: this "
                             "one), e.g. another worktree, for a before/after comparison")
    args = parser.parse_args()
    lectures = os.path.join(args.repo, "course", "lectures")
    names = sorted(f[:-6] for f in os.listdir(lectures) if f.endswith(".ipynb"))
    chosen = [n for n in names if not args.lectures or any(a in n for a in args.lectures)]
    print(f"slider latency: {args.repo}, {len(chosen)} lectures, "
          f"{args.positions} positions per control, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}\n", flush=True)
    table = []
    for name in chosen:
        t0 = time.perf_counter()
        rows = run_lecture(os.path.join(lectures, name + ".ipynb"), args.positions,
                           repo=os.path.abspath(args.repo))
        table += summarize(name, rows)
        print(f"  {name}: {len(rows['rows'])} controls, reference render "
              f"{rows['reference_ms']:.0f} ms, load average {rows['load']:.1f} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    print_table(table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
