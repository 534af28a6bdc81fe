"""A fused elementwise group as one CUDA kernel (a CuPy ElementwiseKernel).

On a GPU every kernel launch costs a few microseconds and every intermediate array a round trip
through GPU memory; a fused group does all its ops per element in registers, in one launch.
The C source is made from the group's nodes, so it can be printed (and checked) on a machine
without a GPU; building and running it needs CuPy and a GPU (device="cuda").
"""
from ..engine.ops import table
from .ir import Value

_C_TYPES = {"float32": "float", "float64": "double", "int64": "long long", "int32": "int",
            "bool": "bool", "float16": "float16"}


def _lit(x, ctype):
    if isinstance(x, bool):
        return "true" if x else "false"
    return f"(({ctype}){x!r})"


def expression(node, name, ctype):
    """The C expression computing a member node's output from its operands' names: the op's
    `cuda` entry in the op table."""
    code = table.require(node.fn, "cuda", node.kind)
    lit = ctype
    if ctype == "bool":          # a comparison: a number takes its tensor operand's type
        v = next((a for a in node.args if isinstance(a, Value)), None)
        lit = ctype if v is None else _C_TYPES[v.dtype.name]
    ops = [name(a) if isinstance(a, Value) else _lit(a, lit) for a in node.args]
    return code(ops, node, ctype) if callable(code) else code.format(*ops, ctype=ctype)


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
