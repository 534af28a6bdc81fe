"""Engine hooks: every way outside code watches or intercepts the engine, in one module.

    op hooks       fn(node, args, outputs) after each op this thread records into the graph
                   (viz.record's live graph; a profiler counting recorded ops)
    node hooks     fn(node, grads) as this thread's backward reaches each node, in the engine's
                   real order, before the node runs (viz.step_backward, the jit tracer)
    the tracer     one object per thread that sees every op call, recorded or not:
                   tracer.record(cls, args, result) after the op ran (untraced), and
                   tracer.escape(tensor, what) when a value leaves for Python (.item(), bool())
                   (labkit.jit's Tracer, labkit.func's transform levels)
    saved tensors  pack(tensor) -> anything when forward saves a tensor for backward, and
                   unpack(that) -> tensor when backward reads it (torch's saved_tensors_hooks)
    leaves         Tensor.register_post_accumulate_grad_hook (on the tensor: per leaf)

All of them are per thread (as torch's grad mode is): a recorder installed in one thread
never sees, or slows, the ops of another. Register with a with-block:

    with hooks.op_hook(fn): ...          with hooks.node_hook(fn): ...
    with hooks.tracing(tracer): ...      with hooks.saved_tensors_hooks(pack, unpack): ...

The engine reads the state straight from `grad_mode.mode` (op_hooks, node_hooks, tracer,
saved_hooks), and only while `process.hooked` (how many are installed, in any thread) is not
0: so every change goes through this module, which keeps that count.
"""
import contextlib

from .grad_mode import mode, process


class HookList:
    """The hooks of one kind for the current thread. Reads like a list (append, remove, len,
    iteration) for old callers; the engine reads `mode.<attr>`, a tuple it never copies."""

    def __init__(self, attr):
        self._attr = attr

    def append(self, fn):
        setattr(mode, self._attr, getattr(mode, self._attr) + (fn,))
        process.hooked += 1

    def remove(self, fn):
        fns = list(getattr(mode, self._attr))
        fns.remove(fn)
        setattr(mode, self._attr, tuple(fns))
        process.hooked -= 1

    @contextlib.contextmanager
    def registered(self, fn):
        """fn is called inside the with-block only (and always removed, even on error)."""
        self.append(fn)
        try:
            yield fn
        finally:
            self.remove(fn)

    def __iter__(self):
        return iter(getattr(mode, self._attr))

    def __len__(self):
        return len(getattr(mode, self._attr))

    def __bool__(self):
        return bool(getattr(mode, self._attr))

    def __eq__(self, other):
        return list(self) == list(other)

    __hash__ = None


op_hooks = HookList("op_hooks")        # fn(node, args, outputs) per recorded op
node_hooks = HookList("node_hooks")    # fn(node, grads) per node backward reaches
op_hook = op_hooks.registered
node_hook = node_hooks.registered


# --- the tracer -------------------------------------------------------------------------
def current_tracer():
    """The object this thread's ops are reported to (None when nothing traces)."""
    return mode.tracer


@contextlib.contextmanager
def tracing(tracer):
    """Install `tracer` for the with-block (None pauses tracing); the previous one returns."""
    prev = mode.tracer
    mode.tracer = tracer
    process.hooked += 1
    try:
        yield tracer
    finally:
        mode.tracer = prev
        process.hooked -= 1


def tell_tracer(cls, args, result):
    """Report an op the engine ran without Function dispatch (in-place writes, foreach)."""
    tracer = mode.tracer
    if tracer is not None:
        tracer.record(cls, args, result)


def call_untraced(cls, args):
    """Run one op with the tracer paused (ops inside its forward are not traced twice), then
    tell the tracer: the path of every op while a tracer is installed."""
    tracer = mode.tracer
    mode.tracer = None
    try:
        result = cls.apply(*args)
    finally:
        mode.tracer = tracer
    tracer.record(cls, args, result)
    return result


# --- saved tensors ------------------------------------------------------------------------
@contextlib.contextmanager
def saved_tensors_hooks(pack_hook, unpack_hook):
    """Inside the block, each tensor a forward saves is stored as pack_hook(tensor), and
    backward reads unpack_hook(packed) (torch.autograd.graph.saved_tensors_hooks). The
    innermost block wins; the version check still guards the tensor as it was saved."""
    prev = mode.saved_hooks
    set_saved_hooks((pack_hook, unpack_hook))
    try:
        yield
    finally:
        set_saved_hooks(prev, installed=False)


def set_saved_hooks(hooks, installed=True):
    """Install (pack, unpack) for this thread (or put the previous ones back: installed=False)."""
    mode.saved_hooks = hooks
    process.hooked += 1 if installed else -1


__all__ = ["op_hooks", "node_hooks", "op_hook", "node_hook", "current_tracer", "tracing",
           "tell_tracer", "call_untraced", "saved_tensors_hooks", "set_saved_hooks", "HookList"]
