"""The tracer: run a function once installed as the engine's tracer (engine/hooks.py) and
write every op into a Graph.

The engine calls `record(cls, args, result)` after each Function call and `escape(t, what)`
when a tensor leaves for Python (.item(), bool(), .tolist(), .numpy()). In-place ops report
`record(cls, (x, *args), x)`: x now holds cls(x_old, *args). The backward engine is watched
through a node hook, so a `loss.backward()` inside the traced function is recorded too: its
formulas are tensor ops like any other, and each leaf's new `.grad` is bound to its value
(by a post-accumulate-grad hook on the leaf).

A tensor is found by, in order: the node that made it (views and in-place results), the tensor
object, its array. A tensor never seen before is captured: by reference (read at every call)
when it requires grad, is a known parameter, or is written in place; otherwise as a constant
frozen at trace time. An array a forward kept for its backward (in ctx or save_for_backward)
becomes an extra output of the forward's node when the backward uses it.
"""
import contextlib
import os
import sys
import warnings

from ..engine import hooks
from ..engine.function import AccumulateGrad, user_attrs
from ..engine.ops.arithmetic import Add
from ..engine.ops.convert import ToCopy
from ..engine.tensor import Tensor
from .ir import Graph, Raw, is_array
from .ops import kind_of

_LABKIT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class TracerWarning(UserWarning):
    """The trace froze something that may differ on other inputs (a value or a branch)."""


def user_stacklevel():
    """The warnings stacklevel of the first frame outside labkit (where the user's line is)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_LABKIT):
        frame, level = frame.f_back, level + 1
    return level


def _stamp(t):
    """What tells an untraced in-place change: the tensor's version counter and its version."""
    return t._vc, t._version


