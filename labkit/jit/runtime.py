"""Running one op of a graph on raw arrays without a numpy template: call its Function's
forward on light stand-ins (a Tensor shell around each array, a ctx that keeps what forward
stores). No Node is made and nothing is recorded; the arrays a forward keeps for its backward
(ctx attributes, save_for_backward) come back as extra outputs when the graph uses them.
"""
import numpy as np

from ..engine.function import FunctionCtx
from ..engine.tensor import Tensor
from .ir import Raw, Value, map_values

_make = Tensor._make


def as_array(x, xp=np):
    """A tensor's array, an array of `xp` (numpy or cupy) as it is, anything else via xp."""
    if isinstance(x, Tensor):
        return x._data
    if isinstance(x, (np.ndarray, xp.ndarray)):
        return x
    return xp.asarray(x)


def follow(ctx, path, saved, xp=np):
    """The array at `path` (("saved", i, ...) or ("attr", name, ...)) inside a ctx whose
    save_for_backward got `saved`."""
    obj = saved if path[0] == "saved" else getattr(ctx, path[1])
    for i in path[1 if path[0] == "saved" else 2:]:
        obj = obj[i]
    return as_array(obj, xp)


class _Slot:
    """Where the i-th input array goes inside the op's arguments."""
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


def _fill(s, arrays, device):
    if isinstance(s, _Slot):
        return _make(arrays[s.i], device)
    if isinstance(s, Raw):
        return arrays[s.value.i]
    if isinstance(s, tuple):
        return tuple(_fill(x, arrays, device) for x in s)
    if isinstance(s, list):
        return [_fill(x, arrays, device) for x in s]
    return s


def forward_caller(node, device):
    """fn(*arrays) -> the output array, or a tuple (outputs, then side products), with the
    arrays given in the order of node.inputs."""
    order = {}
    for v in node.inputs:
        order.setdefault(v, len(order))
    slots = map_values(node.args, lambda v: _Slot(order[v]))
    needs = tuple(isinstance(a, Value) and a.requires_grad for a in node.args)
    sides = node.meta.get("side", ())
    n_out = len(node.outputs) - len(sides)
    forward, xp = node.fn.forward, device.xp

    def call(*arrays):
        ctx = FunctionCtx(needs)     # keeps what forward saves; nothing is recorded
        out = forward(ctx, *_fill(slots, arrays, device))
        outs = (tuple(as_array(o, xp) for o in out) if isinstance(out, tuple)
                else (as_array(out, xp),))
        if not sides and n_out == 1:
            return outs[0]
        return outs[:n_out] + tuple(follow(ctx, p, ctx._to_save, xp) for p in sides)
    call.__name__ = f"call_{node.kind}"
    return call


def input_order(node):
    """node.inputs without repeats: the arrays forward_caller's function takes."""
    return list(dict.fromkeys(node.inputs))
