"""labkit.export.export: the whole forward of a module or function as one graph of labkit ops,
parameters and buffers lifted as inputs, input shapes guarded (torch.export.export)."""
import numpy as np

from ..engine.tensor import Tensor
from .capture import ExportError, record, symbolize
from .dims import Dim
from .program import ExportedProgram, GraphSignature, InputSpec


def _lifted(mod):
    """({id(tensor): graph input name}, [InputSpec], {target: tensor}) for params and buffers."""
    names, specs, state = {}, [], {}
    if hasattr(mod, "named_parameters"):
        for kind, prefix, items in (("PARAMETER", "p_", mod.named_parameters()),
                                    ("BUFFER", "b_", mod.named_buffers())):
            for target, t in items:
                if id(t) in names:
                    continue
                names[id(t)] = prefix + target.replace(".", "_")
                specs.append(InputSpec(kind, names[id(t)], target))
                state[target] = t
    return names, specs, state


def _dims_per_arg(dynamic_shapes, args, arg_names):
    """[{dim index: Dim}] per argument, from a dict keyed by argument name or a sequence."""
    if dynamic_shapes is None:
        return [{} for _ in args]
    if isinstance(dynamic_shapes, dict):
        unknown = set(dynamic_shapes) - set(arg_names)
        if unknown:
            raise ExportError(f"labkit.export: dynamic_shapes names {sorted(unknown)}, but the "
                              f"function's inputs are {arg_names}.")
        per = [dynamic_shapes.get(n) for n in arg_names]
    else:
        per = list(dynamic_shapes)
        if len(per) != len(args):
            raise ExportError(f"labkit.export: dynamic_shapes has {len(per)} entries for "
                              f"{len(args)} inputs; give one per input (None: all static).")
    out = []
    for spec, a, n in zip(per, args, arg_names):
        if spec is None:
            out.append({})
            continue
        items = spec.items() if isinstance(spec, dict) else enumerate(spec)
        dims = {}
        for i, d in items:
            if d is None:
                continue
            if not isinstance(d, Dim):
                raise ExportError(f"labkit.export: dynamic_shapes[{n!r}][{i}] must be a "
                                  f"labkit.export.Dim, got {type(d).__name__}.")
            if not -a.ndim <= i < a.ndim:
                raise ExportError(f"labkit.export: {n} has {a.ndim} dims; there is no dim {i}.")
            size = a.shape[i]
            if not d.min <= size <= d.max:
                raise ExportError(f"labkit.export: the example {n}.shape[{i}] = {size} is outside "
                                  f"{d!r}; give an example inside the range.")
            dims[i % a.ndim] = d
        out.append(dims)
    return out


def _second_example(args, dims_per_arg):
    """The inputs again with every dynamic dim at another size: {(s1, s2): dim name}."""
    chosen, pairs = {}, {}
    for a, dims in zip(args, dims_per_arg):
        for i, d in dims.items():
            s1 = a.shape[i]
            if d.name in chosen:
                continue
            for step in range(1, 64):
                for s2 in (s1 + step, s1 - step):
                    if d.min <= s2 <= d.max and s2 >= 0 and (s1, s2) not in pairs:
                        break
                else:
                    continue
                break
            else:
                raise ExportError(f"labkit.export: {d!r} allows only the size {s1}; make the "
                                  "dimension static instead.")
            chosen[d.name] = s2
            pairs[(s1, s2)] = d.name
    new = []
    for a, dims in zip(args, dims_per_arg):
        if not dims:
            new.append(a)
            continue
        shape = [chosen[dims[i].name] if i in dims else s for i, s in enumerate(a.shape)]
        new.append(Tensor._make(a.device.xp.resize(a._data, shape), a.device))
    return new, pairs


def export(mod, args, kwargs=None, *, dynamic_shapes=None):
    """Capture mod(*args, **kwargs) whole: an ExportedProgram (no Python left in it)."""
    args = (args,) if isinstance(args, Tensor) else tuple(args)
    names, specs, state = _lifted(mod)
    graph, rebuild, arg_names = record(mod, args, kwargs, names)
    dims = _dims_per_arg(dynamic_shapes, args, arg_names)
    sym_args, sym_shapes = {}, {}
    if any(dims):
        args2, pairs = _second_example(args, dims)
        graph2, _, _ = record(mod, args2, kwargs, names)
        sym_args, sym_shapes = symbolize(graph, graph2, pairs)
    user = [InputSpec("USER_INPUT", v.name) for v in graph.inputs if v.role == "input"]
    by_name = {s.name: s for s in specs}
    lifted = [by_name[v.name] for v in graph.inputs if v.role == "param" and v.name in by_name]
    for v in graph.inputs:
        if v.role == "param" and v.name not in by_name:       # a tensor the function closed over
            lifted.append(InputSpec("CONSTANT_TENSOR", v.name, v.name))
            state[v.name] = v.ref
    outs = [InputSpec("USER_OUTPUT", f"output_{i}") for i in range(len(graph.outputs))]
    guards = [([(s, d.get(i)) for i, s in enumerate(a.shape)], np.dtype(a._data.dtype))
              for a, d in zip(args, dims)]
    tuple_out = isinstance(rebuild([None] * len(graph.outputs)), (tuple, list))
    return ExportedProgram(graph, GraphSignature(lifted + user, outs), guards, sym_args,
                           sym_shapes, tuple_out, state)
