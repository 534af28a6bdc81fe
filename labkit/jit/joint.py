"""Compiling a forward whose outputs need gradients (compile(model), then loss.backward()
outside): the backward graph is traced once, at compile time, from the ops' backward formulas,
and both halves become array programs joined by one autograd Function.

After the forward trace, the tracer records `autograd.grad(outputs, inputs, grad_outputs)`
with the output gradients as new graph inputs: the backward formulas are tensor ops, so they
land in the same graph. The graph is then cut in two. The forward program returns the outputs
and the values the backward reads (the saved tensors, chosen by the cut, not by each op); the
backward program maps them and the output gradients to the input gradients. A Function whose
forward and backward call the two programs ties them into the engine's autograd: the whole
compiled forward is one node in the graph (CompiledFunctionBackward).
"""
import numpy as np

from ..engine import autograd
from ..engine.function import Function
from ..engine.grad_mode import mode
from ..engine.tensor import Tensor
from . import codegen, passes
from .ir import Graph, map_values

_make = Tensor._make


def trace_backward(tracer, graph, outputs, wrt):
    """Record the gradients of `outputs` (tensors) with respect to `wrt` (tensors) into the
    traced graph; returns (grad-output input values, gradient values or None)."""
    seeds, grad_inputs = [], []
    for i, o in enumerate(outputs):
        g = _make(o.device.xp.ones(o._data.shape, o._data.dtype), o.device)
        v = graph.add_input(f"grad_out{i}", o._data.shape, o._data.dtype)
        tracer.bind(g, v)
        seeds.append(g)
        grad_inputs.append(v)
    with tracer:
        grads = autograd.grad(outputs, wrt, grad_outputs=seeds, allow_unused=True,
                              retain_graph=True)   # the first call's result still needs it
    return grad_inputs, [None if g is None else tracer.value_of(g) for g in grads]


def split(graph, n_forward, out_values, grad_inputs, grad_values):
    """(forward graph, backward graph, saved plan). The forward graph returns the outputs,
    then the values it computed that the backward reads; the plan lists, for each input of
    the backward graph, where it comes from: ("arg", i) an input array, ("out", k) a value
    the forward returned."""
    fwd_nodes, bwd_nodes = graph.nodes[:n_forward], graph.nodes[n_forward:]
    made = {v for n in fwd_nodes for v in n.outputs}
    grad_set = set(grad_inputs)
    args = [v for v in graph.inputs if v not in grad_set]
    read = []
    for n in bwd_nodes:
        read += n.inputs
    read += [v for v in grad_values if v is not None]
    needed = [v for v in dict.fromkeys(read) if v in made or v in args]

    fwd = Graph(graph.name)
    fwd.inputs, fwd.constants, fwd.nodes = args, list(graph.constants), fwd_nodes
    produced = [v for v in needed if v in made]
    fwd.outputs = list(out_values) + produced
    fwd.stores = graph.stores

    bwd = Graph(graph.name + "_backward")
    remap = {}
    plan = []
    for v in needed:
        new = bwd.add_input(f"saved_{v.name}", v.shape, v.dtype)
        remap[v] = new
        plan.append(("arg", args.index(v)) if v in args else
                    ("out", len(out_values) + produced.index(v)))
    for v in grad_inputs:
        bwd.inputs.append(v)
    bwd.constants = list(graph.constants)
    for n in bwd_nodes:
        bwd.add_node(n.kind, n.fn, map_values(n.args, lambda v: remap.get(v, v)),
                     n.outputs, n.blocks, n.meta)
    bwd.outputs = [remap.get(v, v) for v in grad_values if v is not None]
    return fwd, bwd, plan


def joint_function(fwd_program, bwd_program, n_out, plan, grad_slots, n_args, device,
                   seeded):
    """An autograd Function running the two programs: apply(*inputs, *params). `seeded`:
    which outputs the backward program takes a gradient for."""

    class CompiledFunction(Function):
        @staticmethod
        def forward(ctx, *tensors):
            arrays = [t._data for t in tensors]
            res = fwd_program(*arrays)
            ctx.arrays = [arrays[i] if kind == "arg" else res[i] for kind, i in plan]
            ctx.out_like = res[:n_out]
            outs = tuple(_make(r, device) for r in res[:n_out])
            return outs if n_out > 1 else outs[0]

        @staticmethod
        def backward(ctx, *grads):
            if mode.enabled:
                raise RuntimeError(
                    "compile: the backward of a compiled function is not differentiable again "
                    "(create_graph=True). Run it eagerly for higher-order gradients "
                    "(LABKIT_JIT=0, or call the function itself).")
            seeds = [grads[i]._data if grads[i] is not None else
                     np.zeros_like(ctx.out_like[i]) for i in seeded]
            res = bwd_program(*ctx.arrays, *seeds)
            out = [None] * n_args
            for slot, r in zip(grad_slots, res):
                out[slot] = _make(r, device)
            return tuple(out)
    return CompiledFunction


def build(graph, tracer, result_tensors, inputs, params, pipeline, device):
    """Trace the backward of a forward trace and compile both halves: a Function to apply
    to (*inputs, *params), and the (forward, backward) graphs for inspection."""
    n_forward = len(graph.nodes)
    seeded = [i for i, t in enumerate(result_tensors) if t._rg]
    every = list(inputs) + list(params)
    positions = [i for i, t in enumerate(every) if t._rg]
    wrt = [every[i] for i in positions]
    out_values = [tracer.value_of(t) for t in result_tensors]
    grad_inputs, grad_values = trace_backward(tracer, graph,
                                              [result_tensors[i] for i in seeded], wrt)
    fwd, bwd, plan = split(graph, n_forward, out_values, grad_inputs, grad_values)
    for g in (fwd, bwd):
        passes.optimize(g, pipeline)
    fp = codegen.generate(fwd, device.xp, device)
    bp = codegen.generate(bwd, device.xp, device)
    slots = [i for i, g in zip(positions, grad_values) if g is not None]
    fn = joint_function(fp, bp, len(out_values), plan, slots, len(every), device, seeded)
    return fn, (fwd, bwd), (fp, bp)
