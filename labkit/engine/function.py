"""Function (what a student subclasses), Node (the recorded backward step), and apply().

Every op, built-in or written in a lecture, is a Function with
    forward(ctx, *args)   -> arrays or Tensors (runs with grad recording off)
    backward(ctx, *grads) -> one gradient per forward argument, written with Tensor ops,
so the gradient computation is itself recorded when create_graph=True.
`ctx` is a FunctionCtx: the op's Node (the object that lands in `output.grad_fn`) when the op
is recorded. Every call, whatever its arity, goes through one core, `_call`.
"""
import itertools
import os
import traceback
import weakref

import numpy as np

from .device import cpu as _cpu
from .grad_mode import mode, process
from .hooks import HookList, call_untraced
from .tensor import Tensor

_ndarray = np.ndarray
_make = Tensor._make
_new = object.__new__
_seq = itertools.count()  # creation order: nodes run in reverse of it (a valid topological order)

# What a node keeps for each item forward saved (Node.saved_tensors decodes them), told
# apart by type alone so that packing and reading cost a few bytecodes each:
#   (tensor, vc, version)        an input tensor, kept as it is, with its version counter
#   (array, vc, version, index)  one of the node's own outputs: re-attached on read (keeping
#                                the Tensor would make a reference cycle through grad_fn)
#   (array, _UNVERSIONED, 0, -1) a constant (nothing can change its counter)
#   None or a number             a value, as it was
#   _Packed                      a tensor stored by a saved_tensors_hooks pack hook


_UNVERSIONED = [0]   # the version counter of a constant


class _Packed:
    """A saved tensor as a saved_tensors_hooks pack hook returned it."""
    __slots__ = ("packed", "unpack", "shape", "vc", "version")

    def __init__(self, pack, unpack, tensor, vc):
        self.packed, self.unpack, self.shape = pack(tensor), unpack, tensor._data.shape
        self.vc, self.version = vc, vc[0]


class FunctionCtx:
    """The `ctx` a Function's forward and backward receive (torch.autograd.function.FunctionCtx).

    When the op is recorded, ctx is its Node (the object that lands in `output.grad_fn`);
    otherwise one shared ctx whose `needs_input_grad` is () keeps nothing. Attributes forward
    sets on ctx (ctx.alpha = ...) live in `vars(ctx)` (read them with `user_attrs(ctx)`).

    The engine's fields that every node sets are slots; those only some nodes set (marked
    outputs, hooks, ...) have their default on the class, so making a node does not pay for
    them (each attribute set costs about 20 ns, on every op): `ENGINE_ATTRS` names them."""
    __slots__ = ("needs_input_grad", "_to_save", "__dict__")
    _to_mark = ()           # what forward passed to mark_non_differentiable
    _dirty = ()             # inputs forward changed in place (mark_dirty)
    _materialize = True     # set_materialize_grads

    def __init__(self, needs_input_grad=()):
        self.needs_input_grad = needs_input_grad   # () when nothing is recorded
        self._to_save = ()      # what forward passed to save_for_backward (packed after forward)

    def save_for_backward(self, *tensors):
        """Keep tensors (or arrays) for backward; in-place changes to them are detected."""
        if self.needs_input_grad:
            self._to_save = tensors

    def mark_non_differentiable(self, *outputs):
        if self.needs_input_grad:
            self._to_mark = outputs

    def mark_dirty(self, *tensors):
        """forward changed these inputs in place (and returns them): they become outputs of
        this op, with their version bumped so older saved copies are detected."""
        for t in tensors:
            t._bump_version()
        if self.needs_input_grad:
            self._dirty = tensors

    def set_materialize_grads(self, value):
        """With False, backward gets None (not zeros) for an output no path used (as torch)."""
        if self.needs_input_grad:
            self._materialize = bool(value)


_NULL = FunctionCtx()   # the ctx of every op that is not recorded
ENGINE_ATTRS = frozenset(("_to_mark", "_dirty", "_materialize", "_non_diff", "_hooks", "_trace"))


