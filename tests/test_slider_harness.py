"""benchmarks/slider_latency.py finds every kind of control the lectures make (sliders, play
buttons, checkboxes, selection sliders, a plain observe() callback) and drives it: each value
change runs the callback, which sends a new picture. No times are checked, only that."""
import importlib.util
import os

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("nbclient")
import ipywidgets as widgets
from IPython.core.interactiveshell import InteractiveShell
from IPython.display import display
from matplotlib.figure import Figure

from labkit import viz
from labkit.viz.widgets import FrameSlider

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location(
    "slider_latency", os.path.join(REPO, "benchmarks", "slider_latency.py"))
harness = importlib.util.module_from_spec(spec)
spec.loader.exec_module(harness)


def figure(k):
    """A picture that differs for every k in 0..100."""
    fig = Figure(figsize=(2, 1.5))
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, k])
    ax.set_ylim(0, 100)
    return fig


@pytest.fixture
def kernel_like(monkeypatch):
    """An IPython shell, so display() and display handles work as in a kernel (figures sent
    as PNG, as the lectures' inline backend does)."""
    from IPython.core.pylabtools import select_figure_formats
    shell = InteractiveShell.instance()
    select_figure_formats(shell, {"png"})
    monkeypatch.setattr(shell.display_pub, "publish", lambda *a, **k: None)
    return shell


def test_every_kind_of_control_is_found_and_every_move_redraws(kernel_like):
    before = {id(w) for w, _ in harness.live_controls()}
    plot = viz.slider_plot(
        lambda lr, n, on, size: figure(100 * lr + 5 * n + 20 * on + 6 * size),
        lr=widgets.FloatLogSlider(value=0.1, base=10, min=-2, max=0, step=0.5),
        n=widgets.IntSlider(value=1, min=0, max=4),
        on=widgets.Checkbox(value=False),
        size=widgets.SelectionSlider(options=[1, 2, 5], value=2))
    frames = FrameSlider(figure, 0, 3, value=1)
    raw = widgets.FloatSlider(value=0.0, min=-1, max=1, step=0.5, description="raw")
    for shown in (plot, frames):
        shown._ipython_display_()
    handle = display(figure(0), display_id=True)
    raw.observe(lambda change: handle.update(figure(20 * change["new"] + 50)), names="value")

    found = [(w, play) for w, play in harness.live_controls() if id(w) not in before]
    kinds = sorted("Play" if play else type(w).__name__ for w, play in found)
    assert kinds == ["Checkbox", "FloatLogSlider", "FloatSlider", "IntSlider", "IntSlider",
                     "Play", "SelectionSlider"]
    names = {harness.callback_name(w) for w, _ in found}
    assert names == {"slider_plot(test_every_kind_of_control_is_found_and_every_move_redraws"
                     ".<locals>.<lambda>)", "FrameSlider(figure)",
                     "test_every_kind_of_control_is_found_and_every_move_redraws.<locals>"
                     ".<lambda>"}
    for w, play in found:
        start = w.value
        steps = harness.drive(w, play, 3)
        assert steps, f"{type(w).__name__}: no value change"
        assert all(s["sent"] == 1 and s["changed"] for s in steps), (type(w).__name__, steps)
        assert w.value == start                     # left as it was


def test_a_lecture_runs_and_its_slider_is_found_and_driven():
    """The whole path, on the smallest lecture: a fresh kernel, Run All, then the driver."""
    rows = harness.run_lecture(os.path.join(REPO, "course", "lectures", "00_start_here.ipynb"),
                               n=3)
    table = harness.summarize("00_start_here", rows)
    assert [(r["control"], r["callback"], r["n"], r["changed"]) for r in table] == [
        ("a", "slider_plot(tangent_plot)", 3, 3)]


def test_a_figure_redrawn_in_place_sends_a_new_picture_at_every_move(kernel_like):
    """A LiveFigure is one object for every position: each move must still send the picture of
    the new value (not a kept one, nor the same bytes)."""
    fig = Figure(figsize=(2, 1.5))
    ax = fig.add_subplot()
    (line,) = ax.plot([0, 1], [0, 0], animated=True)
    ax.set_ylim(0, 100)
    live = viz.LiveFigure(fig)

    def move(k):
        line.set_ydata([0, k])
        return live
    before = {id(w) for w, _ in harness.live_controls()}
    plot = viz.slider_plot(move, k=widgets.IntSlider(value=0, min=0, max=90, step=10))
    plot._ipython_display_()
    [(w, play)] = [(w, p) for w, p in harness.live_controls() if id(w) not in before]
    steps = harness.drive(w, play, 10)
    assert len(steps) == 9 and all(s["sent"] == 1 and s["changed"] for s in steps)
