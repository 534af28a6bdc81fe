"""Loss curves that redraw while a training loop runs, and progress bars for long loops.

    with viz.LossPlot(title="two-layer net") as plot:
        for t in viz.progress(range(500)):
            ...
            plot.append(loss.item())

The plot is an ordinary display output updated through its display id: in JupyterLab it
redraws in place (at most every `interval` seconds); run headless, the notebook keeps the
final figure. Figures carry no date and use a fixed SVG hash salt, so the same numbers give
the same bytes on every run.
"""
import io
import time

import matplotlib
from IPython.display import SVG, Image, display
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


class LossPlot:
    """A live loss curve (one or more named series); use it as a context manager, or call
    show() before the loop and close() after it."""

    def __init__(self, title=None, xlabel="iteration", ylabel="loss", logy=True,
                 figsize=(7.0, 3.8), format="png", interval=0.5, ylim=None):
        if format not in ("png", "svg"):
            raise ValueError(f"LossPlot: format must be 'png' or 'svg', got {format!r}.")
        self.series = {}
        self.title, self.xlabel, self.ylabel, self.logy = title, xlabel, ylabel, logy
        self.figsize, self.format, self.interval, self.ylim = figsize, format, interval, ylim
        self.handle = None
        self._drawn_at = 0.0

    def append(self, value, name="loss"):
        """Add one value to series `name`; redraw if the plot is shown and enough time passed."""
        self.series.setdefault(name, []).append(float(value))
        if self.handle is not None and time.monotonic() - self._drawn_at >= self.interval:
            self._redraw()

    def figure(self):
        """The plot as a matplotlib Figure (not pyplot's, so nothing else is shown)."""
        fig = Figure(figsize=self.figsize, dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        for name, values in self.series.items():
            ax.plot(range(len(values)), values, lw=2, label=name)
        if self.logy:
            ax.set_yscale("log")
        if self.ylim:
            ax.set_ylim(*self.ylim)
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel + (" (log scale)" if self.logy else ""))
        if self.title:
            ax.set_title(self.title)
        if len(self.series) > 1:
            ax.legend(loc="upper right")
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        return fig

    def image(self):
        """The figure as an IPython Image (png) or SVG, byte-identical for the same data."""
        buf = io.BytesIO()
        with matplotlib.rc_context({"svg.hashsalt": "labkit", "svg.fonttype": "path"}):
            fig = self.figure()
            if self.format == "svg":
                fig.savefig(buf, format="svg", metadata={"Date": None})
                return SVG(buf.getvalue())
            fig.savefig(buf, format="png", metadata={"Software": None})
        return Image(buf.getvalue(), format="png")

    def show(self):
        self.handle = display(self.image(), display_id=True)
        self._drawn_at = time.monotonic()
        return self

    def _redraw(self):
        self.handle.update(self.image())
        self._drawn_at = time.monotonic()

    def close(self):
        """Draw the final state (the output a saved notebook keeps)."""
        if self.handle is None:
            self.show()
        else:
            self._redraw()

    def __enter__(self):
        return self.show()

    def __exit__(self, *exc):
        self.close()
        return False

    def _ipython_display_(self):
        self.show()


def progress(iterable=None, **kwargs):
    """tqdm.auto's progress bar (a widget in Jupyter, text elsewhere), redrawn at most
    twice a second."""
    from tqdm.auto import tqdm
    kwargs.setdefault("mininterval", 0.5)
    return tqdm(iterable, **kwargs)
