"""Turning the profiler's probes on and off. Nothing here runs while no profiler records:
the probes are installed by start() and removed by stop(), so profiling off costs nothing.

Probes (events from the thread that started the profiler):
  ops        every Function class's forward is wrapped for the duration: the event is the
             time inside forward (the array library's work and the op's own Python), and the
             gaps between op events are the engine's and the caller's Python overhead
             (the engine's one dispatch core reads cls.forward on every call, so every op,
             recorded or not, is seen)
  backward   the engine's node observers: called as backward reaches each node (a node's
             event lasts until the next node starts, or backward returns)
  data       DataLoader iterators' __next__, wrapped for the duration
  optimizer  each Optimizer class's step and zero_grad, wrapped for the duration
"""
import re
import threading
import time
import traceback

from ..engine import autograd as _autograd
from ..engine.function import Function
from ..engine.tensor import Tensor
from .events import Event

_clock = time.perf_counter_ns
_BACKWARD_NAMES = {"AccumulateGrad": "torch::autograd::AccumulateGrad"}


# torch's names where the snake_case of labkit's class name is not it
_ATEN = {"mat_mul": "matmul", "to_copy": "_to_copy", "sum_all": "sum", "mean_all": "mean",
         "cross_entropy": "cross_entropy_loss", "max_all": "max", "min_all": "min",
         "bcewith_logits": "binary_cross_entropy_with_logits", "arg_max": "argmax",
         "arg_min": "argmin", "is_finite": "isfinite", "is_nan": "isnan", "is_inf": "isinf",
         "is_close": "isclose", "prod_all": "prod"}


_NAMES = {}     # class -> its event name (computed once)


def op_name(cls):
    """'aten::' + the op's name as torch's profiler shows it (LogSoftmax -> log_softmax)."""
    name = _NAMES.get(cls)
    if name is None:
        name = getattr(cls, "op_name", None)
        if name is None:
            name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", cls.__name__).lower()
            name = _ATEN.get(name, name)
        name = _NAMES[cls] = "aten::" + name
    return name


def _function_classes():
    seen, todo = {}, [Function]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen[sub] = None
                todo.append(sub)
    return list(seen)


