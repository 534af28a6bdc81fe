"""The IR: a Graph of Nodes that consume and produce Values (SSA: each Value is made once).

A Value has a name, a shape and a dtype (None where unknown: script does not run the code).
A Node has a kind (its printed name, e.g. "mm"), `fn` (what runs it: a labkit Function, or
a name a front end resolves), `args` (Values and Python constants, nested as the op was
called) and its outputs. Control flow is a Node holding Blocks (If: then/else; Loop: body),
each a small Graph of its own. The printer writes TorchScript's text form:

    %3 : Float(64, 100) = mm(%x, %w1)
"""
import itertools

import numpy as np

from ..engine.device import to_host

_DTYPES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
           "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


class Value:
    """One tensor (or number) flowing through the graph; `role` says where inputs come from:
    'input' (an argument), 'param' (a tensor captured by reference, read at each call),
    'constant' (frozen at trace time), or None for a value some node makes."""
    __slots__ = ("name", "shape", "dtype", "node", "role", "ref", "requires_grad", "kind",
                 "source")

    def __init__(self, name, shape=None, dtype=None, role=None, ref=None, kind="Tensor"):
        self.name = name
        self.shape = None if shape is None else tuple(int(s) for s in shape)
        self.dtype = None if dtype is None else np.dtype(dtype)
        self.node = None
        self.role = role
        self.ref = ref            # the captured tensor (param) or array (constant)
        self.requires_grad = False
        self.kind = kind          # "Tensor", or a Python type name for scalars in script
        self.source = None        # a constant's tensor, checked for changes before each call

    def type_str(self):
        if self.kind != "Tensor":
            return self.kind
        if self.dtype is None:
            return "Tensor"
        name = _DTYPES.get(self.dtype.name, self.dtype.name)
        parts = [str(s) for s in self.shape] + (["requires_grad=1"] if self.requires_grad else [])
        return f"{name}({', '.join(parts)})"

    def __repr__(self):
        return f"%{self.name}"


