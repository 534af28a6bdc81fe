"""One matplotlib figure that a slider redraws in place, fast enough to follow the slider.

Making a new figure per move and letting IPython render it costs 150-600 ms: every artist is
built again, `bbox_inches='tight'` draws the figure twice to find its margins, and a new canvas
measures every tick label's text again (log axes: most of the time). LiveFigure keeps one figure
and one canvas. The artists that move are marked `animated=True`; the rest (axes, ticks, grid,
labels, fixed curves) is drawn once and kept as a picture, and each redraw pastes that picture
back and draws only the moving artists over it (matplotlib's blitting), at the figure's own
margins (or cut once as IPython's `bbox_inches='tight'` would, with tight=True). The picture
equals a full draw, provided the moving artists lie on top (highest
zorder) and nothing else changes; after changing something that is not animated (limits, a
fixed curve), call `refresh()`.

    fig = Figure(figsize=(8, 4)); ax = fig.add_subplot()
    (curve,) = ax.plot(x, f(x, 1.0), animated=True)
    live = LiveFigure(fig)                  # fixed limits and margins: set them before
    def figure(a):
        curve.set_ydata(f(x, a))
        return live
    viz.slider_plot(figure, a=widgets.FloatSlider(...))
"""
import io
import math


class LiveFigure:
    """Displayable (PNG) state of `fig`, redrawn by blitting its animated artists."""

    in_place = True        # one object for every position: sliders keep no picture per position

    def __init__(self, fig, tight=False, compress_level=1):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        self.fig, self.tight, self.compress_level = fig, tight, compress_level
        FigureCanvasAgg(fig)                  # one canvas, so one renderer and its text cache
        fig.set_layout_engine("none")         # margins stay where they are (no re-layout)
        self._background = self._crop = None

    def moving(self):
        """The animated artists, in the order a full draw paints them (by zorder)."""
        found = [a for a in self.fig.get_children() if a.get_animated()]
        for ax in self.fig.axes:
            found += [a for a in ax.get_children() if a.get_animated()]
        return sorted(found, key=lambda a: a.get_zorder())

    def refresh(self):
        """Draw the still part again at the next render (after changing it)."""
        self._background = None

    def rgba(self):
        """The picture now, as an (height, width, 4) uint8 array (a view of the canvas)."""
        import numpy as np
        canvas = self.fig.canvas
        if self._background is None:
            canvas.draw()                     # skips animated artists
            self._background = canvas.copy_from_bbox(self.fig.bbox)
        else:
            canvas.restore_region(self._background)
        for artist in self.moving():
            self.fig.draw_artist(artist)
        if self.tight and self._crop is None:
            self._crop = tight_box(self.fig)  # found once: what grows past it later is cut
        rows, cols = self._crop or (slice(None), slice(None))
        return np.asarray(canvas.buffer_rgba())[rows, cols]

    def png(self):
        """The picture now, PNG-encoded."""
        return encode_png(self.rgba(), self.fig.dpi, self.compress_level)

    def _repr_png_(self):
        return self.png()

    def __repr__(self):
        return repr(self.fig)     # what a displayed Figure shows as text/plain


def tight_box(fig, clip=True):
    """(rows, columns) of the figure's drawn pixels that savefig(bbox_inches='tight') keeps (what
    IPython's inline backend shows), from the renderer of the last draw: no second draw. Where
    something lies outside the figure, savefig makes the picture larger; this cuts it at the
    figure's edge (clip=True) or returns None."""
    from matplotlib import rcParams
    renderer, dpi = fig.canvas.get_renderer(), fig.dpi
    box = fig.get_tightbbox(renderer).padded(rcParams["savefig.pad_inches"])
    width, height = fig.get_size_inches()
    if not clip and (box.x0 < 0 or box.y0 < 0 or box.x1 > width or box.y1 > height):
        return None
    top, left = round(fig.bbox.height - box.y1 * dpi), round(box.x0 * dpi)
    return (slice(max(0, top), max(0, top + math.ceil(box.height * dpi))),
            slice(max(0, left), max(0, left + math.ceil(box.width * dpi))))


def encode_png(rgba, dpi, compress_level=1):
    """PNG bytes of an RGBA array (zlib level 1: ~30 % quicker than level 6, ~5 % larger on
    these plots)."""
    from PIL import Image
    out = io.BytesIO()
    Image.fromarray(rgba).save(out, format="png", compress_level=compress_level, dpi=(dpi, dpi))
    return out.getvalue()


def figure_png(fig, tight=True):
    """A new figure as PNG, as IPython's inline png shows it, in one draw (None where the tight
    picture would reach past the figure's edge, which needs that second draw): savefig with
    bbox_inches='tight' draws twice (once to find the margins). The picture has the same size;
    savefig also shifts the drawing by the fraction of a pixel this cut drops, so antialiased
    edges may differ slightly (in lecture 00's plot and the tests' none did)."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    before = fig.canvas
    canvas = FigureCanvasAgg(fig)
    try:
        canvas.draw()
        box = tight_box(fig, clip=False) if tight else (slice(None), slice(None))
        if box is None:
            return None
        return encode_png(np.asarray(canvas.buffer_rgba())[box], fig.dpi)
    finally:
        fig.set_canvas(before)


class Labels:
    """Short labels at fixed places (the digits in a grid of boxes), cheap to redraw.

    Every Text costs its own text layout at each draw (~1 ms): 60 of them are a slow redraw. Here
    the labels are glyph outlines drawn as markers, one Line2D per distinct string (all the "0"s
    at once), at the font's true size, centred on their places. set_texts(texts) relabels;
    the outlines of the `known` strings are made up front, so that no later move waits.
    """

    def __init__(self, ax, xy, fontsize=9, color="black", animated=True, zorder=3, known=()):
        import numpy as np
        self.ax, self.xy = ax, np.asarray(xy, dtype=float).reshape(-1, 2)
        self.style = dict(ls="none", mew=0, color=color, animated=animated, zorder=zorder)
        self.fontsize, self.lines = fontsize, {}
        for text in known:
            self._line(text)

    def _line(self, text):
        if text not in self.lines:
            from matplotlib.font_manager import FontProperties
            from matplotlib.path import Path
            from matplotlib.textpath import TextPath
            path = TextPath((0, 0), text, prop=FontProperties(size=self.fontsize))
            (x0, y0), (x1, y1) = path.vertices.min(0), path.vertices.max(0)
            centred = Path(path.vertices - [(x0 + x1) / 2, (y0 + y1) / 2], path.codes)
            # a marker's path is scaled so that its largest |coordinate| is half the marker size
            size = 2 * abs(centred.vertices).max()
            self.lines[text] = self.ax.plot([], [], marker=centred, ms=size, **self.style)[0]
        return self.lines[text]

    def set_texts(self, texts):
        """texts[i] is shown at xy[i] ("" for none)."""
        import numpy as np
        texts = np.asarray(texts, dtype=object).ravel()
        if len(texts) != len(self.xy):
            raise ValueError(f"Labels.set_texts: {len(texts)} texts for {len(self.xy)} places.")
        for text in set(texts) - {""}:
            x, y = self.xy[texts == text].T
            self._line(text).set_data(x, y)
        for text, line in self.lines.items():
            if text not in texts:
                line.set_data([], [])
