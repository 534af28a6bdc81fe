"""ExportedProgram: the captured graph, its signature (which inputs are parameters, buffers or
the user's), the guards on input shapes, and .module() to run it."""
import math

from ..engine.tensor import Tensor
from ..jit import interpreter
from ..jit.ir import Node, Value, _const_text

_SHORT = {"float32": "f32", "float64": "f64", "float16": "f16", "int64": "i64", "int32": "i32",
          "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "b8"}


class InputSpec:
    def __init__(self, kind, name, target=None):
        self.kind, self.name, self.target = kind, name, target

    def __repr__(self):
        target = f" target={self.target!r}" if self.target else ""
        return f"{self.name}: {self.kind}{target}"


class GraphSignature:
    """Which graph inputs are the module's parameters and buffers (lifted: the graph reads
    them as inputs) and which are the user's, and what the outputs are."""

    def __init__(self, input_specs, output_specs):
        self.input_specs, self.output_specs = input_specs, output_specs

    @property
    def user_inputs(self):
        return [s.name for s in self.input_specs if s.kind == "USER_INPUT"]

    @property
    def parameters(self):
        return [s.target for s in self.input_specs if s.kind == "PARAMETER"]

    @property
    def buffers(self):
        return [s.target for s in self.input_specs if s.kind == "BUFFER"]

    def __str__(self):
        return "\n".join(["# inputs"] + [repr(s) for s in self.input_specs] + ["", "# outputs"]
                         + [repr(s) for s in self.output_specs])

    __repr__ = __str__


class ExportedProgram:
    def __init__(self, graph, signature, guards, sym_args, sym_shapes, tuple_out, state):
        self.graph = graph
        self.graph_signature = signature
        self.guards = guards              # per user input: [(size, Dim or None) per dim], dtype
        self._sym_args, self._sym_shapes = sym_args, sym_shapes
        self._tuple = tuple_out
        self.state_dict = state

    @property
    def range_constraints(self):
        dims = {d.name: d for g in self.guards for _, d in g[0] if d is not None}
        return {n: (d.min, d.max) for n, d in dims.items()}

    def module(self):
        """A callable that runs the graph (checking the guards first), like torch's ep.module()."""
        return ExportedModule(self)

    # --- running ------------------------------------------------------------------------
    def check(self, args):
        names = self.graph_signature.user_inputs
        if len(args) != len(names):
            raise TypeError(f"exported program: expected {len(names)} input(s) "
                            f"({', '.join(names)}), got {len(args)}.")
        sizes = {}
        for i, (a, name, (dims, dtype)) in enumerate(zip(args, names, self.guards)):
            if not isinstance(a, Tensor):
                raise TypeError(f"exported program: input {name!r} must be a tensor, got "
                                f"{type(a).__name__}.")
            if a.ndim != len(dims):
                raise RuntimeError(f"Expected input {name} (args[{i}]) to have {len(dims)} "
                                   f"dimensions, but got {a.ndim} (shape {tuple(a.shape)}).")
            if a._data.dtype != dtype:
                raise RuntimeError(f"Expected input {name} (args[{i}]) to have dtype "
                                   f"{dtype.name}, but got {a._data.dtype.name}.")
            for j, ((size, dim), got) in enumerate(zip(dims, a.shape)):
                where = f"{name}.shape[{j}]"
                if dim is None:
                    if got != size:
                        raise RuntimeError(
                            f"Expected input {where} to be equal to {size}, but got {got}. This "
                            "dimension was static at export; mark it dynamic with "
                            "dynamic_shapes={...: {" + str(j) + ": Dim('name', min=..., max=...)}} "
                            "to accept other sizes.")
                    continue
                if not dim.min <= got <= dim.max:
                    bound = dim.min if got < dim.min else dim.max
                    raise RuntimeError(
                        f"Expected input {where} (dimension {dim.name!r}) to be "
                        f"{'>=' if got < dim.min else '<='} {bound}, but got {got}. The program "
                        f"was exported for {dim.name} in [{dim.min}, {dim.max}].")
                if sizes.setdefault(dim.name, got) != got:
                    raise RuntimeError(
                        f"Expected input {where} to equal the other inputs' dimension "
                        f"{dim.name!r} ({sizes[dim.name]}), but got {got}.")
        return sizes

    def _run(self, args):
        sizes = self.check(args)
        graph = self.graph
        if self._sym_args and sizes:
            graph = _substituted(graph, self._sym_args, sizes)
        out = interpreter.run(graph, args)
        return out if self._tuple else out[0]

    # --- printing, like torch's ------------------------------------------------------------
    def __str__(self):
        names = _Names(self)
        params = ", ".join(f'{names[v]}: "{names.type(v)}"' for v in _ordered_inputs(self.graph))
        lines = ["ExportedProgram:", "    class GraphModule(labkit.nn.Module):",
                 f"        def forward(self, {params}):"]
        for c in self.graph.constants:
            lines.append(f'            {names[c]}: "{names.type(c)}" = '
                         f"constant[{_const_text(c.ref)}]")
        lines += _body(self.graph.nodes, names, "            ")
        outs = ", ".join(names[v] for v in self.graph.outputs)
        lines.append(f"            return ({outs},)")
        sig = "\n".join("    " + line if line else "" for line in
                        str(self.graph_signature).split("\n"))
        ranges = ", ".join(f"{n}: VR[{lo}, {'int_oo' if hi == math.inf else hi}]"
                           for n, (lo, hi) in self.range_constraints.items())
        return "\n".join(lines + ["", "Graph signature:", sig,
                                  f"Range constraints: {{{ranges}}}"])

    __repr__ = __str__


class ExportedModule:
    """ep.module(): call it with the user inputs; parameters are read from the program."""

    def __init__(self, program):
        self.program = program

    def __call__(self, *args):
        return self.program._run(args)

    def __repr__(self):
        return f"<exported module>\n{self.program.graph}"


def _ordered_inputs(graph):
    """Parameters and buffers first, then the user's inputs (torch's order)."""
    return ([v for v in graph.inputs if v.role == "param"]
            + [v for v in graph.inputs if v.role == "input"])


def _substituted(graph, sym_args, sizes):
    """The graph with each symbolic argument replaced by this call's size (nodes are copied
    shallowly; values are shared)."""
    from ..jit.ir import Graph
    out = Graph(graph.name)
    out.inputs, out.constants, out.outputs, out.stores = (graph.inputs, graph.constants,
                                                          graph.outputs, graph.stores)
    out.nodes = _nodes(graph.nodes, sym_args, sizes, ())
    return out


def _nodes(nodes, sym_args, sizes, prefix):
    from ..jit.ir import Graph
    new = []
    for i, n in enumerate(nodes):
        found = sym_args.get(prefix + (i,))
        args = n.args
        if found:
            for path, (name, k, c) in found.items():
                args = _replace(args, path, k * sizes[name] + c)
        blocks = []
        for j, b in enumerate(n.blocks):
            c = Graph(b.name)
            c.inputs, c.constants, c.outputs = b.inputs, b.constants, b.outputs
            c.nodes = _nodes(b.nodes, sym_args, sizes, prefix + (i, j))
            blocks.append(c)
        m = object.__new__(Node)
        m.kind, m.fn, m.args, m.outputs, m.blocks, m.meta = n.kind, n.fn, args, n.outputs, \
            blocks, n.meta
        new.append(m)
    return new


def _replace(obj, path, value):
    if not path:
        return value
    items = list(obj)
    items[path[0]] = _replace(items[path[0]], path[1:], value)
    return type(obj)(items)


class _Names:
    """FX-style names for printing: parameters p_<name>, buffers b_<name>, values by op."""

    def __init__(self, ep):
        self.ep, self.names, self.count = ep, {}, {}
        kinds = {s.name: s for s in ep.graph_signature.input_specs}
        for v in ep.graph.inputs:
            spec = kinds.get(v.name)
            self.names[v] = v.name if spec is None else spec.name
        for c in ep.graph.constants:
            self.names[c] = f"c_{c.name}"

    def __getitem__(self, v):
        if not isinstance(v, Value):
            return repr(v)
        if v not in self.names:
            base = v.node.kind if v.node is not None else "v"
            base = "cond" if base == "If" else base
            n = self.count.get(base, 0)
            self.count[base] = n + 1
            self.names[v] = base if n == 0 else f"{base}_{n}"
        return self.names[v]

    def type(self, v):
        shape = self.ep._sym_shapes.get(v.name, v.shape)
        dt = _SHORT.get(v.dtype.name, v.dtype.name) if v.dtype is not None else "?"
        return f"{dt}[{', '.join(str(s) for s in shape or ())}]"


def _arg(a, names):
    if isinstance(a, Value):
        return names[a]
    if hasattr(a, "value") and isinstance(getattr(a, "value"), Value):     # Raw
        return names[a.value]
    if isinstance(a, tuple):
        return "(" + ", ".join(_arg(x, names) for x in a) + ("," if len(a) == 1 else "") + ")"
    if isinstance(a, list):
        return "[" + ", ".join(_arg(x, names) for x in a) + "]"
    if hasattr(a, "shape") and not isinstance(a, (int, float)):
        return f"array{tuple(a.shape)}"
    if hasattr(a, "name") and not isinstance(a, (int, float, str)):
        return str(a.name)
    return repr(a)


def _body(nodes, names, indent):
    lines = []
    for n in nodes:
        args = n.args if isinstance(n.args, tuple) else (n.args,)
        call = f"labkit.ops.{n.kind}({', '.join(_arg(a, names) for a in args)})"
        if n.kind == "If":
            outs = ", ".join(f'{names[v]}: "{names.type(v)}"' for v in n.outputs)
            lines.append(f"{indent}{outs} = labkit.cond({_arg(args[0], names)}, "
                         f"true_graph, false_graph)")
            for b in n.blocks:
                lines.append(f"{indent}    # {b.name}:")
                lines += _body(b.nodes, names, indent + "    ")
                lines.append(f"{indent}    # -> ({', '.join(names[v] for v in b.outputs)},)")
            continue
        outs = ", ".join(f'{names[v]}: "{names.type(v)}"' for v in n.outputs)
        lines.append(f"{indent}{outs} = {call}" if outs else indent + call)
    return lines