class Raw:
    """Marks a Value passed to an op as a plain array (not as a Tensor): e.g. the softmax
    probabilities a forward kept in ctx and hands to its backward."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"raw(%{self.value.name})"


class Node:
    def __init__(self, kind, fn, args, outputs, blocks=(), meta=None):
        self.kind = kind
        self.fn = fn
        self.args = args
        self.outputs = list(outputs)
        self.blocks = list(blocks)
        self.meta = meta or {}
        for i, v in enumerate(self.outputs):
            v.node = self

    @property
    def inputs(self):
        """The Values this node reads, in order (found inside nested args)."""
        return list(values_in(self.args))

    def __repr__(self):
        return f"<Node {self.kind}>"


def values_in(obj):
    """Every Value inside a nested structure of args (tuples, lists, dicts, Raw)."""
    if isinstance(obj, Value):
        yield obj
    elif isinstance(obj, Raw):
        yield obj.value
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            yield from values_in(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from values_in(o)


def map_values(obj, fn):
    """The same nested structure with each Value v replaced by fn(v)."""
    if isinstance(obj, Value):
        return fn(obj)
    if isinstance(obj, Raw):
        return Raw(fn(obj.value))
    if isinstance(obj, tuple):
        return tuple(map_values(o, fn) for o in obj)
    if isinstance(obj, list):
        return [map_values(o, fn) for o in obj]
    if isinstance(obj, dict):
        return {k: map_values(o, fn) for k, o in obj.items()}
    return obj


class Graph:
    """inputs (arguments, then captured params), constants, nodes in a valid execution order,
    outputs; `stores` are the writes a call makes into captured tensors (param, new value)."""

    def __init__(self, name="graph"):
        self.name = name
        self.inputs = []
        self.constants = []
        self.nodes = []
        self.outputs = []
        self.stores = []
        self._ids = itertools.count()
        self._cids = itertools.count()

    def new_value(self, shape=None, dtype=None, name=None, **kw):
        return Value(name if name is not None else str(next(self._ids)), shape, dtype, **kw)

    def add_input(self, name, shape=None, dtype=None, role="input", ref=None, kind="Tensor"):
        v = self.new_value(shape, dtype, name=self.unique(name), role=role, ref=ref, kind=kind)
        self.inputs.append(v)
        return v

    def add_constant(self, array, source=None, name=None):
        n = next(self._cids)
        taken = {v.name for v in self.inputs + self.constants}
        name = name if name and name not in taken else f"c{n}"
        v = self.new_value(array.shape, array.dtype, name=name, role="constant", ref=array)
        v.source = source
        self.constants.append(v)
        return v

    def promote(self, v, ref):
        """A constant that turned out to be state (written in place): capture it by reference."""
        self.constants.remove(v)
        v.role, v.ref, v.source = "param", ref, None
        v.name = self.unique("s")
        self.inputs.append(v)

    def unique(self, name):
        taken = {v.name for v in self.inputs}
        base, n = name, 1
        while name in taken or name.isdigit():
            name = f"{base}.{n}"
            n += 1
        return name

    def add_node(self, kind, fn, args, outputs, blocks=(), meta=None):
        node = Node(kind, fn, args, outputs, blocks, meta)
        self.nodes.append(node)
        return node

    def params(self):
        return [v for v in self.inputs if v.role == "param"]

    def walk(self):
        """Every node, including those inside If/Loop blocks."""
        for n in self.nodes:
            yield n
            for b in n.blocks:
                yield from b.walk()

    def __str__(self):
        return print_graph(self)

    def __repr__(self):
        return print_graph(self)

    def _repr_pretty_(self, p, cycle):
        p.text(print_graph(self))


def _fmt(arg):
    if isinstance(arg, (Value, Raw)):
        return repr(arg)
    if isinstance(arg, tuple):
        return "(" + ", ".join(_fmt(a) for a in arg) + ("," if len(arg) == 1 else "") + ")"
    if isinstance(arg, list):
        return "[" + ", ".join(_fmt(a) for a in arg) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}={_fmt(a)}" for k, a in arg.items()) + "}"
    if is_array(arg):
        return f"array{tuple(arg.shape)}"
    if isinstance(arg, np.dtype):
        return arg.name
    if isinstance(arg, type):
        return arg.__name__
    if isinstance(arg, float):
        return repr(arg)
    return str(arg)


def node_line(node):
    outs = ", ".join(f"%{v.name} : {v.type_str()}" for v in node.outputs)
    args = node.args if isinstance(node.args, tuple) else (node.args,)
    parts = [_fmt(a) for a in args]
    parts += [f"{k}={_fmt(a)}" for k, a in (node.meta.get("kw") or {}).items()]
    call = f"{node.kind}({', '.join(parts)})"
    return f"{outs} = {call}" if outs else call


def is_array(x):
    """A numpy array, or a GPU (cupy) array: what a forward computes on and saves."""
    return isinstance(x, np.ndarray) or hasattr(x, "__cuda_array_interface__")


def _const_text(value):
    if hasattr(value, "shape") and not isinstance(value, np.generic):   # numpy or cupy array
        if value.size <= 4:
            return np.array2string(to_host(value).reshape(-1), separator=", ")
        return f"{value.dtype.name}{tuple(value.shape)}"
    return repr(value)


def print_graph(graph, indent=""):
    """TorchScript-style text: inputs with types, one line per node, blocks indented."""
    ins = (",\n" + indent + " " * (len(graph.name) + 1)).join(
        f"%{v.name} : {v.type_str()}" for v in graph.inputs)
    lines = [f"{indent}{graph.name}({ins}):"]
    lines += [f"{indent}  %{v.name} : {v.type_str()} = constant[{_const_text(v.ref)}]()"
              for v in graph.constants]
    lines += _body(graph, indent + "  ")
    return "\n".join(lines)


def _body(graph, indent, block=False):
    lines = []
    for node in graph.nodes:
        lines.append(indent + node_line(node))
        for i, b in enumerate(node.blocks):
            label = b.name if b.name != "graph" else f"block{i}"
            params = ", ".join(f"%{v.name} : {v.type_str()}" for v in b.inputs)
            lines.append(f"{indent}  {label}({params}):")
            lines += _body(b, indent + "    ", block=True)
    for p, v in graph.stores:
        lines.append(f"{indent}store(%{p.name}, %{v.name})")
    outs = ", ".join(f"%{v.name}" if isinstance(v, Value) else repr(v) for v in graph.outputs)
    lines.append(f"{indent}-> ({outs})" if block else f"{indent}return ({outs})")
    return lines


def python_code(graph):
    """The graph as Python that calls labkit ops (what TorchScript shows as `.code`)."""
    args = ", ".join(v.name for v in graph.inputs if v.role == "input")
    lines = [f"def {graph.name if graph.name.isidentifier() else 'forward'}({args}):"]
    lines += _py_body(graph, "    ")
    return "\n".join(lines)


def _py_name(v):
    return v.name if v.name[0].isalpha() and v.name.replace(".", "_").isidentifier() \
        else f"_{v.name}"


def _py_arg(a):
    if isinstance(a, Value):
        return _py_name(a).replace(".", "_")
    if isinstance(a, Raw):
        return _py_arg(a.value)
    if isinstance(a, tuple):
        return "(" + ", ".join(_py_arg(x) for x in a) + ("," if len(a) == 1 else "") + ")"
    if isinstance(a, list):
        return "[" + ", ".join(_py_arg(x) for x in a) + "]"
    return _fmt(a)


def _py_body(graph, indent, block=False):
    lines = []
    for v in graph.inputs:
        if v.role == "param":
            lines.append(f"{indent}{_py_arg(v)} = self.{v.name}  # captured by reference")
    for v in graph.constants:
        lines.append(f"{indent}{_py_arg(v)} = {_const_text(v.ref)}  # a constant")
    for node in graph.nodes:
        outs = ", ".join(_py_arg(v) for v in node.outputs)
        args = node.args if isinstance(node.args, tuple) else (node.args,)
        parts = [_py_arg(a) for a in args]
        parts += [f"{k}={_py_arg(a)}" for k, a in (node.meta.get("kw") or {}).items()]
        call = f"{node.kind}({', '.join(parts)})"
        lines.append(f"{indent}{outs} = {call}" if outs else indent + call)
        for b in node.blocks:
            lines.append(f"{indent}# {node.kind} block {b.name}:")
            lines += _py_body(b, indent + "    ", block=True)
    for p, v in graph.stores:
        lines.append(f"{indent}{_py_arg(p)}.copy_({_py_arg(v)})")
    outs = ", ".join(_py_arg(v) if isinstance(v, Value) else repr(v) for v in graph.outputs)
    lines.append(f"{indent}# -> {outs}" if block else f"{indent}return {outs}")
    return lines


def copy_graph(graph):
    """A copy that passes can change without touching the original (arrays are shared)."""
    new = {}

    def val(v):
        if v not in new:
            c = Value(v.name, v.shape, v.dtype, v.role, v.ref, v.kind)
            c.requires_grad, c.source = v.requires_grad, v.source
            new[v] = c
        return new[v]

    def block(g):
        out = Graph(g.name)
        out._ids, out._cids = g._ids, g._cids
        out.inputs = [val(v) for v in g.inputs]
        out.constants = [val(v) for v in g.constants]
        for n in g.nodes:
            blocks = [block(b) for b in n.blocks]
            out.add_node(n.kind, n.fn, map_values(n.args, val), [val(v) for v in n.outputs],
                         blocks, dict(n.meta))
        out.outputs = [val(v) if isinstance(v, Value) else v for v in g.outputs]
        out.stores = [(val(p), val(v)) for p, v in g.stores]
        return out
    return block(graph)
