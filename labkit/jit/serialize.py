"""save/load of a graph: a zip holding graph.json (the nodes, by op name) and one .npy per
weight or constant. No pickle and no code: an op is stored as the name of a labkit Function
(or a tensor method, a labkit function, an operator), and load() accepts only those, so a
saved graph runs in a process that never imports the code that built it.

What a loaded graph may do is an allow-list, checked for every node before anything runs:
labkit's own Functions; public tensor methods and a fixed set of tensor attributes (never a
dunder or private name: `x.__class__.__init__.__globals__` is how a graph would reach exec);
the arithmetic/comparison operators and getitem (no getattr-like operator); float/int/bool;
and public functions of labkit's engine and nn.functional. Loops are bounded: a call may run
at most `max_loop_iterations` loop turns in all. The file itself is read by labkit._io's
hardened reader (sizes bounded, strict JSON, no duplicate entries, one error type).
"""
import importlib
import io
import json
import math
import operator
import re
import threading
import types
import zipfile

import numpy as np

from .._io import Archive, LoadError, atomic_write
from ..engine.device import Device, cpu, to_host
from ..engine.function import Function
from ..engine.tensor import Tensor
from .calls import call_method, get_attr
from .ir import Graph, Raw, Value

FORMAT = "labkit.jit.graph"
VERSION = 1
MAX_LOOP_ITERATIONS = 10 ** 7    # loop turns one call of a loaded graph may run, in all


class GraphLoadError(LoadError):
    """A file labkit.jit.load refuses: not a saved graph, damaged, or asking for code that a
    saved graph may not run (the message names the node)."""


class _Refused(GraphLoadError):
    """A refusal found while reading graph.json; load() adds the file's name to it."""


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


_OPERATORS = {name: getattr(operator, name) for name in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "neg", "pos", "not_",
    "gt", "ge", "lt", "le", "eq", "ne", "getitem")}
_ATTRS = frozenset({"shape", "T", "mT", "H", "mH", "dtype", "device", "ndim", "requires_grad",
                    "is_leaf", "data", "grad", "real", "imag", "is_cuda", "itemsize", "nbytes"})
_DENIED_METHODS = frozenset({"register_hook", "register_post_accumulate_grad_hook", "apply_",
                             "map_", "map2_"})
_PUBLIC = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_MODULES = re.compile(r"labkit(\.nn\.functional|\.engine(\.[a-z][a-z0-9_]*)*|\.linalg|\.special"
                      r"|\.fft)?")
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.]{0,199}")


class _Ops:
    """What a saved graph may name, gathered once per save or load: labkit's Functions
    {'module:qualname': class} and the public tensor methods."""

    def __init__(self):
        self.functions = _functions()
        self.methods = {n for n in dir(Tensor)
                        if _PUBLIC.fullmatch(n) and callable(getattr(Tensor, n, None))
                        } - _DENIED_METHODS


def _resolve(op, ops, where):
    """What runs a node, if the allow-list has it; else a GraphLoadError naming the node."""
    if op is None:
        return None
    if not isinstance(op, str):
        raise _Refused(f"{where}: its op {op!r} is not an op name.")
    kind, _, name = op.partition(":")
    if kind == "function" and name in ops.functions:
        return ops.functions[name]
    if kind == "method" and name in ops.methods:
        return call_method(name)
    if kind == "attr" and name in _ATTRS:
        return get_attr(name)
    if kind == "builtin" and name in ("float", "int", "bool"):
        return {"float": float, "int": int, "bool": bool}[name]
    if kind == "operator" and name in _OPERATORS:
        return _OPERATORS[name]
    if kind == "labkit":
        fn = _labkit_function(name)
        if fn is not None:
            return fn
    why = {"function": "not one of labkit's ops (saved by another labkit version?)",
           "method": "not a public tensor method",
           "attr": "not a tensor attribute a graph may read",
           "operator": "not an arithmetic, comparison or indexing operator",
           "labkit": "not a public function of labkit's engine or nn.functional",
           "builtin": "not float, int or bool"}
    raise _Refused(f"{where} runs the op {op[:120]!r}, "
                         f"{why.get(kind, 'an unknown kind of op')}. A saved graph may run "
                         "only labkit's own ops, never other code")


