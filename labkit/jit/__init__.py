"""labkit.jit: static graphs. Record a function as a graph (trace, script), optimise it, and
replay it fast (compile); save it and run it without the code that built it (save/load, ONNX).

    traced = labkit.jit.trace(model, example)      # run once, record the ops
    scripted = labkit.jit.script(fn)                # read the source: if/for become graph nodes
    step = labkit.jit.compile(train_step)           # trace per input signature, then replay
    g = labkit.jit.define()                         # TF1 style: placeholders, then g.run(feed)
"""
from .compile import CompiledFunction, compile
from .define import DefinedGraph, define
from .ir import Graph, Node, Value
from .script import ScriptError, ScriptFunction, script
from .serialize import LoadedFunction, load, save
from .trace import TracedFunction, trace
from .tracer import TracerWarning

__all__ = ["trace", "script", "compile", "define", "save", "load", "TracedFunction",
           "ScriptFunction", "CompiledFunction", "LoadedFunction", "DefinedGraph", "TracerWarning",
           "ScriptError", "Graph", "Node", "Value"]


def __getattr__(name):
    """torch.jit.ScriptModule / script_method subclass nn.Module, so they live in labkit.nn
    (jit stays below nn) and load on first use."""
    if name in ("ScriptModule", "script_method"):
        from ..nn import script_module
        return getattr(script_module, name)
    import sys
    from ..engine.unsupported import missing
    raise missing("torch.jit", name, sys.modules[__name__])
