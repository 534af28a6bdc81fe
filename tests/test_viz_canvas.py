"""LiveFigure and Labels: a figure redrawn in place shows what a fresh full draw of the same
state shows, pixel for pixel; a move really changes the picture; the tight crop is IPython's;
slider_plot keeps no stale picture of a figure that is one object for every position."""
import io

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("PIL")
import ipywidgets as widgets
from matplotlib.figure import Figure
from PIL import Image

from labkit import viz
from labkit.viz.canvas import Labels, LiveFigure


def full_draw(fig):
    """The picture of fig drawn from scratch, animated artists included (what a new figure in
    the same state shows)."""
    moving = [a for a in fig.findobj() if a.get_animated()]
    for a in moving:
        a.set_animated(False)
    fig.canvas.draw()
    picture = np.asarray(fig.canvas.buffer_rgba()).copy()
    for a in moving:
        a.set_animated(True)
    return picture


def make(slope=1.0, labels=None):
    """A figure with fixed parts (a curve, axes, ticks) and moving ones (a curve, a title,
    labels), and its update function."""
    fig = Figure(figsize=(3, 2), dpi=50)
    ax = fig.add_subplot()
    x = np.linspace(0, 1, 20)
    ax.plot(x, x ** 2, color="gray")
    (line,) = ax.plot(x, x, animated=True, zorder=3)
    ax.set_ylim(-3, 3)
    ax.title.set_animated(True)
    digits = Labels(ax, [(0.2, -2), (0.5, -2), (0.8, -2)], fontsize=10, known="01")
    live = LiveFigure(fig)

    def update(a, texts=("0", "1", "0")):
        line.set_ydata(a * x)
        ax.set_title(f"slope {a:g}")
        digits.set_texts(list(texts))
        return live
    update(slope)
    return live, update


def test_a_redraw_in_place_equals_a_fresh_full_draw_of_the_same_state():
    live, update = make()
    first = live.rgba().copy()
    for a, texts in [(2.0, "110"), (-1.5, "0×1"), (0.5, "111")]:
        moved = update(a, texts).rgba().copy()
        assert (moved != first).any()                       # the move changed the picture
        assert np.array_equal(moved, full_draw(live.fig))   # and equals a full draw
        fresh, fresh_update = make(a, texts)                # a new figure at that state
        assert np.array_equal(moved, fresh_update(a, texts).rgba())


def test_two_values_give_two_pictures_and_the_same_value_the_same_picture():
    live, update = make()
    one, two = update(1.0).png(), update(2.0).png()
    assert one != two and update(1.0).png() == one
    picture = Image.open(io.BytesIO(one))
    assert picture.format == "PNG" and picture.size == (150, 100)
    assert live._repr_png_() == one and repr(live) == repr(live.fig)


def test_refresh_draws_a_changed_still_part_again():
    live, update = make()
    before = live.rgba().copy()
    live.fig.axes[0].set_ylim(-1, 1)                         # not animated: kept as drawn...
    stale = live.rgba().copy()
    assert not np.array_equal(stale, full_draw(live.fig))    # (old ticks, new line)
    live.refresh()                                           # ...until refresh()
    after = live.rgba().copy()
    assert not np.array_equal(after, before) and np.array_equal(after, full_draw(live.fig))


def test_tight_cuts_the_margins_as_ipython_shows_the_figure():
    from IPython.core.pylabtools import print_figure
    fig = Figure(figsize=(4, 4), dpi=50)
    ax = fig.add_axes([0.3, 0.3, 0.2, 0.2])
    ax.plot([0, 1], [0, 1], animated=True)
    ax.set_title("title")
    shown = Image.open(io.BytesIO(print_figure(fig, "png", bbox_inches="tight")))
    live = LiveFigure(fig, tight=True)
    height, width, _ = live.rgba().shape
    assert abs(width - shown.size[0]) <= 1 and abs(height - shown.size[1]) <= 1
    assert width < 150 and height < 150                      # 200 x 200 uncut