def _labkit_function(path):
    module, _, attr = path.rpartition(".")
    if not (_MODULES.fullmatch(module) and _PUBLIC.fullmatch(attr)):
        return None
    try:
        fn = getattr(importlib.import_module(module), attr, None)
    except ImportError:
        return None
    owner = getattr(fn, "__module__", None) or ""
    if (isinstance(fn, (types.FunctionType, types.BuiltinFunctionType))
            and (owner.startswith("labkit.engine") or owner in ("labkit",
                                                                 "labkit.nn.functional"))):
        return fn
    return None


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
    """An argument back from JSON; anything but the encodings _enc writes is refused."""
    if isinstance(a, list):
        return [_dec(x, values) for x in a]
    if not isinstance(a, dict):
        return a
    if len(a) != 1:
        raise ValueError(f"an argument encoding with keys {sorted(a)[:5]}")
    (key, x), = a.items()
    if key == "v":
        return values[x]
    if key == "raw":
        return Raw(values[x])
    if key == "tuple":
        return tuple(_dec(y, values) for y in _list(x))
    if key == "dict":
        if not isinstance(x, dict):
            raise ValueError("a dict argument that is not a JSON object")
        return {k: _dec(y, values) for k, y in x.items()}
    if key == "float" and x in ("inf", "-inf", "nan"):
        return float(x)
    if key == "scalar" and isinstance(x, list) and len(x) == 2 and _number(x[1]):
        return _dtype(x[0]).type(x[1])
    if key == "dtype":
        return _dtype(x)
    if key == "device" and isinstance(x, str):
        return Device(x)
    if key == "slice":
        return slice(*(_dec(y, values) for y in _list(x, 3)))
    if key == "ellipsis" and x is True:
        return Ellipsis
    raise ValueError(f"unknown argument encoding {key[:40]!r}")


def _list(x, n=None):
    if not isinstance(x, list) or (n is not None and len(x) != n):
        raise ValueError("a malformed argument list")
    return x


def _number(x):
    return isinstance(x, (bool, int, float))


def _dtype(x):
    dt = np.dtype(x) if isinstance(x, str) else None
    if dt is None or dt.kind not in "biufc" or dt.fields is not None or dt.subdtype is not None:
        raise ValueError(f"the dtype {str(x)[:40]!r} (only numeric dtypes)")
    return dt


def _val(v):
    return {"name": v.name, "shape": v.shape and list(v.shape), "dtype": v.dtype and v.dtype.str,
            "kind": v.kind, "requires_grad": v.requires_grad}


def _checked_op(node, ops):
    """The node's op name, if load() will accept it (else say so now, not at load time)."""
    op = _op_id(node)
    try:
        _resolve(op, ops, f"node {node.kind!r}")
    except GraphLoadError as e:
        raise ValueError(f"save: {e}; jit.load would refuse this graph. Use labkit ops and "
                         "tensor methods in the function you save.") from None
    return op


def _graph_json(g, arrays, ops, top=False):
    out = {"name": g.name, "nodes": [], "outputs": [_enc(v) for v in g.outputs],
           "block_inputs": None if top else [_val(v) for v in g.inputs]}
    for node in g.nodes:
        meta = {k: v for k, v in node.meta.items() if k in ("tuple", "side", "kw", "group",
                                                            "relu", "linear")}
        if "kw" in meta and meta["kw"] is not None:
            meta["kw"] = _enc(meta["kw"])
        if "side" in meta:
            meta["side"] = [list(p) for p in meta["side"]]
        out["nodes"].append({"kind": node.kind, "op": _checked_op(node, ops),
                             "args": _enc(node.args),
                             "outputs": [_val(v) for v in node.outputs], "meta": meta,
                             "blocks": [_graph_json(b, arrays, ops)
                                        for b in node.blocks]})
    return out


def save(obj, path, extra=None):
    """Write a traced/scripted/compiled function's graph and its weights to a zip file
    (atomically: a crash mid-save leaves the file that was there before). `extra` maps more
    JSON entries to write beside graph.json (labkit.export's export.json)."""
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
    body = _graph_json(graph, arrays, _Ops(), top=True)
    doc["body"] = body
    with atomic_write(path, "jit.save") as fh, zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as z:
        z.writestr("graph.json", json.dumps(doc, indent=1, allow_nan=False))
        for name, entry in (extra or {}).items():
            z.writestr(name, json.dumps(entry, indent=1, allow_nan=False))
        for name, arr in arrays.items():
            buf = io.BytesIO()
            np.save(buf, arr, allow_pickle=False)
            z.writestr(name, buf.getvalue())


