"""labkit.jit.compile: the tf.function / torch.compile idea on labkit.

The first call with a new input signature (tensor shapes, dtypes, devices, requires_grad; the
values of Python numbers; grad mode) runs the function eagerly under the tracer. Everything it
does to tensors is recorded: the forward, a `loss.backward()` (the backward formulas are tensor
ops, so the backward graph is built here, once), and `optimizer.step()` (in-place updates of
the parameters). The graph is optimised and turned into one array program (codegen.py), cached
under that signature, and every later call with the same signature replays the program: no
Python of yours runs (so its side effects, a print or a list append, happen only while
tracing), no Tensor or Node is made per op.

A cached program stays valid while what it assumed still holds; before each replay compile
checks (guards): tensors frozen as constants are unchanged, each parameter's `.grad` is as the
trace found it (None, or the same tensor), optimizer hyperparameters (lr ...) are the same, and
no optimizer created new state while tracing (momentum buffers appear at the first step). When
a check fails it traces again; `traces` counts how often that happened.

A function whose outputs need gradients but which does not call backward itself (compile(model)
in a training loop) gets its backward compiled too, at the same first call: see joint.py.

LABKIT_JIT=0 in the environment turns compilation off: the function runs eagerly.
"""
import functools
import os
import time

from ..engine import hooks
from ..engine.grad_mode import mode
from ..engine.tensor import Tensor
from . import codegen, joint, passes
from .ir import Graph, Value
from .state import hyperparameters, reachable_state, state_fingerprint
from .trace import module_params
from .tracer import Tracer

_make = Tensor._make


def enabled():
    """False when LABKIT_JIT=0 (read when a function is compiled)."""
    return os.environ.get("LABKIT_JIT", "1").strip().lower() not in ("0", "false", "off", "no")


def compile(fn=None, *, pipeline=passes.PIPELINE):
    """Compile fn (a function or a module); usable as @compile or compile(fn). `pipeline`:
    the graph passes to run, in order (passes.PIPELINE by default; () for none)."""
    if fn is None:
        return functools.partial(compile, pipeline=pipeline)
    return CompiledFunction(fn, pipeline)


class CompiledFunction:
    """What compile returns: call it like fn; .traces, .signatures, .graph, .code, .kernels."""

    def __init__(self, fn, pipeline):
        self.fn = fn
        self.pipeline = pipeline
        self.enabled = enabled()
        self._cache = {}
        self.traces = 0            # how many times a trace ran (the retracing lesson)
        self.last = None           # the Entry used by the latest call
        self.params = module_params(fn)
        functools.update_wrapper(self, getattr(fn, "forward", fn), updated=())

    # --- what the lecture looks at -------------------------------------------------------------
    @property
    def graph(self):
        return self._latest().graph

    @property
    def code(self):
        return self._latest().program.source

    @property
    def kernels(self):
        return self._latest().program.kernels

    @property
    def signatures(self):
        return list(self._cache)

    def save(self, path):
        """Save the latest traced graph (optimised, with its weights)."""
        from .serialize import save
        save(self._latest().graph, path)

    def _latest(self):
        if self.last is None:
            raise RuntimeError("compile: nothing is compiled yet; call the function once.")
        return self.last

    # --- calling ---------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not self.enabled or hooks.current_tracer() is not None:
            return self.fn(*args, **kwargs)
        key, flat = signature(args, kwargs, self.fn)
        entry = self._cache.get(key)
        if entry is not None and entry.valid():
            self.last = entry
            return entry.run(flat)
        entry, result = self._trace(args, kwargs, flat)
        self._cache[key] = entry
        self.last = entry
        return result

    def _trace(self, args, kwargs, flat):
        self.traces += 1
        t0 = time.perf_counter()
        leaves, optimizers, names = reachable_state(self.fn, args)
        start_grads = {id(p): p.grad for p in leaves}
        opt_state = [state_fingerprint(o) for o in optimizers]
        graph = Graph(getattr(self.fn, "__name__", type(self.fn).__name__))
        tracer = Tracer(graph, params=self.params, strict=True, freeze_constants=False,
                        names=names)
        for i, t in enumerate(flat):
            v = graph.add_input(f"x{i}" if len(flat) > 1 else "x", t._data.shape, t._data.dtype)
            v.requires_grad = t._rg
            tracer.bind(t, v)
            tracer.external[id(t)] = (t, v)
        with tracer:
            result = self.fn(*args, **kwargs)
        t1 = time.perf_counter()
        entry = Entry(graph, tracer, result, flat, leaves, start_grads, optimizers)
        entry.unstable = [state_fingerprint(o) for o in optimizers] != opt_state
        entry.build(self.pipeline, tracer, result, flat)
        entry.trace_time, entry.compile_time = t1 - t0, time.perf_counter() - t1
        return entry, result

    def __repr__(self):
        return f"<compiled {self.__name__}: {self.traces} trace(s), {len(self._cache)} cached>"


