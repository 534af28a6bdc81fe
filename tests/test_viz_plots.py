"""LossPlot: updates one output in place, ends on the final figure, same bytes for the same
data; progress wraps tqdm.auto."""
import pytest

from labkit import viz


class FakeHandle:
    def __init__(self, shown):
        self.shown = [shown]

    def update(self, obj):
        self.shown.append(obj)


def fake_display(obj, display_id=False):
    return FakeHandle(obj)


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_the_same_curve_gives_the_same_bytes(fmt):
    def make():
        p = viz.LossPlot(title="t", format=fmt)
        for i in range(20):
            p.append(1.0 / (i + 1))
            p.append(2.0 / (i + 1), name="other")
        return p.image().data
    a, b = make(), make()
    assert a == b and len(a) > 1000
    if fmt == "svg":
        assert "<dc:date>" not in a          # SVG data is text


def test_live_updates_in_place_and_ends_on_the_final_figure(monkeypatch):
    monkeypatch.setattr(viz.plots, "display", fake_display)
    with viz.LossPlot(interval=0) as p:
        for i in range(5):
            p.append(10.0 - i)
    shown = p.handle.shown
    assert len(shown) == 1 + 5 + 1                        # empty, each append, final
    assert shown[-1].data == p.image().data
    assert p.series == {"loss": [10.0, 9.0, 8.0, 7.0, 6.0]}


def test_redraws_are_throttled(monkeypatch):
    monkeypatch.setattr(viz.plots, "display", fake_display)
    p = viz.LossPlot(interval=3600).show()
    for i in range(100):
        p.append(float(i + 1))
    p.close()
    assert len(p.handle.shown) == 2                       # the first and the final drawing


def test_bad_format_is_named():
    with pytest.raises(ValueError, match="'png' or 'svg'"):
        viz.LossPlot(format="jpg")


def test_progress_yields_every_item():
    assert list(viz.progress(range(5), disable=True)) == [0, 1, 2, 3, 4]
