"""Run a Graph on Tensors, one engine op per node: slow, but every op goes through
Function.apply, so autograd records it and `loss.backward()` works through a traced or
scripted function exactly as through the eager code (the same Functions run)."""
import numpy as np

from ..engine.grad_mode import no_grad
from ..engine.tensor import Tensor
from .ir import Raw, Value
from .runtime import as_array, follow, forward_caller, input_order

_make = Tensor._make


class Env(dict):
    """Value -> what it holds now (a Tensor, an array, or a Python value)."""

    def tensor(self, v, device):
        x = self[v]
        if isinstance(x, (np.ndarray, device.xp.ndarray)):
            x = _make(x, device)
        return x

    def arg(self, a, device):
        if isinstance(a, Raw):
            return as_array(self[a.value], device.xp)
        if isinstance(a, Value):
            return self.tensor(a, device)
        if isinstance(a, tuple):
            return tuple(self.arg(x, device) for x in a)
        if isinstance(a, list):
            return [self.arg(x, device) for x in a]
        return a


def bind_inputs(graph, args, env=None):
    env = Env() if env is None else env
    args = list(args)
    inputs = [v for v in graph.inputs if v.role == "input"]
    if len(args) != len(inputs):
        raise TypeError(f"{graph.name}: expected {len(inputs)} input(s) "
                        f"({', '.join('%' + v.name for v in inputs)}), got {len(args)}.")
    for v, a in zip(inputs, args):
        env[v] = a
    for v in graph.inputs:
        if v.role == "param":
            env[v] = v.ref
    for v in graph.constants:
        env[v] = v.ref
    return env


def run(graph, args, device=None):
    """The graph's outputs for these inputs (a tuple), computed with engine ops."""
    env = bind_inputs(graph, args)
    device = device or _device_of(env)
    run_nodes(graph.nodes, env, device)
    if graph.stores:
        with no_grad():
            for p, v in graph.stores:
                env[p].copy_(env.tensor(v, device))
    return tuple(env.tensor(v, device) if isinstance(v, Value) and v.kind == "Tensor"
                 else env[v] if isinstance(v, Value) else v for v in graph.outputs)


def _device_of(env):
    for x in env.values():
        if isinstance(x, Tensor):
            return x.device
    from ..engine.device import cpu
    return cpu


def run_nodes(nodes, env, device):
    for node in nodes:
        handler = CONTROL.get(node.kind)
        if handler is not None:
            handler(node, env, device)
            continue
        fn = node.fn
        if node.meta.get("batched"):    # one op per input, computed together in codegen
            out = tuple(fn.apply(a) for a in env.arg(node.args, device))
        elif isinstance(fn, type):
            out = fn.apply(*env.arg(node.args, device))
        elif node.blocks:               # a fused group: its members, one by one
            run_nodes(node.blocks[0].nodes, env, device)
            continue
        else:
            kw = node.meta.get("kw")
            kw = {k: env.arg(v, device) for k, v in kw.items()} if kw else {}
            out = fn(*env.arg(node.args, device), **kw)
        outs = out if isinstance(out, tuple) else (out,)
        sides = node.meta.get("side", ())
        n = len(node.outputs) - len(sides)
        for v, o in zip(node.outputs[:n], outs):
            env[v] = o
        if sides:
            _side_products(node, env, device, outs[0])


def _side_products(node, env, device, first):
    """The arrays the op's forward kept for its backward, read from its node (or, when no
    node was recorded, from a second forward on stand-ins)."""
    n = len(node.outputs) - len(node.meta["side"])
    fn = getattr(first, "grad_fn", None)
    if fn is not None:
        vals = [follow(fn, p, fn._to_save, device.xp) for p in node.meta["side"]]
    else:
        arrays = [as_array(env[v], device.xp) for v in input_order(node)]
        vals = forward_caller(node, device)(*arrays)[n:]
    for v, a in zip(node.outputs[n:], vals):
        env[v] = a


def _if(node, env, device):
    """Run the branch the condition picks (a tensor condition is read with bool())."""
    cond = env.arg(node.args[0], device)
    block = node.blocks[0] if cond else node.blocks[1]
    run_nodes(block.nodes, env, device)
    for v, o in zip(node.outputs, block.outputs):
        env[v] = env.arg(o, device) if isinstance(o, Value) else o


def _loop(node, env, device):
    """for i in range(start, stop, step): the body's outputs feed its inputs next turn."""
    start, stop, step, *carried = env.arg(node.args, device)
    body = node.blocks[0]
    turns = range(int(start), int(stop), int(step))
    budget = node.meta.get("budget")      # set by jit.load: the loop turns a call may run
    if budget is not None:
        budget.left -= len(turns)
        if budget.left < 0:
            raise RuntimeError(f"{node.kind}: this loaded graph asks for {len(turns)} loop "
                               f"turns, more than the {budget.limit} a call may run. If you "
                               "trust the file, load it with labkit.jit.load(path, "
                               "max_loop_iterations=...).")
    for i in turns:
        env[body.inputs[0]] = i
        for v, c in zip(body.inputs[1:], carried):
            env[v] = c
        run_nodes(body.nodes, env, device)
        carried = [env.arg(o, device) if isinstance(o, Value) else o for o in body.outputs]
    for v, c in zip(node.outputs, carried):
        env[v] = c


CONTROL = {"If": _if, "Loop": _loop}
