"""labkit.viz: see what autograd does. Opt-in (`import labkit.viz`): it loads graphviz,
ipywidgets and matplotlib, which `import labkit` never does."""
from .canvas import Labels, LiveFigure
from .compare import side_by_side
from .graph import draw
from .ir import draw_ir, ir_side_by_side
from .live import Recorder, record
from .plots import LossPlot, progress
from .render import backend as graphviz_backend
from .stepper import BackwardStepper, step_backward
from .widgets import SliderPlot, slider_plot

__all__ = ["draw", "record", "Recorder", "step_backward", "BackwardStepper", "side_by_side",
           "LossPlot", "progress", "graphviz_backend", "draw_ir", "ir_side_by_side",
           "slider_plot", "SliderPlot", "LiveFigure", "Labels"]
