"""The Python state a function can reach: parameters (whose .grad a step changes), optimizers
(whose hyperparameters and state a compiled step depends on), and names for captured tensors."""
from ..engine.tensor import Tensor


def _leaves_of(obj):
    if isinstance(obj, (tuple, list)):
        for o in obj:
            yield from _leaves_of(o)
    elif isinstance(obj, dict):
        for k in sorted(obj, key=str):
            yield from _leaves_of(obj[k])
    else:
        yield obj


def reachable_state(fn, args):
    """(leaf tensors, optimizers, {id(tensor): name}) that fn can reach through its arguments,
    its closure, the globals it names, and the object it is bound to (a module)."""
    named = [(None, a) for a in _leaves_of(args)]
    f = fn
    if hasattr(fn, "__self__"):
        named.append((None, fn.__self__))
        f = fn.__func__
    if hasattr(fn, "parameters") and not hasattr(fn, "__code__"):
        named.append((None, fn))
    code = getattr(f, "__code__", None)
    for name, cell in zip(code.co_freevars if code else (), getattr(f, "__closure__", None) or ()):
        try:
            named.append((name, cell.cell_contents))
        except ValueError:
            pass
    if code is not None:
        g = getattr(f, "__globals__", {})
        named += [(n, g[n]) for n in code.co_names if n in g]
    leaves, optimizers, names = {}, [], {}
    for name, o in named:
        if isinstance(o, Tensor) and name:
            names[id(o)] = name
        elif name and hasattr(o, "named_parameters"):
            names.update((id(p), f"{name}.{n}") for n, p in o.named_parameters())
        for x in (o if isinstance(o, (list, tuple)) else (o,)):
            _collect(x, leaves, optimizers)
    return list(leaves.values()), optimizers, names


def _collect(o, leaves, optimizers):
    if isinstance(o, Tensor):
        if o._rg and o.grad_fn is None:
            leaves[id(o)] = o
    elif hasattr(o, "param_groups") and hasattr(o, "state"):
        if all(o is not x for x in optimizers):
            optimizers.append(o)
        for g in o.param_groups:
            for p in g["params"]:
                leaves[id(p)] = p
    elif hasattr(o, "parameters") and hasattr(o, "named_parameters"):
        for p in o.parameters():
            leaves[id(p)] = p


def state_fingerprint(opt):
    return [(id(k), sorted((n, id(v)) for n, v in s.items())) for k, s in opt.state.items()]


def hyperparameters(opt):
    return [sorted((k, v) for k, v in g.items() if k != "params"
                   and isinstance(v, (int, float, bool, str, type(None))))
            for g in opt.param_groups]