class Probes:
    def __init__(self, session):
        self.s = session
        self.undo = []
        self.node = None        # the backward node running now: (outer event, inner event)

    # --- install / remove ----------------------------------------------------------------
    def install(self):
        self.tid = threading.get_ident()
        classes = _function_classes()
        originals = [(cls, cls.forward) for cls in classes]   # before any is wrapped
        for cls, forward in originals:
            self._wrap_forward(cls, forward)
        _autograd.observers.append(self.on_node)
        self.undo.append(lambda: _autograd.observers.remove(self.on_node))
        run_backward = _autograd.run_backward

        def timed_backward(*args, **kwargs):     # the last node ends when backward does
            try:
                return run_backward(*args, **kwargs)
            finally:
                self.close_node()
        _autograd.run_backward = timed_backward
        self.undo.append(lambda: setattr(_autograd, "run_backward", run_backward))
        self._wrap_loaders()
        self._wrap_optimizers()

    def remove(self):
        self.close_node()
        for fn in reversed(self.undo):
            fn()
        self.undo = []

    def _wrap_forward(self, cls, forward):
        own = "forward" in cls.__dict__
        orig = cls.__dict__["forward"] if own else None
        s, probes, name = self.s, self, op_name(cls)

        def timed_forward(*args):
            if not s.recording or threading.get_ident() != probes.tid:
                return forward(*args)
            t0 = _clock()
            inputs = args if cls.setup_context is not None else args[1:]
            start_dev = probes.device_mark(inputs)
            result = forward(*args)
            e = Event(name, t0, _clock(), "cpu_op", tid=probes.tid)
            if s.record_shapes:
                e.shapes = [tuple(a.shape) if isinstance(a, Tensor) else () for a in inputs]
            if s.profile_memory:
                e.mem = _nbytes(result)
            if s.with_stack:
                e.stack = _user_stack()
            if start_dev is not None:
                s.device_pending.append((e, start_dev, probes.device_mark(inputs)))
            s.events.append(e)
            return result
        cls.forward = staticmethod(timed_forward)
        if own:
            self.undo.append(lambda: setattr(cls, "forward", orig))
        else:
            self.undo.append(lambda: delattr(cls, "forward"))

    # --- backward nodes: each lasts until the next one starts (or backward ends) -----------
    def on_node(self, node, grads):
        now = _clock()
        self.close_node(now)
        if not self.s.recording:
            return
        name = node.name() if hasattr(node, "name") else type(node).__name__
        name = _BACKWARD_NAMES.get(name, name)
        outer = Event("autograd::engine::evaluate_function: " + name, now, now, "cpu_op",
                      tid=self.tid)
        inner = Event(name, now, now, "cpu_op", tid=self.tid)
        if self.s.record_shapes:
            inner.shapes = outer.shapes = [tuple(getattr(g, "shape", ())) for g in grads
                                           if g is not None]
        self.node = (outer, inner)
        self.s.events.extend(self.node)

    def close_node(self, now=None):
        if self.node is not None:
            now = _clock() if now is None else now
            for e in self.node:
                e.end = now
            self.node = None

    # --- device time (cuda events around each op on a GPU) ---------------------------------
    def device_mark(self, args):
        if not self.s.cuda:
            return None
        for a in args:
            if isinstance(a, Tensor) and a.device.type == "cuda":
                ev = a.device.xp.cuda.Event()
                ev.record()
                return ev
        return None

    # --- labelled blocks: DataLoader batches, optimizer steps ------------------------------
    def _wrap(self, cls, attr, label):
        orig = cls.__dict__[attr]
        s, probes = self.s, self

        def wrapped(this, *args, **kwargs):
            if not s.recording or threading.get_ident() != probes.tid:
                return orig(this, *args, **kwargs)
            probes.close_node()
            t0 = _clock()
            try:
                return orig(this, *args, **kwargs)
            finally:
                s.events.append(Event(label(this), t0, _clock(), "user_annotation",
                                      tid=probes.tid))
        wrapped.__wrapped__ = orig
        setattr(cls, attr, wrapped)
        self.undo.append(lambda: setattr(cls, attr, orig))

    def _wrap_loaders(self):
        from ..utils.data import dataloader
        self._wrap(dataloader._SingleProcessIter, "__next__",
                   lambda it: "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__")
        try:
            from ..utils.data.multiprocess import MultiProcessIter
        except ImportError:
            return
        self._wrap(MultiProcessIter, "__next__",
                   lambda it: "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__")

    def _wrap_optimizers(self):
        from ..optim.optimizer import Optimizer
        seen, todo = set(), [Optimizer]
        while todo:
            cls = todo.pop()
            if cls in seen:
                continue
            seen.add(cls)
            todo.extend(cls.__subclasses__())
            for attr in ("step", "zero_grad"):
                if attr in cls.__dict__:
                    self._wrap(cls, attr, lambda opt, a=attr:
                               f"Optimizer.{a}#{type(opt).__name__}.{a}")


def _nbytes(result):
    if isinstance(result, Tensor):
        return int(result._data.nbytes)
    if hasattr(result, "nbytes") and hasattr(result, "dtype"):     # an array
        return int(result.nbytes)
    if isinstance(result, (tuple, list)):
        return sum(_nbytes(r) for r in result)
    return 0


def _user_stack():
    """The calling frames outside labkit, innermost first ('file(line): function')."""
    frames = [f for f in traceback.extract_stack()[:-2] if "/labkit/" not in f.filename]
    return [f"{f.filename}({f.lineno}): {f.name}" for f in reversed(frames[-5:])]
