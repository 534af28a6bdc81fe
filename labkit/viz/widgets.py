"""A slider over frames that redraws one ordinary output in place.

The picture is not inside a widget: it is a normal display output updated through its display
id. So a notebook run headless (nbval, nbconvert) or viewed on GitHub keeps a plain SVG of the
frame last shown, and in JupyterLab the slider (and its play button) replaces it as it moves.
"""
from IPython.display import display


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