class Entry:
    """One traced signature: its graph, its program, and the checks that keep it valid."""

    def __init__(self, graph, tracer, result, flat, leaves, start_grads, optimizers):
        self.graph = graph
        outs, self.rebuild = _flatten(result, tracer)
        self.out_values = outs
        self.single = len(outs) == 1 and isinstance(outs[0], Value)
        graph.outputs = [v for v in outs if isinstance(v, Value)]
        graph.stores = [(tracer.external[i][1], tracer.value_of(t, check=False))
                        for i, t in tracer.mutated.items()]
        self.mutated = list(tracer.mutated.values())
        self.guards = _constant_guards(graph)
        self.grad_plan, grad_guards = _grad_plan(tracer, leaves, start_grads, graph)
        self.guards += grad_guards
        self.hyper = [(o, hyperparameters(o)) for o in optimizers]
        self.autograd = (not tracer.backward_seen and mode.enabled
                         and any(v.requires_grad for v in graph.outputs))
        self.unstable = False
        self.device = flat[0].device if flat else _device(graph)
        self.params = [v.ref for v in graph.inputs if v.role == "param"]

    def build(self, pipeline, tracer, result, flat):
        self.joint = self.program = None
        if self.autograd:         # outputs need a backward: compile it too (joint.py)
            tensors = [t for t in _tensors_in(result)]
            self.joint, self.graphs, programs = joint.build(
                self.graph, tracer, tensors, flat, self.params, pipeline, self.device)
            self.graph, self.program = self.graphs[0], programs[0]
            return
        passes.optimize(self.graph, pipeline)
        self.program = codegen.generate(self.graph, self.device.xp, self.device)

    def valid(self):
        if self.unstable:
            return False
        for check in self.guards:
            if not check():
                return False
        for o, h in self.hyper:
            if hyperparameters(o) != h:
                return False
        return True

    def run(self, flat):
        if self.joint is not None:
            res = self.joint.apply(*flat, *self.params)
            res = res if isinstance(res, tuple) else (res,)
        else:
            res = self.program.fn(*[t._data for t in flat], *[p._data for p in self.params])
        for t in self.mutated:
            t._bump_version()
        device = self.device
        for leaf, idx in self.grad_plan:
            leaf.grad = None if idx is None else _make(res[idx], device)
        if self.single:                 # the common case: one tensor out
            r = res[0]
            return r if type(r) is Tensor else _make(r, device)
        outs = []
        k = 0
        for v in self.out_values:
            if isinstance(v, Value):
                v = res[k] if isinstance(res[k], Tensor) else _make(res[k], device)
                k += 1
            outs.append(v)
        return self.rebuild(outs)


def _device(graph):
    from ..engine.device import cpu
    for v in graph.inputs:
        if v.role == "param":
            return v.ref.device
    return cpu


