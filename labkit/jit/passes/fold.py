"""Constant folding: an op whose inputs are all constants is computed once, now, and its
result becomes a constant (the backward's ones, the 2 in d(x**2), a transposed constant).
Also two algebraic no-ops a backward often makes: x ** 1 and x * 1 are x; and a constant array
holding one number over and over, in an elementwise op, becomes that number."""
import math

from ...engine.device import device_of_array
from ...engine.ops import arithmetic
from ..ir import Value
from ..runtime import forward_caller, input_order
from .uses import replace_uses


def fold_constants(graph):
    for node in list(graph.nodes):
        if node.blocks or not isinstance(node.fn, type) or node.meta.get("batched"):
            continue
        ins = input_order(node)
        if ins and all(v.role == "constant" for v in ins) and _tensors_out(node):
            arrays = [v.ref for v in ins]
            out = forward_caller(node, device_of_array(arrays[0]))(*arrays)
            outs = out if isinstance(out, tuple) else (out,)
            for v, a in zip(node.outputs, outs):
                replace_uses(graph, v, graph.add_constant(a))
            graph.nodes.remove(node)
        elif _identity(node):
            replace_uses(graph, node.outputs[0], node.args[0])
            graph.nodes.remove(node)
        else:
            _uniform_to_number(node)
            _divide_by_power_of_two(node)
    return graph


def _divide_by_power_of_two(node):
    """x / 2**k -> x * 2**-k: the same bits (the reciprocal is exact), and a multiplication
    is several times cheaper than a division."""
    if node.fn is not arithmetic.Div or len(node.args) != 2:
        return
    x, c = node.args
    if isinstance(x, Value) and type(c) is float and c != 0 and math.isfinite(c) \
            and math.frexp(abs(c))[0] == 0.5:
        node.fn, node.kind, node.args = arithmetic.Mul, "mul", (x, 1.0 / c)


def _uniform_to_number(node):
    """add/sub/mul/div(c, x) with c a constant full of one float -> (number, x)."""
    if node.fn not in _ARITH or len(node.args) != 2:
        return
    out = node.outputs[0]
    args = list(node.args)
    for i, (c, x) in enumerate((args, args[::-1])):
        if (isinstance(c, Value) and c.role == "constant" and c.dtype.kind == "f"
                and isinstance(x, Value) and x.shape == out.shape and x.dtype == out.dtype
                and c.ref.size and (c.ref == c.ref.flat[0]).all()):
            args[i] = float(c.ref.flat[0])
            node.args = tuple(args)
            return


_ARITH = (arithmetic.Add, arithmetic.Sub, arithmetic.Mul, arithmetic.Div)


def _tensors_out(node):
    return all(v.kind == "Tensor" for v in node.outputs)


def _identity(node):
    """x ** 1 or x * 1 (same shape and dtype out as in)."""
    if node.fn not in (arithmetic.Pow, arithmetic.Mul) or len(node.args) != 2:
        return False
    x, k = node.args
    if not isinstance(x, Value) or type(k) not in (int, float) or k != 1:
        return False
    out = node.outputs[0]
    return out.shape == x.shape and out.dtype == x.dtype