def user_attrs(ctx):
    """{name: value} of the attributes forward set on ctx (ctx.alpha = ...): vars(ctx)
    without the engine's rarely set fields (ENGINE_ATTRS) that some nodes keep there too."""
    return {k: v for k, v in vars(ctx).items() if k not in ENGINE_ATTRS}


class Node(FunctionCtx):
    """One recorded op: what backward needs (saved tensors, edges to its inputs' nodes)."""
    __slots__ = ("_edges",       # (node, output index) per forward argument; None: not a tensor
                 "_device",
                 "_seq",         # creation order
                 "_out_shapes",  # each output's shape: gradients are summed back to it
                 "_out_dtypes",  # output dtypes: backward casts each input's gradient to its dtype
                 "_saved",       # (kind, object, version counter, version) per saved item;
                 #                 None once backward freed them
                 "__weakref__")
    _non_diff = ()   # output indices marked non-differentiable
    _hooks = None    # {output index: [hook, ...]} from register_hook on outputs
    _trace = None    # forward stack, kept in anomaly mode

    def name(self):
        return type(self).__name__

    @property
    def _freed(self):
        """backward released the saved tensors (without retain_graph)."""
        return self._saved is None

    def __repr__(self):
        return f"<{type(self).__name__}>"

    @property
    def next_functions(self):
        """((node, output index), ...) for each tensor input; (None, 0) where no grad flows
        (and, as torch, for a number in add/sub/mul/div, which torch wraps in a tensor, and
        for an absent optional tensor such as a norm's bias)."""
        listed = self._fn.number_edges if getattr(self, "_fn", None) is not None else False
        if listed:
            edges = self._edges if listed is True else self._edges[:listed]
            return tuple(_NO_EDGE if e is None else e for e in edges)
        return tuple(e for e in self._edges if e is not None)

    @property
    def saved_tensors(self):
        saved = self._saved
        if saved is None:
            raise RuntimeError(
                f"{type(self).__name__}: trying to backward through the graph a second time (or to "
                "read saved tensors after they were freed). Backward frees what each op saved, to "
                "save memory. If you need to run backward twice, pass retain_graph=True to the "
                "first call; usually, recompute the forward pass instead.")
        out = []
        for item in saved:
            if type(item) is tuple:
                n = len(item)
                if n == 3:                          # an input tensor
                    t, vc, version = item
                    if vc[0] != version:
                        raise self._modified_error(t._data.shape, vc, version)
                else:
                    arr, vc, version, idx = item
                    if idx < 0:                     # a constant array
                        t = _make(arr, self._device)
                    elif vc[0] != version:
                        raise self._modified_error(arr.shape, vc, version)
                    else:                           # our own output: re-attach it to this node
                        t = _new(Tensor)
                        t._data, t.device, t._rg, t.grad_fn, t._vc = \
                            arr, self._device, True, self, vc
                        if idx:
                            t._out_idx = idx
                out.append(t)
            elif type(item) is _Packed:
                if item.vc[0] != item.version:
                    raise self._modified_error(item.shape, item.vc, item.version)
                out.append(item.unpack(item.packed))
            else:                                   # None or a number
                out.append(item)
        return tuple(out)

    @property
    def saved_arrays(self):
        """saved_tensors as arrays (values stay as they are), version-checked the same way:
        what backward_arrays reads."""
        saved = self._saved
        if saved is None:
            self.saved_tensors   # raises "backward through the graph a second time"
        out = []
        for item in saved:
            if type(item) is tuple:
                if item[1][0] != item[2]:
                    self.saved_tensors   # raises the in-place modification error
                out.append(item[0]._data if len(item) == 3 else item[0])
            elif type(item) is _Packed:
                if item.vc[0] != item.version:
                    self.saved_tensors   # raises the in-place modification error
                out.append(item.unpack(item.packed)._data)
            else:
                out.append(item)
        return out

    def saved_values(self):
        """What the node keeps for backward, as (kind, value, tensor): kind is 'input' (value
        is the input's array, tensor the input), 'output' (one of the node's output arrays),
        'constant' (an array) or 'value' (a Python number); tensor is None but for inputs.
        Read without the version check (drawing never raises); None and items stored by a
        saved_tensors_hooks pack hook are left out."""
        out = []
        for item in self._saved or ():
            if type(item) is tuple:
                n = len(item)
                out.append(("input", item[0]._data, item[0]) if n == 3 else
                           ("output", item[0], None) if item[3] >= 0 else
                           ("constant", item[0], None))
            elif item is not None and type(item) is not _Packed:
                out.append(("value", item, None))
        return out

    def _modified_error(self, shape, vc, version):
        return RuntimeError(
            f"one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {type(self).__name__} saved a tensor of shape "
            f"{tuple(shape)} at version {version}, but it is now at version {vc[0]}. "
            "Something changed it in place (an op ending in '_', '+=', or x[...] = ...) "
            "between the forward pass and backward. Fix: use the out-of-place form "
            "(x = x + 1 instead of x += 1), or .clone() the tensor before changing it.")

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


