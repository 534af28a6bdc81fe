"""Fusion: several ops become one node that runs as one unit.

- matmul + bias (+ ReLU): `mm -> add(bias) -> relu` (or linear -> relu) is one node: the
  product is written into its output buffer and the bias and ReLU are applied there, in place.
- elementwise chains: a run of elementwise ops over the same shape becomes one fused group,
  compiled to one kernel (on the CPU a numpy function that reuses its buffers; on a GPU one
  CUDA kernel), so intermediate results never make a trip through fresh memory.
The members stay inside the fused node as a block: the graph can still be printed and drawn.
"""
from ...engine.ops import arithmetic, unary
from ..ir import Graph, Value
from ..ops import LINEAR, elementwise, is_matmul
from .uses import live_roots, users


def _block(name, members, outputs):
    b = Graph(name)
    b.nodes = list(members)
    b.outputs = list(outputs)
    return b


def _only_user(v, use, roots):
    readers = use.get(v, [])
    return readers[0] if len(readers) == 1 and v not in roots else None


def _is_relu(node, v):
    if node.fn is unary.Relu:
        return True
    return node.fn is unary.ClampMin and node.args[1] == 0 and node.args[0] is v


def fuse_matmul(graph):
    use, roots = users(graph), set(live_roots(graph))
    for node in list(graph.nodes):
        if node not in graph.nodes:
            continue
        members, args = _matmul_bias(node, use, roots)
        if members is None:
            continue
        last = members[-1].outputs[0]
        nxt = _only_user(last, use, roots)
        relu = nxt is not None and _is_relu(nxt, last)
        if relu:
            members.append(nxt)
        elif node.fn is LINEAR:
            continue                  # linear is x @ w.T + b already: nothing to fuse
        kind = ("linear" if node.fn is LINEAR else "addmm") + ("_relu" if relu else "")
        out = members[-1].outputs[0]
        where = graph.nodes.index(members[-1])
        fused = _new_node(kind, args, out, members, {"relu": relu, "linear": node.fn is LINEAR})
        graph.nodes[where] = fused
        for m in members[:-1]:
            graph.nodes.remove(m)
    return graph


def _new_node(kind, args, out, members, meta):
    from ..ir import Node
    node = Node.__new__(Node)
    node.kind, node.fn, node.args, node.outputs = kind, None, args, [out]
    node.blocks = [_block("block", members, [out])]
    node.meta = dict(meta, tuple=False)
    return node


def _matmul_bias(node, use, roots):
    """([members], (x, w, bias)) for mm + add(bias) or linear(x, w, b); else (None, None)."""
    if node.fn is LINEAR and isinstance(node.args[2], Value):
        return [node], tuple(node.args)
    if not is_matmul(node.fn) or len(node.outputs[0].shape or ()) != 2:
        return None, None
    out = node.outputs[0]
    add = _only_user(out, use, roots)
    if add is None or add.fn is not arithmetic.Add:
        return None, None
    other = add.args[1] if add.args[0] is out else add.args[0]
    if (not isinstance(other, Value) or other.shape not in ((out.shape[1],), (1, out.shape[1]))
            or add.outputs[0].shape != out.shape or other is out):
        return None, None
    return [node, add], (node.args[0], node.args[1], other)


def fusable(node):
    return (elementwise(node.fn) and not node.blocks and not node.meta.get("side")
            and len(node.outputs) == 1 and node.outputs[0].shape is not None)


def fuse_elementwise(graph, min_size=2):
    """Replace each run of >= min_size consecutive elementwise nodes of one shape by a
    'fused' node; its outputs are the members' results read after the run."""
    use, roots = users(graph), set(live_roots(graph))
    runs, run = [], []
    for node in graph.nodes:
        if fusable(node) and (not run or node.outputs[0].shape == run[0].outputs[0].shape):
            run.append(node)
            continue
        runs.append(run)
        run = [node] if fusable(node) else []
    runs.append(run)
    count = sum(1 for n in graph.nodes if n.kind == "fused")
    for run in runs:
        if len(run) < min_size:
            continue
        inside = set(run)
        made = {v for n in run for v in n.outputs}
        ins = list(dict.fromkeys(v for n in run for v in n.inputs if v not in made))
        outs = [v for n in run for v in n.outputs
                if v in roots or any(u not in inside for u in use.get(v, []))]
        fused = _new_node("fused", tuple(ins), None, run, {"group": count})
        fused.outputs = outs
        fused.blocks = [_block(f"fused_{count}", run, outs)]
        count += 1
        where = graph.nodes.index(run[0])
        graph.nodes[where:where + len(run)] = [fused]
    return graph
