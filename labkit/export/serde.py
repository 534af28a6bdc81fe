"""save/load of an ExportedProgram: labkit.jit's safe zip (graph.json by op name, one .npy per
weight, no pickle) plus export.json with the signature, the guards and the symbolic sizes.
Both go through labkit's one writer and one reader (labkit/_io.py): the file is written
atomically in one pass, and read with the same checks as every labkit file."""
import math

import numpy as np

from .dims import Dim
from .program import ExportedProgram, GraphSignature, InputSpec

FORMAT = "labkit.export"


def save(ep, path):
    from ..jit.serialize import save as save_graph
    dims = {d.name: [d.min, None if d.max == math.inf else d.max]
            for g in ep.guards for _, d in g[0] if d is not None}
    doc = {"format": FORMAT, "version": 1, "tuple_out": ep._tuple,
           "inputs": [[s.kind, s.name, s.target] for s in ep.graph_signature.input_specs],
           "outputs": [[s.kind, s.name] for s in ep.graph_signature.output_specs],
           "guards": [[[[s, None if d is None else d.name] for s, d in g[0]], g[1].str]
                      for g in ep.guards],
           "dims": dims,
           "sym_args": [[list(node), list(arg), list(sym)] for node, found in ep._sym_args.items()
                        for arg, sym in found.items()],
           "sym_shapes": {k: list(v) for k, v in ep._sym_shapes.items()}}
    save_graph(ep.graph, path, extra={"export.json": doc})


def load(path):
    """An ExportedProgram read back; runs in a process without the code that made it."""
    from .._io import Archive
    from ..jit.serialize import GraphLoadError, _allowed, load as load_graph
    with Archive(path, "labkit.export.load", "labkit exported program", GraphLoadError,
                 allowed=_allowed, required=("graph.json",), compressed=True) as ar:
        if "export.json" not in ar.infos:
            raise ar.fail("it holds no exported program (no export.json); a jit graph loads "
                          "with labkit.jit.load")
        doc = ar.json("export.json")
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ar.fail(f"export.json has format "
                          f"{str(doc.get('format') if isinstance(doc, dict) else doc)[:40]!r}")
        if doc.get("version") != 1:
            raise ar.fail(f"it is export format version {str(doc.get('version'))[:20]}; this "
                          "labkit reads version 1. Update labkit (or export again)")
    graph = load_graph(path).graph
    dims = {n: Dim(n, min=lo, max=hi) for n, (lo, hi) in doc["dims"].items()}
    guards = [([(s, None if d is None else dims[d]) for s, d in g], np.dtype(dt))
              for g, dt in doc["guards"]]
    sym_args = {}
    for node, arg, sym in doc["sym_args"]:
        sym_args.setdefault(tuple(node), {})[tuple(arg)] = tuple(sym)
    params = {v.name: v.ref for v in graph.inputs if v.role == "param"}
    specs = [InputSpec(k, n, t) for k, n, t in doc["inputs"]]
    state = {s.target: params[s.name] for s in specs if s.target is not None and s.name in params}
    return ExportedProgram(graph, GraphSignature(specs, [InputSpec(k, n) for k, n in doc["outputs"]]),
                           guards, sym_args, {k: tuple(v) for k, v in doc["sym_shapes"].items()},
                           doc["tuple_out"], state)
