"""slider_plot: the controls' values reach the figure by name, every change redraws the one
displayed output in place, and the callback is a plain function (no frontend needed)."""
import pytest

pytest.importorskip("ipywidgets")
import ipywidgets as widgets
from matplotlib.figure import Figure

from labkit import viz
from labkit.viz.widgets import FrameSlider


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


def test_a_position_seen_before_is_shown_again_without_drawing_it_again(shown):
    calls = []

    def figure(n):
        calls.append(n)
        return f"figure {n}"
    slider = widgets.IntSlider(value=1, min=0, max=5)
    view = viz.slider_plot(figure, n=slider)
    view._ipython_display_()
    for n in (2, 3, 2, 1, 3):
        slider.value = n
    assert calls == [1, 2, 3]
    assert view.handle.shown == ["figure 1", "figure 2", "figure 3", "figure 2", "figure 1",
                                 "figure 3"]
    assert view.current == "figure 3"


def test_in_a_kernel_the_rendered_picture_is_kept_and_sent_again_as_is(shown, monkeypatch):
    renders = []

    def render(obj, exact=True):
        renders.append(obj)
        return {"text/plain": obj}, {"n": len(renders)}
    monkeypatch.setattr(viz.widgets, "_render", render)
    sent = []

    class Handle:
        def update(self, obj, **kwargs):
            sent.append((obj, kwargs))
    view = viz.slider_plot(lambda n: f"figure {n}", n=widgets.IntSlider(value=1, min=0, max=5))
    view.handle = Handle()
    for n in (2, 1, 2):
        view.controls["n"].value = n
    assert renders == ["figure 2", "figure 1"]            # each picture rendered once
    assert sent == [({"text/plain": "figure 2"}, {"metadata": {"n": 1}, "raw": True}),
                    ({"text/plain": "figure 1"}, {"metadata": {"n": 2}, "raw": True}),
                    ({"text/plain": "figure 2"}, {"metadata": {"n": 1}, "raw": True})]


def test_a_float_from_the_browser_finds_the_picture_of_the_same_position(shown):
    calls = []
    slider = widgets.FloatLogSlider(value=1e-2, base=10, min=-3, max=0, step=0.25)
    view = viz.slider_plot(lambda lr: calls.append(lr) or lr, lr=slider)
    slider.value = 10 ** -1.75
    slider.value = 10 ** -1.75 * (1 + 2e-16)          # the same position, last bit differs
    assert len(calls) == 2 and view.current == 10 ** -1.75


def test_precompute_draws_every_combination_once_and_moves_then_draw_nothing(shown):
    calls = []

    def figure(n, flag):
        calls.append((n, flag))
        return (n, flag)
    size = widgets.IntSlider(value=1, min=0, max=4, step=2)
    flag = widgets.Checkbox(value=False)
    view = viz.slider_plot(figure, n=size, flag=flag)
    assert view.precompute() is view
    assert sorted(calls) == sorted([(1, False)] + [(n, f) for n in (0, 2, 4) for f in (False, True)])
    calls.clear()
    view._ipython_display_()
    size.value, flag.value = 4, True
    assert calls == [] and view.handle.shown[-1] == (4, True)


def test_precompute_refuses_more_combinations_than_its_limit():
    view = viz.slider_plot(lambda a, b: None, a=widgets.IntSlider(min=0, max=9),
                           b=widgets.IntSlider(min=0, max=9))
    with pytest.raises(ValueError, match="100 combinations"):
        view.precompute()
    view.precompute(limit=100)


@pytest.mark.parametrize("control, expected", [
    (widgets.IntSlider(min=1, max=7, step=3), [1, 4, 7]),
    (widgets.FloatSlider(min=-1, max=1, step=0.5), [-1.0, -0.5, 0.0, 0.5, 1.0]),
    (widgets.FloatLogSlider(base=10, min=-2, max=0, step=1), [0.01, 0.1, 1.0]),
    (widgets.SelectionSlider(options=[("a", 5), ("b", 7)]), [5, 7]),
    (widgets.Dropdown(options=["x", "y"]), ["x", "y"]),
    (widgets.Checkbox(value=True), [False, True]),
])
def test_positions_are_every_value_a_control_can_take(control, expected):
    assert viz.widgets.positions(control) == pytest.approx(expected)


def test_a_frame_slider_keeps_its_frames_and_can_draw_them_all_up_front(shown):
    calls = []

    def frame(k):
        calls.append(k)
        return f"frame {k}"
    frames = FrameSlider(frame, 0, 4, value=2)
    frames._ipython_display_()
    frames.slider.value = 3
    frames.slider.value = 2
    assert calls == [2, 3] and frames.handle.shown == ["frame 2", "frame 3", "frame 2"]
    assert frames.precompute() is frames
    assert sorted(calls) == [0, 1, 2, 3, 4]
    frames.slider.value = 0
    assert len(calls) == 5 and frames.current == "frame 0"
