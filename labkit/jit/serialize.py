"""save/load of a graph: a zip holding graph.json (the nodes, by op name) and one .npy per
weight or constant. No pickle and no code: an op is stored as the name of a labkit Function
(or a tensor method, a labkit function, an operator), and load() accepts only those, so a
saved graph runs in a process that never imports the code that built it.
"""
import importlib
import io
import json
import math
import operator
import zipfile

import numpy as np

from ..engine.device import Device, to_host
from ..engine.function import Function
from ..engine.tensor import Tensor
from .ir import Graph, Raw, Value

FORMAT = "labkit.jit.graph"
VERSION = 1


def _functions():
    """{'module:qualname': Function class} for every Function labkit defines."""
    importlib.import_module("labkit.engine.ops")
    out, todo = {}, [Function]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("labkit."):
                out[f"{sub.__module__}:{sub.__qualname__}"] = sub
    return out


def _op_id(node):
    fn = node.fn
    if fn is None:
        return None
    if isinstance(fn, type) and issubclass(fn, Function):
        key = f"{fn.__module__}:{fn.__qualname__}"
        if not fn.__module__.startswith("labkit."):
            raise ValueError(f"save: node {node.kind} runs {fn.__qualname__}, a Function defined "
                             "outside labkit; a saved graph may only name labkit's ops (loading "
                             "never imports other code). Export it with its own code instead.")
        return "function:" + key
    if hasattr(fn, "method"):
        return "method:" + fn.method
    if hasattr(fn, "attr"):
        return "attr:" + fn.attr
    if fn in (float, int, bool):
        return "builtin:" + fn.__name__
    if getattr(operator, getattr(fn, "__name__", ""), None) is fn:
        return "operator:" + fn.__name__
    path = node.meta.get("path")
    if path and path.startswith("labkit."):
        return "labkit:" + path
    raise ValueError(f"save: node {node.kind} calls {fn!r}, which a saved graph cannot name "
                     "(a submodule or a non-labkit function). Save a traced version instead: "
                     "labkit.jit.trace(model, example).save(path).")


def _resolve(op, functions):
    if op is None:
        return None
    kind, _, name = op.partition(":")
    if kind == "function":
        if name not in functions:
            raise ValueError(f"load: unknown op {name!r} (saved by another labkit version?)")
        return functions[name]
    if kind == "method":
        from .script import _method
        return _method(name)
    if kind == "attr":
        from .script import _attr
        return _attr(name)
    if kind == "builtin" and name in ("float", "int", "bool"):
        return {"float": float, "int": int, "bool": bool}[name]
    if kind == "operator":
        return getattr(operator, name)
    if kind == "labkit" and name.startswith("labkit."):
        module, _, attr = name.rpartition(".")
        return getattr(importlib.import_module(module), attr)
    raise ValueError(f"load: refusing op {op!r}: only labkit ops can be loaded.")


# --- arguments as JSON -------------------------------------------------------------------------
def _enc(a):
    if isinstance(a, Value):
        return {"v": a.name}
    if isinstance(a, Raw):
        return {"raw": a.value.name}
    if isinstance(a, tuple):
        return {"tuple": [_enc(x) for x in a]}
    if isinstance(a, list):
        return [_enc(x) for x in a]
    if isinstance(a, dict):
        return {"dict": {k: _enc(x) for k, x in a.items()}}
    if isinstance(a, float) and not math.isfinite(a):
        return {"float": repr(a)}
    if a is None or isinstance(a, (bool, int, float, str)):
        return a
    if isinstance(a, np.generic):
        return {"scalar": [a.dtype.str, a.item()]}
    if isinstance(a, np.dtype):
        return {"dtype": a.str}
    if isinstance(a, Device):
        return {"device": str(a)}
    if isinstance(a, slice):
        return {"slice": [_enc(a.start), _enc(a.stop), _enc(a.step)]}
    if a is Ellipsis:
        return {"ellipsis": True}
    raise ValueError(f"save: cannot store an argument of type {type(a).__name__} in JSON.")


def _dec(a, values):
    if isinstance(a, list):
        return [_dec(x, values) for x in a]
    if not isinstance(a, dict):
        return a
    (key, x), = a.items()
    if key == "v":
        return values[x]
    if key == "raw":
        return Raw(values[x])
    if key == "tuple":
        return tuple(_dec(y, values) for y in x)
    if key == "dict":
        return {k: _dec(y, values) for k, y in x.items()}
    if key == "float":
        return float(x)
    if key == "scalar":
        return np.dtype(x[0]).type(x[1])
    if key == "dtype":
        return np.dtype(x)
    if key == "device":
        return Device(x)
    if key == "slice":
        return slice(*(_dec(y, values) for y in x))
    if key == "ellipsis":
        return Ellipsis
    raise ValueError(f"load: unknown argument encoding {key!r}.")


def _val(v):
    return {"name": v.name, "shape": v.shape and list(v.shape), "dtype": v.dtype and v.dtype.str,
            "kind": v.kind, "requires_grad": v.requires_grad}


