"""labkit.jit.trace: run a function (or module) once on example inputs and keep the ops it ran.

What is recorded is what happened for those inputs: a Python `if` took one side, a loop ran
a fixed number of times, and those choices are now part of the graph (frozen). Parameters are
captured by reference (later updates show); other tensors the function reads are frozen as
constants, as in torch.jit.trace. Calling the result checks that the inputs have the traced
shapes and dtypes, then runs the graph with engine ops, so autograd works through it.
"""
import inspect

from ..engine.tensor import Tensor
from . import interpreter, passes
from .ir import Graph, python_code
from .module_view import ModuleView
from .state import reachable_state
from .tracer import Tracer


def module_params(module):
    """{id(tensor): name} for a module's parameters and buffers (captured by reference)."""
    if module is None or not hasattr(module, "named_parameters"):
        return {}
    named = dict(module.named_parameters())
    if hasattr(module, "named_buffers"):
        named.update(dict(module.named_buffers()))
    return {id(t): name.replace(".", "_") for name, t in named.items()}


def _arg_names(fn, n):
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    except (TypeError, ValueError):
        params = []
    names = params[:n] if params and len(params) >= n and not any(
        p.startswith("*") for p in params[:n]) else []
    return names + [f"input{i}" for i in range(len(names), n)]


def as_tuple(example_inputs):
    if isinstance(example_inputs, Tensor):
        return (example_inputs,)
    return tuple(example_inputs)


def flatten_output(out, tracer):
    """(the graph's output values, a function rebuilding the same structure from results).
    Tuples and lists may nest, as an LSTM's (output, (h_n, c_n))."""
    tensors = []

    def spec(o):
        if isinstance(o, Tensor):
            tensors.append(o)
            return None
        if isinstance(o, (tuple, list)):
            return type(o), [spec(x) for x in o]
        raise TypeError(f"labkit.jit: a traced function must return tensors, in tuples or "
                        f"lists if several, got {type(o).__name__}. Return the tensors and "
                        "build other Python objects outside.")
    shape = spec(out)

    def rebuild(results):
        it = iter(results)

        def build(sp):
            if sp is None:
                return next(it)
            kind, parts = sp
            items = [build(p) for p in parts]
            return kind(*items) if hasattr(kind, "_fields") else kind(items)
        return build(shape)
    return [tracer.value_of(t) for t in tensors], rebuild


def record(fn, inputs, params=None, strict=False, freeze=True, name="graph"):
    """Run fn(*inputs) under a tracer: (graph, eager output, tracer)."""
    graph = Graph(name)
    tracer = Tracer(graph, params=params, strict=strict, freeze_constants=freeze,
                    names=reachable_state(fn, ())[2])
    target = getattr(fn, "forward", fn)
    for t, n in zip(inputs, _arg_names(target, len(inputs))):
        if not isinstance(t, Tensor):
            raise TypeError(f"labkit.jit.trace: example inputs must be tensors, got "
                            f"{type(t).__name__} for {n!r}. Python numbers are baked into a "
                            "trace: close over them instead (or use jit.compile).")
        v = graph.add_input(n, t._data.shape, t._data.dtype)
        v.requires_grad = t._rg
        tracer.bind(t, v)
        tracer.external[id(t)] = (t, v)
    with tracer:
        out = fn(*inputs)
    return graph, out, tracer


def finish(graph, out, tracer):
    """Set the graph's outputs and stores from the eager result; returns the rebuild fn."""
    graph.outputs, rebuild = flatten_output(out, tracer)
    graph.stores = [(tracer.external[i][1], tracer.value_of(t, check=False))
                    for i, t in tracer.mutated.items()]
    return rebuild


class TracedFunction(ModuleView):
    """The result of jit.trace: .graph (the IR), .code (as Python), call it, .save(path);
    a traced module also shows the module's parts (traced.linear, traced.parameters())."""

    def __init__(self, graph, rebuild, name, module=None):
        self.graph = graph
        self._rebuild = rebuild
        self.__name__ = name
        self.module = module

    @property
    def code(self):
        return python_code(self.graph)

    def __call__(self, *args):
        check_inputs(self.graph, args, "trace")
        return self._rebuild(interpreter.run(self.graph, args))

    def save(self, path):
        from .serialize import save
        save(self, path)

    def __repr__(self):
        return f"<traced {self.__name__}>\n{self.graph}"


def check_inputs(graph, args, how):
    inputs = [v for v in graph.inputs if v.role == "input"]
    if len(args) != len(inputs):
        raise TypeError(f"{how}: this function takes {len(inputs)} tensor input(s), got "
                        f"{len(args)}.")
    for v, a in zip(inputs, args):
        if not isinstance(a, Tensor):
            raise TypeError(f"{how}: input %{v.name} must be a tensor, got {type(a).__name__}.")
        if v.shape is not None and (tuple(a._data.shape) != v.shape or a._data.dtype != v.dtype):
            raise RuntimeError(
                f"{how}: input %{v.name} has shape {tuple(a.shape)} and dtype {a.dtype}, but "
                f"this function was traced with shape {v.shape} and dtype {v.dtype.name}. A "
                "trace is specialised to the shapes it saw (reshapes, sums and broadcasts in it "
                "are fixed). Trace again with an example of this shape, or use "
                "labkit.jit.compile, which traces once per input shape.")


def trace(fn_or_module, example_inputs, name=None):
    """Run fn_or_module(*example_inputs) once and return a TracedFunction of the ops it ran.
    Python control flow is frozen; reading a value (.item(), bool(), if on a tensor) while
    tracing warns (TracerWarning) because the trace keeps that one value."""
    inputs = as_tuple(example_inputs)
    params = module_params(fn_or_module)
    graph, out, tracer = record(fn_or_module, inputs, params=params)
    rebuild = finish(graph, out, tracer)
    passes.dead_code(graph)
    name = name or getattr(fn_or_module, "__name__", type(fn_or_module).__name__)
    return TracedFunction(graph, rebuild, name,
                          module=fn_or_module if params else None)
