"""Controls that redraw one ordinary output in place: FrameSlider (a slider over frames, with
a play button) and SliderPlot (any figure driven by one or more named controls).

The picture is not inside a widget: it is a normal display output updated through its display
id. So a notebook run headless (nbval, nbconvert) or viewed on GitHub keeps a plain image of
the state last shown, and in JupyterLab the controls replace it as they move.

A student waits for every redraw (rendering a matplotlib figure to PNG alone takes ~50-100 ms),
so what was drawn is kept, rendered, by the controls' values: going back to a position sends the
stored picture again at once. The pictures must depend on the controls' values only (the figure
function's other inputs fixed), as a slider's do; precompute() renders a grid up front. Where
the positions are too many to draw ahead, the figure function can instead update one figure in
place and return it as a LiveFigure (labkit.viz.canvas), which redraws only what moves.
"""
import itertools
from collections import OrderedDict

from IPython.display import display

# Sliders that do not set a width of their own get this one: the whole cell, up to 480 px.
SLIDER_LAYOUT = {"width": "100%", "max_width": "480px"}


class FrameSlider:
    """frame(k) -> something displayable (a Digraph), for k in lo..hi; starts at `value`.

    on_change is the slider's callback: a plain function, callable from tests without a
    frontend. `current` is the last frame drawn.
    """

    def __init__(self, frame, lo, hi, value=None, description="frame", interval=700):
        import ipywidgets as widgets
        value = hi if value is None else value
        self.frame = frame
        self.handle = None
        self.drawn = Drawn(frame)
        self.current = self.drawn.get(value)
        style = {"description_width": "initial"}
        self.slider = widgets.IntSlider(value=value, min=lo, max=hi, description=description,
                                        style=style, layout=widgets.Layout(width="420px"))
        self.play = widgets.Play(value=value, min=lo, max=hi, interval=interval,
                                 description="play")
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.controls = widgets.HBox([self.play, self.slider])
        self.slider.observe(self.on_change, names="value")

    def on_change(self, change):
        self.show(change["new"])

    def show(self, k):
        """Draw frame k (into the displayed output, when there is one) and return it."""
        self.current = self.drawn.send(self.handle, k)
        return self.current

    def precompute(self):
        """Draw and render every frame now, so that neither a move nor play ever waits for one;
        returns self, to display. For frames that are slow to draw (matplotlib figures)."""
        for k in range(self.slider.min, self.slider.max + 1):
            self.drawn.get(k, render=True)
        return self

    def _ipython_display_(self):
        display(self.controls)
        self.current, self.handle = self.drawn.show(self.slider.value)


class SliderPlot:
    """figure(**values) -> something displayable (a matplotlib Figure, a Digraph), redrawn
    whenever one of the named controls (ipywidgets: sliders, checkboxes ...) changes.

        viz.slider_plot(loss_figure, lr=widgets.FloatLogSlider(value=1e-2, min=-5, max=0,
                                                               continuous_update=False))

    Each control's name is the keyword its value is passed as. on_change is the controls'
    callback: a plain function, callable from tests without a frontend; `current` is the last
    figure drawn.
    """

    def __init__(self, figure, **controls):
        if not controls:
            raise TypeError("slider_plot needs at least one control, passed by the name of "
                            "figure's argument, e.g. slider_plot(f, lr=widgets.FloatSlider())")
        import ipywidgets as widgets
        for name, control in controls.items():
            if not isinstance(control, widgets.ValueWidget):
                raise TypeError(f"slider_plot: control {name!r} must be an ipywidgets widget "
                                f"with a value (a slider, a checkbox ...), got "
                                f"{type(control).__name__}.")
            if type(control).__name__.endswith("Slider"):
                _course_layout(control)
            control.observe(self.on_change, names="value")
        self.figure, self.controls = figure, controls
        self.handle = None
        self.drawn = Drawn(lambda key: figure(**dict(zip(controls, key))))
        self.current = self.drawn.get(self.key())
        items = list(controls.values())
        self.box = items[0] if len(items) == 1 else widgets.HBox(items)

    def values(self):
        """The controls' values by name: the keyword arguments figure is called with."""
        return {name: control.value for name, control in self.controls.items()}

    def key(self):
        return tuple(self.values().values())

    def on_change(self, change=None):
        self.redraw()

    def redraw(self):
        """Draw figure at the controls' values (into the displayed output, when there is one)
        and return it."""
        self.current = self.drawn.send(self.handle, self.key())
        return self.current

    def precompute(self, limit=64):
        """Draw and render every combination of the controls' positions now (at most `limit`:
        more raises), so that no later move waits; returns self, to display. For figures that
        are slow to make (a model trained per position), and controls with few positions."""
        grids = [positions(c) for c in self.controls.values()]
        count = 1
        for g in grids:
            count *= len(g)
        if count > limit:
            raise ValueError(f"precompute: the controls have {count} combinations of positions "
                             f"(limit={limit}); give the sliders larger steps or raise limit.")
        for key in itertools.product(*grids):
            self.drawn.get(key, render=True)
        return self

    def _ipython_display_(self):
        display(self.box)
        self.current, self.handle = self.drawn.show(self.key())