def _value(entry, role=None, ref=None):
    if not isinstance(entry, dict) or not _NAME.fullmatch(str(entry.get("name"))):
        raise ValueError(f"a value description {str(entry)[:80]}")
    shape, dtype = entry["shape"], entry["dtype"]
    if shape is not None and not (isinstance(shape, list)
                                  and all(type(d) is int and d >= 0 for d in shape)):
        raise ValueError(f"the shape {str(shape)[:40]} of %{entry['name']}")
    kind = entry["kind"]
    if kind not in ("Tensor", "float", "int", "bool"):
        raise ValueError(f"the kind {str(kind)[:40]!r} of %{entry['name']}")
    v = Value(entry["name"], shape, None if dtype is None else _dtype(dtype), role=role,
              ref=ref, kind=kind)
    v.requires_grad = entry["requires_grad"] is True
    return v


_META_KEYS = ("tuple", "side", "kw", "group", "relu", "linear")


def _side_path(p):
    ok = (isinstance(p, list) and len(p) >= 2 and (
        (p[0] == "saved" and all(type(i) is int for i in p[1:]))
        or (p[0] == "attr" and isinstance(p[1], str) and _PUBLIC.fullmatch(p[1])
            and all(type(i) is int for i in p[2:]))))
    if not ok:
        raise ValueError(f"a side-output path {str(p)[:60]}")
    return tuple(p)


def _read(g, body, values, ops, budget, where, depth=0):
    if depth > 50:
        raise ValueError("blocks nested more than 50 deep")
    for i, n in enumerate(_list(body["nodes"])):
        here = f"{where} node {i} ({str(n.get('kind') if isinstance(n, dict) else n)[:40]!r})"
        try:
            _read_node(g, n, values, ops, budget, here, depth)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            if isinstance(e, GraphLoadError):
                raise
            raise _Refused(f"{here} is malformed ({type(e).__name__}: {str(e)[:200]})") \
                from None
    g.outputs = body["outputs"]


def _read_node(g, n, values, ops, budget, here, depth):
    kind = n["kind"]
    if not isinstance(kind, str) or not _NAME.fullmatch(kind):
        raise _Refused(f"{here}: its kind is not a plain op name.")
    fn = _resolve(n["op"], ops, here)
    nblocks = {"If": 2, "Loop": 1}.get(kind)
    if (nblocks is not None and (fn is not None or len(n["blocks"]) != nblocks)) or \
            (fn is None and not n["blocks"]):
        raise _Refused(f"{here}: a node with no op must be an If (2 blocks), a Loop "
                             "(1 block) or a fused group.")
    blocks = []
    for b in _list(n["blocks"]):
        block = Graph(str(b["name"])[:200])
        block.inputs = [_value(e) for e in _list(b["block_inputs"] or [])]
        values.update((v.name, v) for v in block.inputs)
        _read(block, b, values, ops, budget, here, depth + 1)
        blocks.append(block)
    outs = [values.get(e["name"]) or _value(e) for e in n["outputs"]]  # a fused node's
    # outputs are its members' (already read with its block)
    args = _dec(n["args"], values)
    values.update((v.name, v) for v in outs)
    meta = {k: v for k, v in n["meta"].items() if k in _META_KEYS}
    if meta.get("kw") is not None:
        meta["kw"] = _dec(meta["kw"], values)
        if not isinstance(meta["kw"], dict):
            raise ValueError(f"{here}: keyword arguments that are not a dict")
    if "side" in meta:
        meta["side"] = [_side_path(p) for p in _list(meta["side"])]
    if kind == "Loop":
        meta["budget"] = budget
    node = g.add_node(kind, fn, args, outs, blocks, meta)
    for b in blocks:                     # block outputs may name values made later
        b.outputs = [_dec(o, values) for o in _list(b.outputs)]
    node.blocks = blocks


def _allowed(name):      # export.json: what labkit.export adds beside the graph
    return name in ("graph.json", "export.json") or bool(re.fullmatch(r"(params|constants)/[A-Za-z0-9_.]{1,200}"
                                                     r"\.npy", name))


