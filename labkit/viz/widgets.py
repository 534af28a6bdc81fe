"""Controls that redraw one ordinary output in place: FrameSlider (a slider over frames, with
a play button) and SliderPlot (any figure driven by one or more named controls).

The picture is not inside a widget: it is a normal display output updated through its display
id. So a notebook run headless (nbval, nbconvert) or viewed on GitHub keeps a plain image of
the state last shown, and in JupyterLab the controls replace it as they move.
"""
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
        self.current = frame(value)
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
        self.current = self.frame(k)
        if self.handle is not None:
            self.handle.update(self.current)
        return self.current

    def _ipython_display_(self):
        display(self.controls)
        self.handle = display(self.current, display_id=True)


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
        self.current = figure(**self.values())
        items = list(controls.values())
        self.box = items[0] if len(items) == 1 else widgets.HBox(items)

    def values(self):
        """The controls' values by name: the keyword arguments figure is called with."""
        return {name: control.value for name, control in self.controls.items()}

    def on_change(self, change=None):
        self.redraw()

    def redraw(self):
        """Draw figure at the controls' values (into the displayed output, when there is one)
        and return it."""
        self.current = self.figure(**self.values())
        if self.handle is not None:
            self.handle.update(self.current)
        return self.current

    def _ipython_display_(self):
        display(self.box)
        self.handle = display(self.current, display_id=True)


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