class Drawn:
    """make(key) -> displayable, kept by key with its rendering (the display data sent to the
    browser), so a key seen before is shown again without drawing or rendering it again.
    At most `size` keys are kept (the least recently shown go first)."""

    def __init__(self, make, size=128):
        self.make, self.size = make, size
        self.kept = OrderedDict()           # key -> [object, rendered data or None]

    def get(self, key, render=False):
        """The object for key (made if new); render=True also renders it now."""
        return self._entry(key, render)[0]

    def _entry(self, key, render=False):
        kept = _same(key)           # a float set by the browser may differ in its last bits
        entry = self.kept.get(kept)
        if entry is None:
            entry = [self.make(key), None]
            # A figure redrawn in place (LiveFigure) is one object for every key: nothing to keep.
            if not getattr(entry[0], "in_place", False):
                self.kept[kept] = entry
                while len(self.kept) > self.size:
                    self.kept.popitem(last=False)
        else:
            self.kept.move_to_end(kept)
        if render and entry[1] is None:
            entry[1] = _render(entry[0], exact=False)
        return entry

    def send(self, handle, key):
        """Replace what handle shows (if any) by key's picture (rendered once, then reused);
        returns key's object."""
        if handle is None:
            return self.get(key)
        obj, rendered = self._entry(key, render=True)
        if rendered is None:                # no IPython kernel: let the handle render it
            handle.update(obj)
        else:
            data, metadata = rendered
            handle.update(data, metadata=metadata, raw=True)
        return obj

    def show(self, key):
        """Display key's picture as a new output, rendered as IPython renders it (the picture
        saved in the notebook does not depend on what was drawn before); returns (key's object,
        the display handle)."""
        entry = self._entry(key)
        entry[1] = _render(entry[0])
        if entry[1] is None:
            return entry[0], display(entry[0], display_id=True)
        data, metadata = entry[1]
        return entry[0], display(data, metadata=metadata, raw=True, display_id=True)


def _same(key):
    if isinstance(key, float):
        return float(f"{key:.12g}")
    return tuple(map(_same, key)) if isinstance(key, tuple) else key


def _render(obj, exact=True):
    """(data, metadata) as IPython's display() would send for obj; None outside a kernel (a
    plain IPython shell, or none: the handle is then given the object itself). exact=False
    renders a matplotlib Figure in one draw instead of two (canvas.figure_png): for the pictures
    sent on a move, not the one stored in the notebook."""
    from IPython import get_ipython
    shell = get_ipython()
    if getattr(shell, "kernel", None) is None:
        return None
    fast = None if exact else _fast_figure(shell, obj)
    return fast or shell.display_formatter.format(obj)


def _fast_figure(shell, obj):
    """_render's data for a Figure shown as plain inline PNG (`figure_formats = ['png']`, no
    other print_figure option), rendered by canvas.figure_png; None in every other case."""
    import functools
    from binascii import b2a_base64
    if not type(obj).__module__.startswith("matplotlib"):
        return None
    from IPython.core.pylabtools import print_figure
    from matplotlib.figure import Figure
    formatters = shell.display_formatter.formatters
    png = formatters["image/png"].lookup_by_type(Figure) if isinstance(obj, Figure) else None
    plain = (isinstance(png, functools.partial) and png.func is print_figure and not png.args
             and set(png.keywords) <= {"fmt", "base64", "bbox_inches"}
             and png.keywords.get("fmt") == "png" and png.keywords.get("base64"))
    others = [m for m, f in formatters.items() if m != "image/png" and Figure in f.type_printers]
    if not plain or others or not (obj.axes or obj.lines):
        return None
    from .canvas import figure_png
    picture = figure_png(obj, tight=png.keywords.get("bbox_inches", "tight") == "tight")
    if picture is None:
        return None
    data, metadata = shell.display_formatter.format(obj, exclude=("image/png",))
    data["image/png"] = b2a_base64(picture, newline=False).decode("ascii")
    return data, metadata


def positions(control):
    """Every value a control can take, in order: a slider's steps, a selection's options, a
    checkbox's two states."""
    import numpy as np
    kind = type(control).__name__
    if hasattr(control, "_options_values"):
        return list(control._options_values)
    if kind in ("Checkbox", "ToggleButton"):
        return [False, True]
    if not hasattr(control, "min") or not control.step:
        raise ValueError(f"precompute: a {kind} has no finite set of positions.")
    lo, hi, step = control.min, control.max, control.step
    if kind.startswith("Int"):
        return list(range(lo, hi + 1, step))
    count = int(round((hi - lo) / step)) + 1
    grid = [float(v) for v in np.round(lo + step * np.arange(count), 12) if v <= hi + 1e-12]
    if kind.endswith("LogSlider"):
        return [float(control.base ** e) for e in grid]
    return grid


def slider_plot(figure, **controls):
    """Show figure(**values) under its controls and redraw it in place when they move.
    Returns the SliderPlot (displayed when it is a cell's last expression)."""
    return SliderPlot(figure, **controls)


def _course_layout(slider):
    if slider.layout.width is None:
        slider.layout.width, slider.layout.max_width = (SLIDER_LAYOUT["width"],
                                                        SLIDER_LAYOUT["max_width"])
    if hasattr(slider.style, "description_width") and not slider.style.description_width:
        slider.style.description_width = "initial"
