"""Forward mode: jvp and jacfwd. Every op's tangent is computed right after the op runs, from
the op's own tangent rule (its Function's `jvp`): one pass, no backward.

A tensor's tangent lives in this level's table (keyed by the tensor), not in the tensor, so the
function runs on ordinary tensors and any Python control flow works as in eager code.
"""
from ..engine import autograd
from ..engine.function import FunctionCtx
from ..engine.grad_mode import enable_grad
from ..engine.ops import rules, table
from ..engine.tensor import Tensor
from . import _tree
from ._alias import Alias, leaf
from ._level import Level, is_float, outputs_of, running, warn_once


class ForwardLevel(Level):
    """Holds each tensor's tangent; after every op, computes the op's output tangent."""

    def tangent(self, a):
        if isinstance(a, Tensor):
            return self.lookup(a)
        if isinstance(a, (tuple, list)) and any(isinstance(x, Tensor) for x in a):
            return tuple(self.tangent(x) for x in a)
        return None

    def record(self, cls, args, result):
        super().record(cls, args, result)
        tangents = tuple(self.tangent(a) for a in args)
        if all(t is None or isinstance(t, tuple) and all(x is None for x in t) for t in tangents):
            return
        if isinstance(result, Tensor) and args and result is args[0]:
            raise RuntimeError(
                f"labkit.func.jvp: the in-place op {_name(cls)} writes into a tensor of shape "
                f"{tuple(result.shape)} that carries a tangent. Forward mode follows values, not "
                "memory: use the out-of-place form (x = x + y instead of x += y).")
        outs = outputs_of(result)
        if not any(is_float(o) for o in outs):
            return                      # comparisons, argmax ...: no derivative
        rule = table.lookup(cls, "jvp")
        if rule is not table.FALLBACK and not cls.__module__.startswith("labkit."):
            out_t = self.outside(_user_jvp, cls, args, tangents, result)   # torch's protocol
        elif rule is table.FALLBACK:
            warn_once("jvp", cls, "tangent (jvp)")
            out_t = self.outside(_by_reverse_twice, cls, args, tangents, result)
        else:
            out_t = self.outside(rule, args, tangents, result)
        for o, t in zip(outs, outputs_of(out_t) if isinstance(result, tuple) else (out_t,)):
            if t is not None and is_float(o):
                self.bind(o, t)


def _name(cls):
    return getattr(cls, "op_name", None) or cls.__name__


def _user_jvp(cls, args, tangents, result):
    """A user Function's jvp(ctx, *tangents), torch's protocol: the ctx its forward filled (the
    output's grad_fn, or a fresh ctx from running forward again when nothing was recorded);
    zeros for tensor inputs without a tangent, None for the other arguments."""
    first = outputs_of(result)[0]
    ctx = first.grad_fn if isinstance(first, Tensor) and \
        isinstance(first.grad_fn, cls._node_cls) else None
    if ctx is None:
        ctx = FunctionCtx((True,) * len(args))
        if cls.setup_context is not None:
            cls.setup_context(ctx, args, cls.forward(*args))
        else:
            cls.forward(ctx, *args)
    ts = [t if t is not None else rules.zeros_like(a) if isinstance(a, Tensor) else None
          for a, t in zip(args, tangents)]
    return cls.jvp(ctx, *ts)


def _by_reverse_twice(cls, args, tangents, result):
    """The fallback for an op without a tangent rule: J t = d/du <J^T u, t>, from the op's
    backward (two reverse passes through this one op; slower, but always available)."""
    with enable_grad():
        xs = [leaf(a) if isinstance(a, Tensor) and t is not None and is_float(a) else a
              for a, t in zip(args, tangents)]
        out = cls.apply(*xs)
        outs = [o for o in outputs_of(out) if is_float(o)]
        us = [rules.zeros_like(o).requires_grad_() for o in outs]
        pairs = [(x, t) for x, t in zip(xs, tangents) if x is not None and t is not None
                 and isinstance(x, Tensor) and x.requires_grad]
        gs = autograd.grad(outs, [x for x, _ in pairs], us, create_graph=True, allow_unused=True)
        inner = None
        for g, (_, t) in zip(gs, pairs):
            if g is not None:
                term = (g * t).sum()
                inner = term if inner is None else inner + term
        if inner is None:
            return None
        ts = autograd.grad(inner, us, create_graph=True, allow_unused=True)
    ts = tuple(t if t is not None else rules.zeros_like(o) for t, o in zip(ts, outs))
    return ts if isinstance(result, tuple) else ts[0]


def jvp(func, primals, tangents, *, has_aux=False):
    """(func(*primals), J @ tangents) in one forward pass (torch.func.jvp)."""
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): expected primals and tangents to be "
                           "tuples, e.g. jvp(f, (x,), (t,)).")
    p_leaves, rebuild = _tree.flatten(primals)
    t_leaves, _ = _tree.flatten(tangents)
    if len(p_leaves) != len(t_leaves):
        raise RuntimeError(f"jvp: expected as many tangents as primals, got {len(t_leaves)} "
                           f"tangents for {len(p_leaves)} primals.")
    for p, t in zip(p_leaves, t_leaves):
        if not isinstance(p, Tensor) or not isinstance(t, Tensor) or tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                "jvp: each primal and its tangent must be tensors of the same shape, got "
                f"{_desc(p)} and {_desc(t)}.")
    level = ForwardLevel()
    with running, level:
        xs = [Alias.apply(p) for p in p_leaves]
        for x, t in zip(xs, t_leaves):
            level.bind(x, t)
        out = func(*rebuild(xs))
    aux = None
    if has_aux:
        out, aux = out
    o_leaves, o_rebuild = _tree.flatten(out)
    tans = []
    for o in o_leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"jvp: f must return tensors, got {type(o).__name__}.")
        t = level.lookup(o)
        tans.append(t if t is not None else rules.zeros_like(o))
    result = (o_rebuild(o_leaves), o_rebuild(tans))
    return result + (aux,) if has_aux else result


def _desc(x):
    return f"a tensor of shape {tuple(x.shape)}" if isinstance(x, Tensor) else type(x).__name__
