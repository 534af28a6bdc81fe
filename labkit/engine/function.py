"""Function (what a student subclasses), Node (the recorded backward step), and apply().

Every op, built-in or written in a lecture, is a Function with
    forward(ctx, *args)   -> arrays or Tensors (runs with grad recording off)
    backward(ctx, *grads) -> one gradient per forward argument, written with Tensor ops,
so the gradient computation is itself recorded when create_graph=True.
`ctx` is the Node: the object that lands in `output.grad_fn`.
"""
import itertools
import os
import traceback
import weakref

import numpy as np

from .device import cpu as _cpu
from .grad_mode import Observers, mode
from .tensor import Tensor

_ndarray = np.ndarray
_make = Tensor._make
_new = object.__new__
_seq = itertools.count()  # creation order: nodes run in reverse of it (a valid topological order)


class Node:
    """One recorded op: what backward needs (saved tensors, edges to its inputs' nodes)."""
    _hooks = None        # {output index: [hook, ...]} from register_hook on outputs
    _saved = ()
    _freed = False
    _trace = None        # forward stack, kept in anomaly mode
    _non_diff = ()       # output indices marked non-differentiable
    _to_save = ()        # what forward passed to save_for_backward (packed after forward)
    _to_mark = ()        # what forward passed to mark_non_differentiable
    _out_dtypes = None   # output dtypes: backward casts each input's gradient to its dtype
    _dirty = ()          # inputs forward changed in place (mark_dirty)

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__}>"

    @property
    def next_functions(self):
        """((node, output index), ...) for each tensor input; (None, 0) where no grad flows."""
        return tuple(e for e in self._edges if e is not None)

    # --- the ctx API used inside forward/backward ---------------------------------------
    def save_for_backward(self, *tensors):
        """Keep tensors (or arrays) for backward; in-place changes to them are detected."""
        self._to_save = tensors

    def mark_non_differentiable(self, *outputs):
        self._to_mark = outputs

    def mark_dirty(self, *tensors):
        """forward changed these inputs in place (and returns them): they become outputs of
        this op, with their version bumped so older saved copies are detected."""
        self._dirty = tensors

    def set_materialize_grads(self, value):
        self._materialize = value

    @property
    def saved_tensors(self):
        if self._freed:
            raise RuntimeError(
                f"{type(self).__name__}: trying to backward through the graph a second time (or to "
                "read saved tensors after they were freed). Backward frees what each op saved, to "
                "save memory. If you need to run backward twice, pass retain_graph=True to the "
                "first call; usually, recompute the forward pass instead.")
        out = []
        for entry in self._saved:
            kind, obj, vc, version = entry
            if kind == 4:      # (packed, unpack, output index or None): saved_tensors_hooks
                t = obj[1](obj[0])
                if obj[2] is not None:      # one of our outputs: re-attach it to this node
                    t = _make(t._data, t.device, True)
                    t.grad_fn, t._out_idx = self, obj[2]
                out.append(t)
                continue
            if vc is not None and vc[0] != version:
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified by an "
                    f"inplace operation: {type(self).__name__} saved a tensor of shape "
                    f"{tuple((obj[0] if kind == 1 else obj).shape)} at version {version}, but it "
                    f"is now at version {vc[0]}. "
                    "Something changed it in place (an op ending in '_', '+=', or x[...] = ...) "
                    "between the forward pass and backward. Fix: use the out-of-place form "
                    "(x = x + 1 instead of x += 1), or .clone() the tensor before changing it.")
            if kind == 0:      # an input tensor
                out.append(obj)
            elif kind == 1:    # one of our own outputs: re-attach it to this node
                t = _make(obj[0], self._device, True)
                t.grad_fn, t._out_idx = self, obj[1]
                out.append(t)
            elif kind == 2:    # a plain array: a constant
                out.append(_make(obj, self._device))
            else:              # None or a Python number, as it was
                out.append(obj)
        return tuple(out)

    # --- hooks --------------------------------------------------------------------------
    def _add_pre_hook(self, idx, hook):
        if self._hooks is None:
            self._hooks = {}
        hooks = self._hooks.setdefault(idx, [])
        hooks.append(hook)
        return _HookHandle(hooks, hook)