class _PostAccumulateHandle(_HookHandle):
    """Counts the post-accumulate hooks alive (the engine tracks leaf readiness while any is)."""

    def __init__(self, hooks, hook):
        super().__init__(hooks, hook)
        process.post_accumulate_hooks += 1

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)
            process.post_accumulate_hooks -= 1


class AccumulateGrad(Node):
    """The node that ends a path at a leaf: it adds the incoming gradient into leaf.grad.
    The leaf owns its node (hooks live there); the node points back weakly, so a graph is
    freed by reference counting as soon as its last tensor goes, not by the cycle collector."""
    __slots__ = ("_variable", "_dtype", "_post_hooks")
    _edges = ()

    def __init__(self, variable):
        FunctionCtx.__init__(self)
        self._variable = weakref.ref(variable)
        self._seq = next(_seq)
        self._out_shapes = (variable._data.shape,)
        self._dtype = variable._data.dtype
        self._device = variable.device
        self._saved = ()
        self._post_hooks = ()   # fn(leaf) after .grad is updated (register_post_accumulate_grad_hook)

    def name(self):
        return "torch::autograd::AccumulateGrad"     # torch's name (the profiler's key too)

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


class Function:
    """Subclass with static forward(ctx, ...) and backward(ctx, ...); call Cls.apply(...)."""
    node_name = None  # name of the Node class in grad_fn; default '<ClassName>Backward'
    _node_cls = Node
    setup_context = None  # torch 2.x style: forward(*args) without ctx, then
    #                       setup_context(ctx, inputs, output) saves what backward needs
    forward_on_arrays = False  # True: forward reads only its inputs' arrays (no Tensor op),
    #                            so recording need not be switched off around it (~0.1 us)
    source = False             # True: an op that takes no tensor (a random draw while tracing);
    #                            labkit's other ops refuse numbers alone, as torch's do
    number_edges = False       # next_functions lists (None, 0) for a number argument too
    #                            (True), or for each of the first n arguments (n: optional
    #                            tensors such as a norm's weight and bias, listed when absent)
    backward_arrays = None     # optional backward_arrays(ctx, grad) -> gradient arrays: the
    #   same formula on arrays, which the engine calls when nothing records the backward (no
    #   create_graph, tracer, node hook or anomaly mode); it reads ctx.saved_arrays and may
    #   return NotImplemented (a case it leaves to backward, e.g. mixed dtypes)

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
        if device is None and not cls.source and cls.__module__.startswith("labkit.engine.ops"):
            raise _no_tensor_error(cls, args)
        return _call(cls, args, device or _cpu, record)


def _no_tensor_error(cls, args):
    """torch's ops refuse to run on numbers alone (torch.pow(1.5, 2.5) is a TypeError)."""
    name = getattr(cls, "op_name", None) or cls.__name__.lower()
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}): "
                     "at least one argument must be a tensor. Wrap a number first: "
                     "labkit.tensor(1.5).")


_NO_EDGE = (None, 0)  # a tensor input that does not require grad
_NEEDS_ONE = (True,)
_FORWARD_ERRORS = (ValueError, TypeError, IndexError)   # from the array library: named