def signature(args, kwargs, fn):
    """(key, tensors): what a cached program depends on (tensors' shape, dtype, device and
    requires_grad; Python values; grad mode; a module's train/eval mode), and the tensor
    arguments in order. One pass: it runs before every call."""
    key = [mode.enabled, getattr(fn, "training", None)]
    tensors = []
    for a in args:
        _add(a, key, tensors)
    if kwargs:
        for k in sorted(kwargs):
            key.append(k)
            _add(kwargs[k], key, tensors)
    return tuple(key), tensors


_SCALARS = (int, float, bool, str, type(None))


def _add(a, key, tensors):
    t = type(a)
    if t is Tensor or isinstance(a, Tensor):
        d = a._data
        key.append((d.shape, d.dtype.str, id(a.device), a._rg))
        tensors.append(a)
    elif t in _SCALARS:
        key.append((t, a))
    elif t is tuple or t is list:
        key.append(t)
        for x in a:
            _add(x, key, tensors)
    elif t is dict:
        for k in sorted(a, key=str):
            key.append(k)
            _add(a[k], key, tensors)
    else:
        key.append(("object", id(a)))


def _tensors_in(result):
    if isinstance(result, Tensor):
        yield result
    elif isinstance(result, (tuple, list)):
        for r in result:
            yield from _tensors_in(r)
    elif isinstance(result, dict):
        for r in result.values():
            yield from _tensors_in(r)


def _flatten(result, tracer):
    """([Value or Python constant, ...], rebuild(list) -> the same structure)."""
    if isinstance(result, Tensor):
        return [tracer.value_of(result)], lambda r: r[0]
    if isinstance(result, (tuple, list)):
        parts = [_flatten(r, tracer) for r in result]
        flat = [v for p in parts for v in p[0]]
        sizes = [len(p[0]) for p in parts]
        kind = type(result)

        def rebuild(r):
            out, i = [], 0
            for (_, sub), n in zip(parts, sizes):
                out.append(sub(r[i:i + n]))
                i += n
            return kind(out) if kind in (tuple, list) else kind(*out)
        return flat, rebuild
    if isinstance(result, dict):
        keys = list(result)
        flat, rebuild = _flatten([result[k] for k in keys], tracer)
        return flat, lambda r: dict(zip(keys, rebuild(r)))
    if result is None or isinstance(result, (bool, int, float, str)):
        return [result], lambda r: r[0]
    raise TypeError(f"compile: the function returned a {type(result).__name__}; a compiled "
                    "function may return tensors, Python numbers, and tuples, lists or dicts "
                    "of them.")


def _constant_guards(graph):
    """Tensors frozen as constants must not change (else: trace again)."""
    guards = []
    for c in graph.constants:
        t = c.source
        if t is not None:
            data, version = t._data, t._version
            guards.append(lambda t=t, d=data, v=version: t._data is d and t._version == v)
    return guards


_UNKNOWN = object()   # a leaf's .grad before the trace, when the trace start did not see it


def _grad_plan(tracer, leaves, start_grads, graph):
    """What each call does to parameters' .grad, and the checks that plan relies on."""
    plan, guards = [], []
    touched = {id(p): p for p in leaves}
    for i, (leaf, _) in tracer.grad_events.items():
        touched.setdefault(i, leaf)
    for i, leaf in touched.items():
        start = start_grads.get(i, _UNKNOWN)
        final = leaf.grad
        event = tracer.grad_events.get(i)
        if event is not None:
            before = event[1]
            if before is None and (start is None or start is _UNKNOWN):
                guards.append(lambda p=leaf: p.grad is None)
            elif before is not None:
                guards.append(lambda p=leaf, g=before: p.grad is g)
        if final is None:
            if start is not None:
                plan.append((leaf, None))
            continue
        if final is start and event is None:
            continue
        v = tracer.value_of(final, check=False)
        if v.role == "param" and v.ref is final:
            continue                  # the same grad tensor, written in place (a store)
        graph.outputs.append(v)
        plan.append((leaf, len(graph.outputs) - 1))
    return plan, guards
