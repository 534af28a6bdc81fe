"""slider_plot: the controls' values reach the figure by name, every change redraws the one
displayed output in place, and the callback is a plain function (no frontend needed)."""
import pytest

pytest.importorskip("ipywidgets")
import ipywidgets as widgets
from matplotlib.figure import Figure

from labkit import viz


class FakeHandle:
    """Stands in for IPython's DisplayHandle: remembers what was shown."""
    def __init__(self, shown):
        self.shown = [shown]

    def update(self, obj):
        self.shown.append(obj)


@pytest.fixture
def shown(monkeypatch):
    """Everything displayed, in order: (object, display_id)."""
    out = []

    def fake_display(obj, display_id=False):
        out.append((obj, display_id))
        return FakeHandle(obj) if display_id else None
    monkeypatch.setattr(viz.widgets, "display", fake_display)
    return out


def test_one_slider_draws_at_its_value_and_redraws_when_it_moves(shown):
    calls = []

    def figure(lr):
        calls.append(lr)
        return f"figure at lr={lr}"
    slider = widgets.FloatLogSlider(value=1e-2, min=-5, max=0, continuous_update=False)
    view = viz.slider_plot(figure, lr=slider)
    assert calls == [1e-2] and view.current == "figure at lr=0.01"
    view._ipython_display_()
    assert [obj for obj, _ in shown] == [slider, "figure at lr=0.01"]
    assert [display_id for _, display_id in shown] == [False, True]
    slider.value = 1e-3                                   # the widget calls on_change
    assert calls == [1e-2, 1e-3]
    assert view.handle.shown == ["figure at lr=0.01", "figure at lr=0.001"]
    assert len(shown) == 2                                # updated in place, not re-displayed


def test_several_controls_pass_their_values_by_name_and_sit_in_one_row(shown):
    def figure(batch_size, shuffle):
        return (batch_size, shuffle)
    size = widgets.IntSlider(value=5, min=1, max=11)
    shuffle = widgets.Checkbox(value=True)
    view = viz.slider_plot(figure, shuffle=shuffle, batch_size=size)
    assert view.values() == {"shuffle": True, "batch_size": 5}
    assert isinstance(view.box, widgets.HBox) and list(view.box.children) == [shuffle, size]
    view._ipython_display_()
    shuffle.value = False
    size.value = 7
    assert view.handle.shown == [(5, True), (5, False), (7, False)]
    view.on_change({"new": 7})                            # callable without a frontend
    assert view.current == (7, False)


def test_a_matplotlib_figure_is_what_is_shown(shown):
    def figure(n):
        fig = Figure(figsize=(2, 2))
        fig.add_subplot().plot(range(n))
        return fig
    view = viz.slider_plot(figure, n=widgets.SelectionSlider(options=[2, 4, 8], value=4))
    view._ipython_display_()
    view.controls["n"].value = 8
    assert isinstance(view.handle.shown[-1], Figure)
    assert len(view.handle.shown[-1].axes[0].lines[0].get_xdata()) == 8


def test_sliders_without_a_width_get_the_course_layout_and_others_keep_theirs():
    plain = widgets.IntSlider(value=1, min=0, max=3)
    narrow = widgets.IntSlider(value=1, min=0, max=3, layout=widgets.Layout(width="200px"))
    box = widgets.Checkbox(value=True)
    viz.slider_plot(lambda a, b, c: None, a=plain, b=narrow, c=box)
    assert (plain.layout.width, plain.layout.max_width) == ("100%", "480px")
    assert plain.style.description_width == "initial"
    assert narrow.layout.width == "200px" and narrow.layout.max_width is None
    assert box.layout.width is None


def test_a_figure_needs_controls_that_are_widgets():
    with pytest.raises(TypeError, match="at least one control"):
        viz.slider_plot(lambda: None)
    with pytest.raises(TypeError, match="control 'lr' must be an ipywidgets widget"):
        viz.slider_plot(lambda lr: None, lr=0.1)