def _call(cls, args, device, record):
    """The one core every op call goes through (apply and the per-arity fast paths, which only
    scan the arguments for the device and whether any requires grad): hand the call to the
    tracer, decide whether to record, run forward, wrap the output. It is the hottest code
    in labkit (W2 measures it; benchmarks/op_cost.py shows where its time goes), hence
    written out in one function: each Python call costs about 0.1 us, each bytecode 5 ns."""
    if process.hooked:                  # process.hooked: see hooks.py
        if mode.tracer is not None:
            return call_untraced(cls, args)
        if process.complex_check is not None:   # complex tensors exist: ops/complex_guard.py
            process.complex_check(cls, args)
    if not (record and mode.enabled):   # nothing to record: one shared ctx that keeps nothing
        try:
            if cls.setup_context is not None:
                out = cls.forward(*args)
            elif len(args) == 2:        # unrolled: a star call costs 140 ns more per op
                out = cls.forward(_NULL, args[0], args[1])
            elif len(args) == 1:
                out = cls.forward(_NULL, args[0])
            else:
                out = cls.forward(_NULL, *args)
        except _FORWARD_ERRORS as e:
            raise _forward_error(cls, args, e) from None
        if type(out) is _ndarray:
            t = _new(Tensor)
            t._data = out
            t.device = device
            if mode.inference:      # made inside inference_mode: an inference tensor
                t._inference = True
            return t
        return _wrap_plain(out, device)
    node = _new(cls._node_cls)          # the Node is forward's ctx; each field set once, here
    n = len(args)
    if n == 1:                          # one argument, recorded: it requires grad
        a = args[0]
        node._edges = [(a.grad_fn or a._accum or accumulate_node(a), a._out_idx)]
        node.needs_input_grad = _NEEDS_ONE
    elif n == 2:                        # written out: most ops have two arguments
        a, b = args
        if isinstance(a, Tensor) and a._rg:   # its gradient goes to the node that made it
            ea, na = (a.grad_fn or a._accum or accumulate_node(a), a._out_idx), True
        else:
            ea, na = (_NO_EDGE if isinstance(a, Tensor) else None), False
        if isinstance(b, Tensor) and b._rg:
            eb, nb = (b.grad_fn or b._accum or accumulate_node(b), b._out_idx), True
        else:
            eb, nb = (_NO_EDGE if isinstance(b, Tensor) else None), False
        node._edges = [ea, eb]
        node.needs_input_grad = (na, nb)
    else:
        edges = []
        needs = []
        for a in args:
            if isinstance(a, Tensor):
                if a._rg:
                    edges.append((a.grad_fn or a._accum or accumulate_node(a), a._out_idx))
                    needs.append(True)
                    continue
                edges.append(_NO_EDGE)
            else:
                edges.append(None)
            needs.append(False)
        node.needs_input_grad = tuple(needs)
        node._edges = edges
    node._device = device
    node._to_save = node._saved = ()
    quiet = cls.forward_on_arrays       # else forward may use Tensor ops: they must not record
    if not quiet:
        mode.enabled = False
    try:
        if cls.setup_context is not None:   # torch 2.x style: forward(*args), then setup_context
            out = cls.forward(*args)
            cls.setup_context(node, args, out)
        elif n == 2:
            out = cls.forward(node, args[0], args[1])
        elif n == 1:
            out = cls.forward(node, args[0])
        else:
            out = cls.forward(node, *args)
    except _FORWARD_ERRORS as e:
        raise _forward_error(cls, args, e) from None
    finally:
        if not quiet:
            mode.enabled = True
    to_save = node._to_save
    if type(out) is _ndarray and not node._to_mark:     # the common case: one array out
        result = _new(Tensor)
        result._data = out
        result.device = device
        dtype = out.dtype
        if dtype.kind in "fVc":   # V: bfloat16 (ml_dtypes), c: complex
            result.grad_fn = node
            result._rg = True
        node._out_shapes = (out.shape,)
        node._out_dtypes = (dtype,)
        if to_save:
            if len(to_save) == 1 and (to_save[0] is out or to_save[0] is result) \
                    and not process.hooked:     # forward saved its output (tanh, exp, ...)
                result._vc = vc = [0]
                node._saved = ((out, vc, 0, 0),)
            else:
                node._saved = _pack_saved(to_save, (result,))
    else:
        outputs = _link_outputs(node, out, device)
        result = outputs if type(out) is tuple else outputs[0]
        if to_save:
            node._saved = _pack_saved(node._to_save, outputs)
    if process.hooked and to_save and mode.saved_hooks is not None:
        node._to_save = ()              # keep only what pack returned (checkpointing)
    node._seq = next(_seq)
    if process.anomaly:
        node._trace = _user_stack()
    if process.hooked:
        for fn in mode.op_hooks:
            fn(node, args, result if type(result) is tuple else (result,))
    return result


