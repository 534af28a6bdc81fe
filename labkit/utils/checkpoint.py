"""Activation checkpointing: keep less for backward, recompute it when backward needs it.

checkpoint(fn, *args, use_reentrant=False) runs fn so that the ops inside it keep *nothing*
for backward (a saved_tensors_hooks whose pack keeps only a number); the first time backward
asks for one of those tensors, fn runs again on the same inputs, with the random state of the
first run (dropout draws the same mask) and the same autocast state, and the recomputed
tensors are handed over in order. The graph is the one the first run built, so gradients are
exactly the un-checkpointed ones. Memory: a chain of n layers cut into k segments keeps k
segment inputs plus one segment's activations during its backward: about n/k + k, least at
k = sqrt(n).

use_reentrant=True is torch's older form: fn runs under no_grad and one Function stands for
it; its backward recomputes fn with grad on and back-propagates through that copy. It needs
an input that requires grad (torch warns when none does, and the gradients are then None).
"""
import warnings

from ..autograd.graph import saved_tensors_hooks
from ..engine import creation as _creation
from ..engine.autocast import state as _autocast
from ..engine.autograd import backward as _backward
from ..engine.function import Function
from ..engine.grad_mode import enable_grad, mode, no_grad
from ..engine.tensor import Tensor


class _RNG:
    """The default generator's state at the first run, restored around the recomputation
    (and the state after it put back), as torch's preserve_rng_state."""

    def __init__(self, preserve):
        self.state = _creation.default_generator.get_state() if preserve else None

    def __enter__(self):
        if self.state is not None:
            self.now = _creation.default_generator.get_state()
            _creation.default_generator.set_state(self.state)

    def __exit__(self, *exc):
        if self.state is not None:
            _creation.default_generator.set_state(self.now)
        return False


class _Autocast:
    def __init__(self):
        self.dtypes = dict(_autocast.dtypes)

    def __enter__(self):
        self.now = dict(_autocast.dtypes)
        _autocast.dtypes.clear()
        _autocast.dtypes.update(self.dtypes)

    def __exit__(self, *exc):
        _autocast.dtypes.clear()
        _autocast.dtypes.update(self.now)
        return False


class _Frame:
    """One checkpointed call: packs each saved tensor as its position, recomputes on the first
    unpack. The outer saved_tensors_hooks (a memory meter) see the recomputed tensors."""

    def __init__(self, fn, args, kwargs, preserve_rng_state):
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.rng, self.autocast = _RNG(preserve_rng_state), _Autocast()
        self.count = 0
        self.values = None
        outer = mode.saved_hooks            # (pack, unpack) outside us, e.g. a memory meter:
        self.held = [outer[0](a) for a in list(args) + list(kwargs.values())  # it sees the
                     if outer is not None and isinstance(a, Tensor)]     # inputs we keep

    def pack(self, t):
        i = self.count
        self.count += 1
        return i

    def unpack(self, i):
        if self.values is None:
            self._recompute()
        if i >= len(self.values):
            raise RuntimeError(
                f"checkpoint: the recomputation saved {len(self.values)} tensors, the first run "
                f"{self.count}: the checkpointed function must do the same ops each time it "
                "runs (no branching on a global, no changing state between forward and "
                "backward).")
        unpack, value = self.values[i]
        return value if unpack is None else unpack(value)

    def _recompute(self):
        values = []
        outer = mode.saved_hooks            # the hooks outside, e.g. a memory meter, see the
        #                                     recomputed tensors as they are kept

        def keep(t):        # detached, as torch: the recomputed graph is dropped at once
            if t.grad_fn is not None:       # (leaves, parameters among them, stay as they are)
                t = t.detach()
            values.append((None, t) if outer is None else (outer[1], outer[0](t)))

        with self.rng, self.autocast, enable_grad(), saved_tensors_hooks(keep, _none):
            self.fn(*self.args, **self.kwargs)
        self.values = values


def _none(x):
    return x


def _requires_grad(args, kwargs):
    return any(isinstance(a, Tensor) and a.requires_grad
               for a in list(args) + list(kwargs.values()))


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, **kwargs):
    """function(*args, **kwargs), keeping nothing inside it for backward (see module doc)."""
    if use_reentrant is None:
        warnings.warn("checkpoint: pass use_reentrant explicitly (torch asks for it too); "
                      "use_reentrant=False is the recommended form. Using False.", stacklevel=2)
        use_reentrant = False
    if use_reentrant:
        if kwargs:
            raise ValueError("checkpoint: keyword arguments are only supported with "
                             "use_reentrant=False (as in torch).")
        if mode.enabled and not _requires_grad(args, {}):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                          stacklevel=2)
        return _Reentrant.apply(function, preserve_rng_state, *args)
    if not mode.enabled:
        return function(*args, **kwargs)       # nothing is saved anyway
    frame = _Frame(function, args, kwargs, preserve_rng_state)
    with saved_tensors_hooks(frame.pack, frame.unpack):
        out = function(*args, **kwargs)
    return out


class _Reentrant(Function):
    node_name = "CheckpointFunctionBackward"

    @staticmethod
    def forward(ctx, function, preserve, *args):
        ctx.function, ctx.rng, ctx.autocast = function, _RNG(preserve), _Autocast()
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        ctx.arg_slots = [isinstance(a, Tensor) for a in args]
        ctx.plain = [None if isinstance(a, Tensor) else a for a in args]
        with no_grad():
            out = function(*args)
        if isinstance(out, Tensor):
            return out.detach()
        return tuple(o.detach() if isinstance(o, Tensor) else o for o in out)

    @staticmethod
    def backward(ctx, *grads):
        saved = iter(ctx.saved_tensors)
        args = []
        for is_t, plain in zip(ctx.arg_slots, ctx.plain):
            if is_t:
                t = next(saved)
                args.append(t.detach().requires_grad_(t.requires_grad))
            else:
                args.append(plain)
        with ctx.rng, ctx.autocast, enable_grad():
            out = ctx.function(*args)
        outs = (out,) if isinstance(out, Tensor) else tuple(out)
        pairs = [(o, g) for o, g in zip(outs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if pairs:
            _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if isinstance(a, Tensor) else None for a in args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a Sequential (or list of modules/functions) in `segments` checkpointed pieces; the
    last piece runs normally (its activations are needed at once by backward), as torch."""
    if use_reentrant is None:
        warnings.warn("checkpoint_sequential: pass use_reentrant explicitly; using False.",
                      stacklevel=2)
        use_reentrant = False
    if kwargs:
        raise ValueError(f"checkpoint_sequential: unexpected keyword(s) {sorted(kwargs)}")
    fns = list(functions.children()) if hasattr(functions, "children") else list(functions)
    if not isinstance(segments, int) or not 1 <= segments <= max(len(fns), 1):
        raise ValueError(f"checkpoint_sequential: segments must be an int in 1..{len(fns)} "
                         f"(the number of functions), got {segments!r}.")
    size = len(fns) // segments

    def run(start, end):
        def forward(x):
            for f in fns[start:end + 1]:
                x = f(x)
            return x
        return forward

    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant)
    return run(end + 1, len(fns) - 1)(input)