class Tracer:
    """Builds `graph` from the ops it is told about. `strict` (compile) makes escapes errors."""

    def __init__(self, graph=None, params=None, strict=False, freeze_constants=True,
                 names=None):
        self.graph = graph if graph is not None else Graph()
        self.strict = strict
        self.freeze = freeze_constants   # copy constants (trace) or keep a guarded reference
        self.param_names = params or {}  # id(tensor) -> name, for parameters known up front
        self.names = names or {}         # id(tensor) -> a name to print it with
        self._t = {}      # id(tensor) -> [tensor, value, (version counter, version)]
        self._a = {}      # id(array) -> (array, value)
        self._n = {}      # (id(node), output index) -> (node, value)
        self._side = {}   # id(array) -> (array, graph node, path): kept by a forward for later
        self._grad_hooks = {}   # id(leaf) -> the post-accumulate-grad hook this trace put on it
        self.external = {}   # id(tensor) -> (tensor, input value): captured tensors
        self.mutated = {}    # id(tensor) -> tensor: captured tensors written in place
        self.grad_events = {}  # id(leaf) -> (leaf, .grad when backward reached it first)
        self.backward_seen = False

    # --- installing ---------------------------------------------------------------------
    def __enter__(self):
        if hooks.current_tracer() is not None:
            raise RuntimeError("labkit.jit: already tracing; a traced function cannot itself "
                               "be traced or compiled while another trace runs.")
        self._installed = contextlib.ExitStack()
        self._installed.enter_context(hooks.tracing(self))
        self._installed.enter_context(hooks.node_hook(self._on_backward_node))
        return self

    def __exit__(self, *exc):
        for handle in self._grad_hooks.values():  # reached by grad(), which accumulates nothing
            handle.remove()
        self._installed.close()
        return False

    # --- what the engine calls ------------------------------------------------------------
    def record(self, cls, args, result):
        inplace = isinstance(result, Tensor) and bool(args) and result is args[0]
        if inplace:
            x = args[0]
            before = self.value_of(x, check=False)
            a = (before,) + self._convert(args[1:])
            if a[1:] == (before,):        # x := copy of itself (a recorded in-place op)
                self.bind(x, before)
                self._wrote(x)
                return None
        else:
            a = self._convert(args)
        outs = result if isinstance(result, tuple) else (result,)
        values = []
        for o in outs:
            if isinstance(o, Tensor):
                v = self.graph.new_value(o._data.shape, o._data.dtype)
                v.requires_grad = o._rg
            else:
                v = self.graph.new_value(kind="None")
            values.append(v)
        node = self.graph.add_node(kind_of(cls), cls, a, values,
                                   meta={"tuple": isinstance(result, tuple)})
        for o, v in zip(outs, values):
            if not isinstance(o, Tensor):
                continue
            fn = o.grad_fn
            fresh = fn is not None and (id(fn), o._out_idx) not in self._n
            self.bind(o, v)
            if fresh:
                self._n[(id(fn), o._out_idx)] = (fn, v)
                if o._out_idx == 0:
                    self._keep_side_products(fn, node)
        if inplace:
            self._wrote(args[0])
        return node

    def escape(self, tensor, what):
        msg = (f"{what} turns a tensor into a Python value while tracing. The trace records "
               "the value it has now as a constant, and any Python `if` or loop that uses it "
               "takes the same path on every call, whatever the inputs.")
        if self.strict:
            raise RuntimeError(
                f"labkit.jit.compile: {msg} compile refuses to freeze it. Return the tensor and "
                f"call {what} outside the compiled function, or use labkit.where(...) for a "
                "choice that depends on values.")
        warnings.warn(f"{msg} The traced function may be wrong for other inputs. Use "
                      "labkit.where(...) or labkit.jit.script for choices that depend on values.",
                      TracerWarning, stacklevel=user_stacklevel())

    # --- finding the value of a tensor or array ----------------------------------------------
    def bind(self, t, v):
        self._t[id(t)] = [t, v, _stamp(t)]
        self._a[id(t._data)] = (t._data, v)

    def value_of(self, t, check=True, by_reference=False):
        fn = t.grad_fn
        if fn is not None:
            hit = self._n.get((id(fn), t._out_idx))
            if hit is not None:
                return hit[1]
        hit = self._t.get(id(t))
        if hit is not None:
            if hit[2][0] is not t._vc:        # made a view after it was bound: it now shares
                hit[2] = _stamp(t)            # its base's version counter, nothing changed
            if check and hit[2][1] != t._version:
                raise RuntimeError(
                    f"labkit.jit: a tensor of shape {tuple(t.shape)} was changed in place in a "
                    "way the tracer could not see (through ._data, a view, or numpy). The "
                    "trace would replay the old value. Change it with labkit ops on the tensor "
                    "itself, or out of place (x = x + 1).")
            return hit[1]
        hit = self._a.get(id(t._data))
        if hit is not None:
            self._t[id(t)] = [t, hit[1], _stamp(t)]
            return hit[1]
        if id(t._data) in self._side:
            v = self._side_value(t._data)
            self._t[id(t)] = [t, v, _stamp(t)]
            return v
        return self._capture(t, by_reference)

    def _capture(self, t, by_reference):
        """A tensor from outside the trace: a parameter (by reference) or a constant."""
        name = self.param_names.get(id(t))
        if by_reference or t._rg or name is not None:
            name = name or self.names.get(id(t), "p")
            v = self.graph.add_input(name, t._data.shape, t._data.dtype, role="param", ref=t)
            v.requires_grad = t._rg
        else:
            data = t._data.copy() if self.freeze else t._data
            v = self.graph.add_constant(data, source=None if self.freeze else t,
                                        name=self.names.get(id(t)))
        self.external[id(t)] = (t, v)
        self.bind(t, v)
        return v

    def array_value(self, arr):
        hit = self._a.get(id(arr))
        if hit is not None:
            return hit[1]
        if id(arr) in self._side:
            return self._side_value(arr)
        v = self.graph.add_constant(arr)
        self._a[id(arr)] = (arr, v)
        return v

    def _convert(self, args):
        out = []
        for a in args:
            if isinstance(a, Tensor):
                out.append(self.value_of(a))
            elif is_array(a):
                out.append(Raw(self.array_value(a)))
            elif isinstance(a, tuple):
                out.append(self._convert(a))
            elif isinstance(a, list):
                out.append(list(self._convert(a)))
            else:
                out.append(a)
        return tuple(out)

    # --- arrays a forward keeps for its backward -----------------------------------------------
    def _keep_side_products(self, fn, node):
        """What forward kept: save_for_backward's items and the attributes it set on ctx
        (user_attrs: vars(ctx) without the engine's own fields)."""
        self._find_arrays(fn._to_save, ("saved",), node)
        for name, val in user_attrs(fn).items():
            self._find_arrays(val, ("attr", name), node)

    def _find_arrays(self, val, path, node):
        if is_array(val):
            if id(val) not in self._a and id(val) not in self._side:
                self._side[id(val)] = (val, node, path)
        elif isinstance(val, (tuple, list)):
            for i, item in enumerate(val):
                self._find_arrays(item, path + (i,), node)

    def _side_value(self, arr):
        _, node, path = self._side.pop(id(arr))
        v = self.graph.new_value(arr.shape, arr.dtype)
        v.node = node
        node.outputs.append(v)
        node.meta.setdefault("side", []).append(path)
        self._a[id(arr)] = (arr, v)
        return v

    # --- in-place writes and gradients -----------------------------------------------------
    def _wrote(self, t):
        """t now holds the last node's output; a captured tensor becomes state to write back."""
        base = t._base
        if base is not None and (id(base) in self.external or id(t) in self.external):
            raise RuntimeError(
                f"labkit.jit: an in-place change of a view of a captured tensor (shape "
                f"{tuple(base.shape)}) cannot be replayed faithfully. Change the tensor itself "
                "(e.g. with an index: x[0] = x[0] + 1 is x.index_put), or work on a copy "
                "(.clone()).")
        ext = self.external.get(id(t))
        if ext is None:
            return
        v = ext[1]
        if v.role == "constant":   # a constant written in place is state after all
            self.graph.promote(v, ref=t)
        self.mutated[id(t)] = t

    def _on_backward_node(self, node, grads):
        """Backward reached a node: at a leaf, bind the .grad it is about to get (once it
        has it: a post-accumulate-grad hook, removed when it has run)."""
        self.backward_seen = True
        leaf = node.variable if type(node) is AccumulateGrad else None
        if leaf is None:
            return
        before = leaf.grad
        self.grad_events.setdefault(id(leaf), (leaf, before))
        g = grads[0]

        def accumulated(leaf):
            self._grad_hooks.pop(id(leaf)).remove()
            self._bind_grad(leaf, before, g)
        old = self._grad_hooks.get(id(leaf))
        if old is not None:      # left by a grad() call, which accumulated nothing
            old.remove()
        self._grad_hooks[id(leaf)] = leaf.register_post_accumulate_grad_hook(accumulated)

    def _bind_grad(self, leaf, before, g):
        """leaf.grad now holds before + g (or g): bind it to its value in the graph."""
        now = leaf.grad
        gv = self.value_of(g)
        if now is before:     # added in place into the grad that was there
            if id(now) not in self._t:
                self._capture(now, by_reference=True)
            old = self.value_of(now, check=False)
            if old.role == "constant":
                self.graph.promote(old, ref=now)
            out = self.graph.new_value(now._data.shape, now._data.dtype)
            self.graph.add_node("add", Add, (old, gv), [out], meta={"tuple": False})
            self.bind(now, out)
            self._wrote(now)
        elif id(now) not in self._t and id(now._data) not in self._a:
            if now._data.dtype != gv.dtype:
                cast = self.graph.new_value(now._data.shape, now._data.dtype)
                self.graph.add_node("to", ToCopy, (gv, now._data.dtype, now.device), [cast],
                                    meta={"tuple": False})
                gv = cast
            self.bind(now, gv)
        elif id(now) not in self._t:
            self.value_of(now)