def unary_op(cls):
    """cls.apply specialised for one tensor argument (the Tensor methods use it)."""
    name = cls.__name__.lower()

    def op(x):
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}(): expected a labkit tensor, got {type(x).__name__}. "
                            f"Wrap it first: labkit.tensor(value).")
        return _call(cls, (x,), x.device, x._rg)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = cls.__doc__
    return op


def binary_op(cls):
    """cls.apply specialised for (tensor, tensor-or-number): the arithmetic dunders use it."""

    def op(a, b):
        if isinstance(b, Tensor):
            if b.device is not a.device:
                raise _device_error(cls, (a, b))
            return _call(cls, (a, b), a.device, a._rg or b._rg)
        return _call(cls, (a, b), a.device, a._rg)
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


observers = HookList("op_hooks")  # the old name of hooks.op_hooks (fn(node, args, outputs))


_ENGINE_DIR = os.path.dirname(os.path.abspath(__file__))


def _user_stack():
    """The forward call's stack without labkit's own frames (for anomaly mode's messages)."""
    frames = [f for f in traceback.extract_stack() if not f.filename.startswith(_ENGINE_DIR)]
    return traceback.format_list(frames[-6:])


def _link_outputs(node, out, device):
    """Wrap several (or already-wrapped) outputs and attach the differentiable ones to node."""
    if isinstance(out, np.generic):  # numpy made a 0-d result a scalar: keep it an array,
        arr = np.asarray(out)          # and keep it recognisable as the output if it was saved
        node._to_save = tuple(arr if s is out else s for s in node._to_save)
        out = arr
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
        elif o.grad_fn is not None or o._rg:
            o = o.detach()  # forward returned a tensor that already belongs to a graph
        tensors.append(o)
    marked = node._to_mark
    non_diff = tuple(i for i, t in enumerate(tensors)
                     if any(t is m or t._data is (m._data if isinstance(m, Tensor) else m)
                            for m in marked))
    for i, t in enumerate(tensors):
        if i in non_diff or t._data.dtype.kind not in "fVc":   # V: bfloat16, c: complex
            continue
        t.grad_fn = node
        t._rg = True
        t._out_idx = i
    node._non_diff = non_diff
    node._out_shapes = tuple(t._data.shape for t in tensors)
    node._out_dtypes = tuple(t._data.dtype for t in tensors)
    return tuple(tensors)


def _pack_saved(items, outputs):
    """What the node keeps for each saved item (the forms listed at the top of this file).
    Under hooks.saved_tensors_hooks a tensor is stored as pack(tensor)."""
    hooks = mode.saved_hooks if process.hooked else None
    only = outputs[0] if len(outputs) == 1 else None     # the common case: one output
    packed = []
    for item in items:
        if item is None or isinstance(item, (int, float, complex)):
            packed.append(item)
            continue
        if only is not None:
            i = 0 if item is only or item is only._data else -1
        else:
            i = _output_index(item, outputs)
        if i < 0 and not isinstance(item, Tensor):
            packed.append((item, _UNVERSIONED, 0, -1))   # a constant array
            continue
        t = item if i < 0 else outputs[i]
        vc = t._vc
        if vc is None:
            vc = t._vc = [0]
        if hooks is not None:
            packed.append(_Packed(hooks[0], hooks[1], t, vc))
        elif i < 0:
            packed.append((t, vc, vc[0]))
        else:
            packed.append((t._data, vc, vc[0], i))
    return packed


def _output_index(item, outputs):
    """Which output item is (the tensor or its array), or -1."""
    for i, o in enumerate(outputs):
        if item is o or item is o._data:
            return i
    return -1


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
