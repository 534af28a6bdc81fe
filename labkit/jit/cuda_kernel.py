"""A fused elementwise group as one CUDA kernel (a CuPy ElementwiseKernel).

On a GPU every kernel launch costs a few microseconds and every intermediate array a round trip
through GPU memory; a fused group does all its ops per element in registers, in one launch.
The C source is made from the group's nodes, so it can be printed (and checked) on a machine
without a GPU; building and running it needs CuPy and a GPU (device="cuda").
"""
from ..engine.ops import arithmetic, select, unary
from .ir import Value
from .ops import POW_FAST, UFUNCS

_C_TYPES = {"float32": "float", "float64": "double", "int64": "long long", "int32": "int",
            "bool": "bool", "float16": "float16"}
_INFIX = {"add": "+", "subtract": "-", "multiply": "*", "true_divide": "/", "greater": ">",
          "greater_equal": ">=", "less": "<", "less_equal": "<=", "equal": "==",
          "not_equal": "!=", "logical_and": "&&", "logical_or": "||"}
_CALL = {"exp": "exp", "log": "log", "sqrt": "sqrt", "sin": "sin", "cos": "cos",
         "tanh": "tanh", "absolute": "abs", "maximum": "max", "minimum": "min",
         "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite"}


def _lit(x, ctype):
    if isinstance(x, bool):
        return "true" if x else "false"
    return f"(({ctype}){x!r})"


def expression(node, name, ctype):
    """The C expression computing a member node's output from its operands' names."""
    fn, args = node.fn, node.args
    ops = [name(a) if isinstance(a, Value) else _lit(a, ctype) for a in args]
    if fn in UFUNCS:
        u = UFUNCS[fn]
        if u in _INFIX:
            return f"({ops[0]} {_INFIX[u]} {ops[1]})"
        if u == "negative":
            return f"(-{ops[0]})"
        if u == "logical_not":
            return f"(!{ops[0]})"
        if u == "sign":
            return f"(({ctype})(({ops[0]} > 0) - ({ops[0]} < 0)))"
        return f"{_CALL[u]}({', '.join(ops)})"
    if fn is arithmetic.Pow:
        p = args[1]
        if POW_FAST.get(p) == "square":
            return f"({ops[0]} * {ops[0]})"
        return f"pow({ops[0]}, {_lit(p, ctype)})"
    if fn is unary.Relu:
        return f"max({ops[0]}, ({ctype})0)"
    if fn is unary.ClampMin:
        return f"max({ops[0]}, {ops[1]})"
    if fn is unary.ClampMax:
        return f"min({ops[0]}, {ops[2]})"
    if fn is unary.Clamp:
        return f"min(max({ops[0]}, {ops[1]}), {ops[2]})"
    if fn is unary.TanhGrad:          # the engine's order: g * (1 - y * y)
        return f"({ops[0]} * (({ctype})1 - {ops[1]} * {ops[1]}))"
    if fn is unary.SigmoidGrad:       # the engine's order: g * (y * (1 - y))
        return f"({ops[0]} * ({ops[1]} * (({ctype})1 - {ops[1]})))"
    if fn is unary.Sigmoid:
        return f"(({ctype})1 / (({ctype})1 + exp(-{ops[0]})))"
    if fn is select.Where:
        return f"({ops[0]} ? {ops[1]} : {ops[2]})"
    raise NotImplementedError(f"no CUDA form for {node.kind} in a fused group")


def kernel_source(group):
    """(name, in_params, out_params, operation) of the ElementwiseKernel for a fused node."""
    members = group.blocks[0].nodes
    ins = list(group.args)
    names = {v: f"in{i}" for i, v in enumerate(ins)}
    outs = {v: f"out{i}" for i, v in enumerate(group.outputs)}
    lines = []
    for k, node in enumerate(members):
        v = node.outputs[0]
        ctype = _C_TYPES[v.dtype.name]
        local = f"t{k}"
        lines.append(f"{ctype} {local} = {expression(node, names.__getitem__, ctype)};")
        names[v] = local
        if v in outs:
            lines.append(f"{outs[v]} = {local};")
    in_params = ", ".join(f"{v.dtype.name} {names_in}" for v, names_in in
                          ((v, f"in{i}") for i, v in enumerate(ins)))
    out_params = ", ".join(f"{v.dtype.name} {outs[v]}" for v in group.outputs)
    return f"fused_{group.meta['group']}", in_params, out_params, "\n".join(lines)


def make_kernel(group):
    """The CuPy ElementwiseKernel for a fused node (needs CuPy and a GPU)."""
    import cupy
    name, in_params, out_params, operation = kernel_source(group)
    return cupy.ElementwiseKernel(in_params, out_params, operation, name)