class _HookHandle:
    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


class AccumulateGrad(Node):
    """The node that ends a path at a leaf: it adds the incoming gradient into leaf.grad.
    The leaf owns its node (hooks live there); the node points back weakly, so a graph is
    freed by reference counting as soon as its last tensor goes, not by the cycle collector."""
    _edges = ()
    _post_hooks = ()   # fn(leaf) after .grad is updated (register_post_accumulate_grad_hook)

    def __init__(self, variable):
        self._variable = weakref.ref(variable)
        self._seq = next(_seq)
        self._out_shapes = (variable._data.shape,)
        self._dtype = variable._data.dtype

    @property
    def variable(self):
        """The leaf (None once it has been freed: then there is nothing to accumulate into)."""
        return self._variable()

    @property
    def _out_dtypes(self):   # read live: module.to(dtype) swaps a parameter's array in place
        leaf = self.variable
        return (self._dtype if leaf is None else leaf._data.dtype,)


def accumulate_node(leaf):
    node = leaf._accum
    if node is None:
        node = leaf._accum = AccumulateGrad(leaf)
    return node


class _NullCtx:
    """The ctx given to forward when nothing is recorded: saving is a no-op."""
    needs_input_grad = ()

    def save_for_backward(self, *tensors):
        pass

    def mark_non_differentiable(self, *outputs):
        pass

    def mark_dirty(self, *tensors):
        for t in tensors:
            t._bump_version()

    def set_materialize_grads(self, value):
        pass


_NULL = _NullCtx()


