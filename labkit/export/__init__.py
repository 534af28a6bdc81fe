"""labkit.export: a whole model captured as one graph, as torch.export does.

    ep = labkit.export.export(model, (x,), dynamic_shapes={"x": {0: Dim("batch", max=64)}})
    print(ep)                  # the graph, its signature (parameters lifted as inputs), ranges
    ep.module()(x2)            # runs the graph; a shape outside the guards is an error
    labkit.export.save(ep, "model.zip"); labkit.export.load("model.zip")
    labkit.export.to_onnx(ep, "model.onnx")

Unlike jit.trace, export refuses what it cannot capture (Python control flow on tensor values)
with the line and the fix: labkit.cond, the branch that lives in the graph.
"""
from .capture import ExportError  # noqa: F401
from .cond import cond  # noqa: F401
from .dims import Dim  # noqa: F401
from .export import export  # noqa: F401
from .onnx import to_onnx  # noqa: F401
from .program import ExportedProgram  # noqa: F401
from .serde import load, save  # noqa: F401
