"""Malicious saved graphs for labkit.jit.load: each one, if its nodes ran, would execute code
(write a marker file). Used by tests/test_jit_load_safety.py and benchmarks/safety_figures.py.

A graph is built by saving a harmless trace (y = x * 2) and adding nodes to graph.json, so
the loaded graph would still return the right output while the extra nodes do their work."""
import json
import zipfile

import numpy as np

import labkit
from labkit import jit


def _val(name):
    return {"name": name, "shape": None, "dtype": None, "kind": "Tensor", "requires_grad": False}


def _node(kind, op, args, out, meta=None, blocks=()):
    return {"kind": kind, "op": op, "args": {"tuple": args}, "outputs": [_val(out)],
            "meta": meta or {}, "blocks": list(blocks)}


def v(name):
    return {"v": name}


def base_doc():
    """(graph.json as a dict, {entry name: bytes}) of a saved trace of x * 2."""
    import io
    buf = io.BytesIO()
    jit.save(jit.trace(lambda x: x * 2, labkit.ones(2)), buf)
    with zipfile.ZipFile(buf) as z:
        doc = json.loads(z.read("graph.json"))
        rest = {n: z.read(n) for n in z.namelist() if n != "graph.json"}
    return doc, rest


def payload(marker):
    return f"open({str(marker)!r}, 'w').write('code ran')"


def chains(marker):
    """{variant name: list of extra nodes} that reach exec (or os.system) from the input."""
    code = payload(marker)
    g = [  # the chain found by the probe: x.__class__.__init__.__globals__['__builtins__']
        _node("a", "attr:__class__", [v("x")], "a"),
        _node("b", "attr:__init__", [v("a")], "b"),
        _node("c", "attr:__globals__", [v("b")], "c"),
        _node("d", "operator:getitem", [v("c"), "__builtins__"], "d"),
        _node("e", "operator:getitem", [v("d"), "exec"], "e"),
        _node("f", "method:__call__", [v("e"), code], "f")]
    out = {"attr chain (__class__ .. __globals__ .. exec)": g}
    out["getattr as a builtin"] = [
        _node("a", "builtin:getattr", [v("x"), "__class__"], "a")] + g[1:]
    out["operator.attrgetter"] = [
        _node("a", "operator:attrgetter", ["__class__.__init__.__globals__"], "a"),
        _node("b", "method:__call__", [v("a"), v("x")], "c")] + g[3:]
    out["method __getattribute__"] = [
        _node("a", "method:__getattribute__", [v("x"), "__class__"], "a")] + g[1:]
    out["__reduce__"] = [
        _node("a", "method:__reduce_ex__", [v("x"), 2], "a"),
        _node("b", "operator:getitem", [v("a"), 0], "b"),
        _node("c", "attr:__globals__", [v("b")], "c")] + g[3:]
    out["__subclasses__"] = [
        _node("a", "attr:__class__", [v("x")], "a"),
        _node("b", "attr:__mro__", [v("a")], "b"),
        _node("c", "operator:getitem", [v("b"), -1], "c"),
        _node("d", "method:__subclasses__", [v("c")], "d")]
    out["__import__ as a builtin"] = [
        _node("a", "builtin:__import__", ["os"], "a"),
        _node("b", "method:system", [v("a"), f"touch {marker}"], "b")]
    out["__import__ through a labkit module"] = [
        _node("a", "labkit:labkit.engine.function.__builtins__", [], "a"),
        _node("b", "operator:getitem", [v("a"), "exec"], "b"),
        _node("c", "method:__call__", [v("b"), code], "c")]
    out["a stdlib module reached through a labkit module"] = [
        _node("a", "labkit:labkit.engine.function.os.system", [f"touch {marker}"], "a")]
    out["a labkit function that writes files"] = [
        _node("a", "labkit:labkit.save", [v("x"), str(marker)], "a")]
    out["a function outside labkit"] = [
        _node("a", "function:os:system", [f"touch {marker}"], "a")]
    out["string-built name (add then getattr)"] = [
        _node("a", "operator:add", ["__cla", "ss__"], "a"),
        _node("b", "method:__getattribute__", [v("x"), v("a")], "b")] + g[1:]
    out["string-built name (format)"] = [
        _node("a", "method:format", ["{0.__class__.__init__.__globals__}", v("x")], "a")]
    out["name with padding"] = [_node("a", "attr: __class__", [v("x")], "a")] + g[1:]
    out["private method"] = [_node("a", "method:_make", [v("x"), 1], "a")]
    out["hook registration"] = [_node("a", "method:register_hook", [v("x"), v("x")], "a")]
    out["object dtype argument"] = [
        _node("a", "method:to", [v("x"), {"dtype": "O"}], "a")]
    out["side-output path through a dunder"] = [
        _node("a", "function:labkit.engine.ops.arithmetic:Mul", [v("x"), 2.0], "a",
              meta={"side": [["attr", "__class__"]]})]
    out["code in a node kind"] = [
        _node("x);__import__('os').system('touch m')#", "operator:neg", [v("x")], "a")]
    return out


def write_graph(path, doc, rest):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("graph.json", json.dumps(doc))
        for name, data in rest.items():
            z.writestr(name, data)


def malicious(path, marker, variant):
    """Write the graph with `variant`'s nodes prepended (the output is still x * 2)."""
    doc, rest = base_doc()
    x = doc["inputs"][0]["name"]
    nodes = json.loads(json.dumps(chains(marker)[variant]).replace('"v": "x"',
                                                                   f'"v": "{x}"'))
    doc["body"]["nodes"] = nodes + doc["body"]["nodes"]
    write_graph(path, doc, rest)
    return np.float32(2.0)