class Function:
    """Subclass with static forward(ctx, ...) and backward(ctx, ...); call Cls.apply(...)."""
    node_name = None  # name of the Node class in grad_fn; default '<ClassName>Backward'
    _node_cls = Node
    setup_context = None  # torch 2.x style: forward(*args) without ctx, then
    #                       setup_context(ctx, inputs, output) saves what backward needs

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("node_name") or f"{cls.__name__}Backward"
        cls._node_cls = type(name, (Node,), {"_fn": cls, "__module__": cls.__module__,
                                             "__doc__": f"Backward node of {cls.__name__}."})

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("a Function subclass must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("a Function subclass must define backward(ctx, *grad_outputs)")

    @classmethod
    def apply(cls, *args):
        if mode.tracer is not None:
            return _apply_traced(cls, args)
        device = None
        record = False
        for a in args:
            if isinstance(a, Tensor):
                if device is None:
                    device = a.device
                elif a.device is not device:
                    raise _device_error(cls, args)
                if a._rg:
                    record = True
        if device is None:
            device = _cpu
        if record and mode.enabled:
            return _record(cls, args, device)
        try:
            out = cls.forward(_NULL, *args) if cls.setup_context is None else cls.forward(*args)
        except (ValueError, TypeError, IndexError) as e:
            raise _forward_error(cls, args, e) from None
        if type(out) is _ndarray:
            return _make(out, device)
        return _wrap_plain(out, device)


_NO_EDGE = (None, 0)  # a tensor input that does not require grad


def _apply_traced(cls, args):
    """Run one op with the tracer paused (ops inside a forward are not traced twice), then
    tell the tracer: tracer.record(cls, args, result)."""
    tracer = mode.tracer
    mode.tracer = None
    try:
        result = cls.apply(*args)
    finally:
        mode.tracer = tracer
    tracer.record(cls, args, result)
    return result


def unary_op(cls):
    """cls.apply specialised for one tensor argument (the Tensor methods use it: less overhead
    per call, same Function, same forward and backward)."""
    forward = cls.forward

    def op(x):
        if not isinstance(x, Tensor):
            raise TypeError(f"{op.__name__}(): expected a labkit tensor, got {type(x).__name__}. "
                            f"Wrap it first: labkit.tensor(value).")
        if mode.tracer is not None:
            return _apply_traced(cls, (x,))
        if x._rg and mode.enabled:
            return _record(cls, (x,), x.device)
        out = forward(_NULL, x)
        if type(out) is _ndarray:
            t = _new(Tensor)
            t._data = out
            t.device = x.device
            return t
        return _wrap_plain(out, x.device)
    op.__name__ = op.__qualname__ = cls.__name__.lower()
    op.__doc__ = cls.__doc__
    return op


def binary_op(cls):
    """cls.apply specialised for (tensor, tensor-or-number): the arithmetic dunders use it."""
    forward = cls.forward

    def op(a, b):
        if mode.tracer is not None:
            return _apply_traced(cls, (a, b))
        device = a.device
        if isinstance(b, Tensor):
            if b.device is not device:
                raise _device_error(cls, (a, b))
            record = a._rg or b._rg
        else:
            record = a._rg
        if record and mode.enabled:
            return _record(cls, (a, b), device)
        try:
            out = forward(_NULL, a, b)
        except (ValueError, TypeError, IndexError) as e:
            raise _forward_error(cls, (a, b), e) from None
        if type(out) is _ndarray:
            t = _new(Tensor)
            t._data = out
            t.device = device
            return t
        return _wrap_plain(out, device)
    op.__name__ = op.__qualname__ = cls.__name__.lower()
    op.__doc__ = cls.__doc__
    return op


def _wrap_plain(out, device):
    if type(out) is tuple:
        return tuple(_wrap_plain(o, device) for o in out)
    if isinstance(out, Tensor) or out is None:
        return out
    if isinstance(out, (np.generic, int, float, bool)):
        out = np.asarray(out)
    return _make(out, device)


def _record(cls, args, device):
    """Run forward with recording off and link a Node to the outputs (the graph-building path)."""
    node = _new(cls._node_cls)
    edges = []
    needs = []
    for a in args:
        if isinstance(a, Tensor):
            if a._rg:
                fn = a.grad_fn
                if fn is None:
                    fn = a._accum or accumulate_node(a)
                edges.append((fn, a._out_idx))
                needs.append(True)
            else:
                edges.append(_NO_EDGE)
                needs.append(False)
        else:
            edges.append(None)
            needs.append(False)
    node._edges = edges
    node.needs_input_grad = tuple(needs)
    node._device = device
    mode.enabled = False
    try:
        if cls.setup_context is None:
            out = cls.forward(node, *args)
        else:
            out = cls.forward(*args)
            cls.setup_context(node, args, out)
    except (ValueError, TypeError, IndexError) as e:
        raise _forward_error(cls, args, e) from None
    finally:
        mode.enabled = True
    if isinstance(out, np.generic):  # numpy made a 0-d result a scalar: keep it an array,
        arr = np.asarray(out)          # and keep it recognisable as the output if it was saved
        node._to_save = tuple(arr if s is out else s for s in node._to_save)
        out = arr
    if type(out) is _ndarray and not node._to_mark:     # the common case: one array out
        result = _make(out, device)
        if out.dtype.kind in "fV":   # V: bfloat16 (ml_dtypes)
            result.grad_fn = node
            result._rg = True
        node._out_shapes = (out.shape,)
        node._out_dtypes = (out.dtype,)
        outputs = (result,)
    else:
        outputs = _link_outputs(node, out, device)
        result = outputs if type(out) is tuple else outputs[0]
    if node._to_save:
        node._saved = _pack_saved(node._to_save, outputs)
        if mode.saved_hooks is not None:   # saved_tensors_hooks: keep pack(tensor) instead
            node._saved = _hooked(node._saved, outputs, *mode.saved_hooks)
            node._to_save = ()             # keep only what pack returned (checkpointing)
    node._seq = next(_seq)
    if mode.anomaly:
        node._trace = _user_stack()
    if mode.op_observers:
        for fn in tuple(mode.op_observers):
            fn(node, args, outputs)
    return result


observers = Observers("op_observers")  # fn(node, args, outputs) for every op this thread
# records (viz recorder, tracers)


_ENGINE_DIR = os.path.dirname(os.path.abspath(__file__))


def _user_stack():
    """The forward call's stack without labkit's own frames (for anomaly mode's messages)."""
    frames = [f for f in traceback.extract_stack() if not f.filename.startswith(_ENGINE_DIR)]
    return traceback.format_list(frames[-6:])


def _link_outputs(node, out, device):
    """Wrap several (or already-wrapped) outputs and attach the differentiable ones to node."""
    outs = out if type(out) is tuple else (out,)
    tensors = []
    for o in outs:
        if not isinstance(o, Tensor):
            if isinstance(o, (np.generic, int, float, bool)):
                o = np.asarray(o)
            o = _make(o, device)
        elif any(o is d for d in node._dirty):   # changed in place: it now comes from node
            if o.grad_fn is None and o._rg:
                raise RuntimeError(
                    f"{type(node).__name__}: a leaf Variable that requires grad is being used "
                    "in an in-place operation (mark_dirty). Clone it first, or change it under "
                    "no_grad().")
            o._bump_version()
        elif o.grad_fn is not None or o._rg:
            o = o.detach()  # forward returned a tensor that already belongs to a graph
        tensors.append(o)
    marked = node._to_mark
    non_diff = tuple(i for i, t in enumerate(tensors)
                     if any(t is m or t._data is (m._data if isinstance(m, Tensor) else m)
                            for m in marked))
    for i, t in enumerate(tensors):
        if i in non_diff or t._data.dtype.kind not in "fV":   # V: bfloat16
            continue
        t.grad_fn = node
        t._rg = True
        t._out_idx = i
    node._non_diff = non_diff
    node._out_shapes = tuple(t._data.shape for t in tensors)
    node._out_dtypes = tuple(t._data.dtype for t in tensors)
    return tuple(tensors)


def _pack_saved(items, outputs):
    """(kind, object, version counter, version) per saved item: kind 0 an input tensor,
    1 one of our outputs (stored without its grad_fn, to avoid a reference cycle), 2 a plain
    array (a constant), 3 a Python value or None kept as is."""
    packed = []
    for item in items:
        for i, o in enumerate(outputs):
            if item is o or item is o._data:
                vc = o._vc
                if vc is None:
                    vc = o._vc = [0]
                packed.append((1, (o._data, i), vc, vc[0]))
                break
        else:
            if isinstance(item, Tensor):
                vc = item._vc
                if vc is None:
                    vc = item._vc = [0]
                packed.append((0, item, vc, vc[0]))
            elif item is None or isinstance(item, (int, float, bool)):
                packed.append((3, item, None, 0))
            else:
                packed.append((2, item, None, 0))
    return packed


def _hooked(entries, outputs, pack, unpack):
    """Saved tensors stored as pack(tensor) (kind 4); unpack(packed) gives them back."""
    return tuple((4, (pack(obj), unpack, None), None, 0) if kind == 0 else
                 (4, (pack(_make(obj[0], outputs[obj[1]].device)), unpack, obj[1]), None, 0)
                 if kind == 1 else (kind, obj, vc, v) for kind, obj, vc, v in entries)


def _shapes(args):
    return ", ".join(str(tuple(a.shape)) if isinstance(a, Tensor) else repr(a) for a in args)


def _op_name(cls):
    return getattr(cls, "op_name", None) or cls.__name__.lower()


def _device_error(cls, args):
    devs = [str(a.device) for a in args if isinstance(a, Tensor)]
    return RuntimeError(
        f"{_op_name(cls)}: expected all tensors on the same device, but found tensors on "
        f"{' and '.join(dict.fromkeys(devs))} (inputs on {', '.join(devs)}). labkit never copies "
        "between devices silently: move one first, e.g. x.to('cpu') or w.to(x.device).")


def _forward_error(cls, args, err):
    msg = str(err)
    if "broadcast" in msg and not isinstance(err, IndexError):  # index arrays: torch's IndexError
        shapes = [tuple(a.shape) for a in args if isinstance(a, Tensor)]
        return RuntimeError(
            f"{_op_name(cls)}: the shapes {' and '.join(map(str, shapes))} cannot be broadcast "
            "together. Aligned from the right, each pair of dimensions must be equal or one of "
            "them 1. Fix: reshape or unsqueeze one operand (e.g. b.unsqueeze(0)), or check "
            "that you used the right tensor.")
    return type(err)(f"{_op_name(cls)} (inputs: {_shapes(args)}): {msg}")