def load(path, max_bytes=256 << 20, max_loop_iterations=MAX_LOOP_ITERATIONS):
    """A saved graph, ready to call (LoadedFunction); needs labkit and numpy only.

    Refused with a GraphLoadError naming the file (and the node, for an op a saved graph may
    not run): anything labkit.jit.save does not write. max_bytes bounds what compressed
    entries may inflate to; max_loop_iterations the loop turns one call may run."""
    with Archive(path, "jit.load", "labkit.jit graph", GraphLoadError, allowed=_allowed,
                 required=("graph.json",), compressed=True, max_inflated=max_bytes) as ar:
        doc = ar.json("graph.json")
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ar.fail(f"it is not a labkit.jit graph (format "
                          f"{str(doc.get('format') if isinstance(doc, dict) else doc)[:40]!r})")
        if doc.get("version") != VERSION:
            raise ar.fail(f"it is graph format version {str(doc.get('version'))[:20]}; this "
                          f"labkit reads version {VERSION}. Update labkit (or save again)")
        budget = _LoopBudget(max_loop_iterations)
        try:
            graph, tuple_out = _graph(ar, doc, budget), doc["tuple_out"] is True
        except _Refused as e:
            raise ar.fail(str(e)) from None
        except GraphLoadError:
            raise                              # the reader's own error names the file
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError,
                OverflowError) as e:
            raise ar.fail(f"graph.json is malformed ({type(e).__name__}: {str(e)[:200]})") \
                from None
    return LoadedFunction(graph, tuple_out, budget)


def _graph(ar, doc, budget):
    expected = set()
    graph = Graph(str(doc["name"])[:200])
    values = {}
    for e in doc["inputs"]:
        ref = None
        if e["role"] not in ("input", "param"):
            raise ValueError(f"the input role {str(e['role'])[:20]!r}")
        if e["role"] == "param":
            name = f"params/{e['name']}.npy"
            expected.add(name)
            ref = Tensor._make(_array(ar, name, e), cpu, e["requires_grad"] is True)
        v = _value(e, e["role"], ref)
        graph.inputs.append(v)
        values[v.name] = v
    for e in doc["constants"]:
        name = f"constants/{e['name']}.npy"
        expected.add(name)
        v = _value(e, "constant", _array(ar, name, e))
        graph.constants.append(v)
        values[v.name] = v
    if expected != set(ar.infos) - {"graph.json", "export.json"}:
        extra = sorted((set(ar.infos) - {"graph.json", "export.json"}) ^ expected)
        raise _Refused(f"graph.json and the arrays in the archive do not match "
                             f"({', '.join(extra[:3])})")
    _read(graph, doc["body"], values, _Ops(), budget, "graph.json")
    graph.outputs = [_dec(o, values) for o in _list(graph.outputs)]
    params = {v.name for v in graph.inputs if v.role == "param"}
    stores = []
    for pair in _list(doc["stores"]):
        p, v = _list(pair, 2)
        if p not in params:
            raise _Refused(f"graph.json writes into {str(p)[:40]!r}, which is not one of "
                                 "its captured tensors")
        stores.append((values[p], values[v]))
    graph.stores = stores
    return graph


def _array(ar, name, entry):
    if name not in ar.infos:
        raise _Refused(f"graph.json names {name}, which the archive does not hold")
    return ar.npy(name, None if entry["dtype"] is None else _dtype(entry["dtype"]),
                  entry["shape"])


class _LoopBudget(threading.local):
    """The loop turns a call of a loaded graph may still run (per thread: calls in two
    threads each get the whole budget)."""

    def __init__(self, limit):
        self.limit = self.left = limit


class LoadedFunction:
    """A graph read back from disk: call it like the function it was saved from."""

    def __init__(self, graph, tuple_out, budget=None):
        self.graph, self._tuple = graph, tuple_out
        self._budget = budget            # shared by the graph's Loop nodes

    @property
    def code(self):
        from .ir import python_code
        return python_code(self.graph)

    def parameters(self):
        return [v.ref for v in self.graph.inputs if v.role == "param"]

    def __call__(self, *args):
        from . import interpreter
        if self._budget is not None:
            self._budget.left = self._budget.limit
        out = interpreter.run(self.graph, args)
        return out if self._tuple else out[0]

    def __repr__(self):
        return f"<loaded {self.graph.name}>\n{self.graph}"