def test_labels_take_one_text_per_place():
    fig = Figure()
    labels = Labels(fig.add_subplot(), [(0, 0), (1, 0), (2, 0)])
    labels.set_texts(["7", "", "7"])
    assert [tuple(l.get_xdata()) for t, l in labels.lines.items() if t == "7"] == [(0, 2)]
    labels.set_texts(["1", "2", "3"])
    assert len(labels.lines["7"].get_xdata()) == 0          # gone, not left behind
    with pytest.raises(ValueError, match="2 texts for 3 places"):
        labels.set_texts(["1", "2"])


def test_slider_plot_with_a_live_figure_sends_the_picture_of_each_position(monkeypatch):
    monkeypatch.setattr(viz.widgets, "_render", lambda obj, exact=True: ({"image/png": obj.png()}, {}))
    shown, sent = [], []

    class Handle:
        def update(self, data, **kwargs):
            sent.append(data["image/png"])

    def fake_display(obj, display_id=False, **kwargs):
        shown.append(obj)
        return Handle() if display_id else None
    monkeypatch.setattr(viz.widgets, "display", fake_display)
    live, update = make()
    slider = widgets.FloatSlider(value=1.0, min=0, max=2, step=0.5)
    view = viz.slider_plot(update, a=slider)
    slider.value = 2.0                                # moved before it is displayed
    slider.value = 0.5
    view._ipython_display_()                          # shows position 0.5, not a stale one
    assert shown[-1]["image/png"] == make(0.5)[1](0.5).png()
    for a in (1.0, 2.0, 1.0):
        slider.value = a
    assert view.drawn.kept == {}                      # one object for all: nothing kept
    assert sent[0] == sent[2] != sent[1]
    assert sent[1] == make(2.0)[1](2.0).png() and view.current is live


@pytest.fixture
def kernel_shell(monkeypatch):
    """An IPython shell that _render takes for a kernel, figures shown as inline PNG."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.core.pylabtools import select_figure_formats
    shell = InteractiveShell.instance()
    monkeypatch.setattr(shell, "kernel", object(), raising=False)
    select_figure_formats(shell, {"png"})
    yield shell
    select_figure_formats(shell, {"png"})


def decoded(data):
    import base64
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data["image/png"]))).convert("RGB"),
                      dtype=float)


def plot(y):
    fig = Figure(figsize=(4, 3), dpi=60)
    ax = fig.add_subplot()
    ax.plot([1, 2, 3], y, label="a curve")
    ax.set(title="title", xlabel="x", ylabel="y", ylim=(0, 4))
    ax.legend(loc="upper right")
    fig.tight_layout()
    return fig


def test_a_figure_sent_on_a_move_looks_as_ipython_shows_it_in_one_draw(kernel_shell):
    from labkit.viz.widgets import _render
    fig = plot([3, 1, 2])
    (exact, exact_md), (fast, fast_md) = _render(fig), _render(fig, exact=False)
    assert fast.keys() == exact.keys() and fast["text/plain"] == exact["text/plain"]
    assert fast_md == exact_md
    a, b = decoded(exact), decoded(fast)
    assert a.shape == b.shape and a.shape[1] < 240           # cut, as IPython cuts it
    h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    same = np.abs(a[:h, :w] - b[:h, :w]).mean()
    other = decoded(_render(plot([1, 3, 1]), exact=False)[0])[:h, :w]
    assert same < np.abs(other - b[:h, :w]).mean() / 3      # the same picture, to antialiasing


def test_any_other_inline_format_is_rendered_by_ipython_itself(kernel_shell):
    from IPython.core.pylabtools import select_figure_formats
    from labkit.viz.widgets import _render
    fig = Figure(figsize=(2, 2), dpi=40)
    fig.add_subplot().plot([0, 1])
    fig.tight_layout()
    assert _render(fig, exact=False) != _render(fig)         # the one-draw path
    select_figure_formats(kernel_shell, {"png", "svg"})
    assert _render(fig, exact=False)[0].keys() == {"text/plain", "image/png", "image/svg+xml"}
    select_figure_formats(kernel_shell, {"png"}, dpi=80)
    assert _render(fig, exact=False) == _render(fig)
    select_figure_formats(kernel_shell, {"png"})
    fig.axes[0].set_title("a title above the figure's top edge", y=1.5)
    assert _render(fig, exact=False) == _render(fig)