def _graph_json(g, arrays, top=False):
    out = {"name": g.name, "nodes": [], "outputs": [_enc(v) for v in g.outputs],
           "block_inputs": None if top else [_val(v) for v in g.inputs]}
    for node in g.nodes:
        meta = {k: v for k, v in node.meta.items() if k in ("tuple", "side", "kw", "group",
                                                            "relu", "linear")}
        if "kw" in meta and meta["kw"] is not None:
            meta["kw"] = _enc(meta["kw"])
        if "side" in meta:
            meta["side"] = [list(p) for p in meta["side"]]
        out["nodes"].append({"kind": node.kind, "op": _op_id(node), "args": _enc(node.args),
                             "outputs": [_val(v) for v in node.outputs], "meta": meta,
                             "blocks": [_graph_json(b, arrays) for b in node.blocks]})
    return out


def save(obj, path):
    """Write a traced/scripted/compiled function's graph and its weights to a zip file."""
    graph = obj if isinstance(obj, Graph) else obj.graph
    arrays = {}
    doc = {"format": FORMAT, "version": VERSION, "name": graph.name, "inputs": [],
           "constants": [], "stores": [[p.name, v.name] for p, v in graph.stores],
           "tuple_out": bool(getattr(obj, "_tuple", len(graph.outputs) > 1))}
    for v in graph.inputs:
        entry = _val(v)
        entry["role"] = v.role
        if v.role == "param":
            arrays[f"params/{v.name}.npy"] = to_host(v.ref._data)
        doc["inputs"].append(entry)
    for c in graph.constants:
        arrays[f"constants/{c.name}.npy"] = to_host(c.ref)
        doc["constants"].append(_val(c))
    body = _graph_json(graph, arrays, top=True)
    doc["body"] = body
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("graph.json", json.dumps(doc, indent=1))
        for name, arr in arrays.items():
            buf = io.BytesIO()
            np.save(buf, arr, allow_pickle=False)
            z.writestr(name, buf.getvalue())


def _value(entry, role=None, ref=None):
    v = Value(entry["name"], entry["shape"], entry["dtype"], role=role, ref=ref,
              kind=entry["kind"])
    v.requires_grad = entry["requires_grad"]
    return v


def _read(g, body, values, functions):
    for n in body["nodes"]:
        blocks = []
        for b in n["blocks"]:
            block = Graph(b["name"])
            block.inputs = [_value(e) for e in b["block_inputs"] or ()]
            values.update((v.name, v) for v in block.inputs)
            _read(block, b, values, functions)
            blocks.append(block)
        outs = [values.get(e["name"]) or _value(e) for e in n["outputs"]]  # a fused node's
        # outputs are its members' (already read with its block)
        args = _dec(n["args"], values)
        values.update((v.name, v) for v in outs)
        meta = dict(n["meta"])
        if meta.get("kw") is not None:
            meta["kw"] = _dec(meta["kw"], values)
        if "side" in meta:
            meta["side"] = [tuple(p) for p in meta["side"]]
        node = g.add_node(n["kind"], _resolve(n["op"], functions), args, outs, blocks, meta)
        for b in blocks:                     # block outputs may name values made later
            b.outputs = [_dec(o, values) for o in b.outputs]
        node.blocks = blocks
    g.outputs = body["outputs"]


def load(path):
    """A saved graph, ready to call (LoadedFunction); needs labkit and numpy only."""
    with zipfile.ZipFile(path) as z:
        doc = json.loads(z.read("graph.json"))
        if doc.get("format") != FORMAT:
            raise ValueError(f"load: {path} is not a labkit.jit graph (format "
                             f"{doc.get('format')!r}).")

        def array(name):
            return np.load(io.BytesIO(z.read(name)), allow_pickle=False)
        graph = Graph(doc["name"])
        values = {}
        for e in doc["inputs"]:
            ref = None
            if e["role"] == "param":
                ref = Tensor(array(f"params/{e['name']}.npy"), requires_grad=e["requires_grad"])
            v = _value(e, e["role"], ref)
            graph.inputs.append(v)
            values[v.name] = v
        for e in doc["constants"]:
            v = _value(e, "constant", array(f"constants/{e['name']}.npy"))
            graph.constants.append(v)
            values[v.name] = v
    _read(graph, doc["body"], values, _functions())
    graph.outputs = [_dec(o, values) for o in graph.outputs]
    graph.stores = [(values[p], values[v]) for p, v in doc["stores"]]
    return LoadedFunction(graph, doc["tuple_out"])


class LoadedFunction:
    """A graph read back from disk: call it like the function it was saved from."""

    def __init__(self, graph, tuple_out):
        self.graph, self._tuple = graph, tuple_out

    @property
    def code(self):
        from .ir import python_code
        return python_code(self.graph)

    def parameters(self):
        return [v.ref for v in self.graph.inputs if v.role == "param"]

    def __call__(self, *args):
        from . import interpreter
        out = interpreter.run(self.graph, args)
        return out if self._tuple else out[0]

    def __repr__(self):
        return f"<loaded {self.graph.name}>\n{self.graph}"
