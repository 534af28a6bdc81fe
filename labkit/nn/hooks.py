"""Module hooks: code that runs around a module's forward and backward (torch.nn's).

Forward hooks are plain calls before and after forward. Backward hooks need the gradients with
respect to the module's inputs and outputs, which only exist during backward: so the inputs and
the outputs are passed through an identity Function whose backward sees those gradients and
calls the hooks (torch's BackwardHook does the same). Global hooks (register_module_*) run for
every module, before the module's own.
"""
import itertools
import warnings
from collections import OrderedDict

from ..engine.function import Function
from ..engine.grad_mode import is_grad_enabled
from ..engine.hooks import current_tracer
from ..engine.tensor import Tensor


class RemovableHandle:
    """What register_*_hook returns: handle.remove() unregisters the hook."""

    def __init__(self, *registries, key):
        self._registries, self.id = registries, key

    def remove(self):
        for r in self._registries:
            r.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


_next_hook_id = itertools.count()


def add_hook(registry, hook, prepend=False, extra=()):
    """Put hook in registry (first when prepend); extra: {id: True} sets it also belongs to."""
    key = next(_next_hook_id)
    registry[key] = hook
    if prepend:
        registry.move_to_end(key, last=False)
    for flags in extra:
        flags[key] = True
    return RemovableHandle(registry, *extra, key=key)


_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full = [None]   # full or old-style global backward hooks (they cannot be mixed)


def register_module_forward_pre_hook(hook):
    """hook(module, args) before every module's forward."""
    return add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """hook(module, args, output) after every module's forward."""
    extra = ((_global_forward_hooks_with_kwargs,) if with_kwargs else ()) + \
        ((_global_forward_hooks_always_called,) if always_call else ())
    return add_hook(_global_forward_hooks, hook, extra=extra)


def register_module_full_backward_pre_hook(hook):
    """hook(module, grad_output) for every module, when its output gradients are known."""
    return add_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """hook(module, grad_input, grad_output) for every module, once its input gradients are
    known; it may return replacement grad_input."""
    _check_mix(_global_is_full[0], True, "global ")
    _global_is_full[0] = True
    return add_hook(_global_backward_hooks, hook)


def register_module_backward_hook(hook):
    """Deprecated: use register_module_full_backward_hook."""
    _check_mix(_global_is_full[0], False, "global ")
    _global_is_full[0] = False
    return add_hook(_global_backward_hooks, hook)


def _check_mix(current, full, where=""):
    if current is not None and current != full:
        raise RuntimeError(f"Cannot use both regular backward hooks and full backward hooks as "
                           f"a {where}Module hook. Please use only one of them.")


class _BackwardHookFunction(Function):
    """Identity on the tensors; its backward hands their gradients to callback, which may
    replace them. Inputs not requiring grad stay out of the graph (non-differentiable)."""
    node_name = "BackwardHookFunctionBackward"

    @staticmethod
    def forward(ctx, callback, *tensors):
        ctx.callback = callback
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tuple(t._data for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.callback(grads))


def _pass_through(callback, values):
    """values (a tuple) with its tensors replaced by outputs of one _BackwardHookFunction;
    (new values, positions of the tensors), or (values, None) when nothing needs grad."""
    index = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
    needs_grad = any(values[i].requires_grad for i in index)
    if not is_grad_enabled() or current_tracer() is not None or not needs_grad:
        return values, None
    outs = _BackwardHookFunction.apply(callback, *[values[i] for i in index])
    values = list(values)
    for i, o in zip(index, outs):
        src = values[i]
        if src._vc is None:
            src._vc = [0]
        o._vc = src._vc     # same memory, same version: an in-place change to one is seen
        values[i] = o       # by whatever saved the other (an error, not a wrong gradient)
    return tuple(values), index


class BackwardHook:
    """One forward's worth of backward-hook state: grad_output arrives first (through the
    outputs' identity), then grad_input (through the inputs' identity) and the hooks run."""

    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs = None
        self.input_index = None

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        args, self.input_index = _pass_through(self._on_input, args)
        return args

    def setup_output_hook(self, result):
        is_tuple = isinstance(result, tuple)
        values = result if is_tuple else (result,)
        self.n_outputs = len(values)
        values, self.output_index = _pass_through(self._on_output, values)
        return values if is_tuple else values[0]

    @staticmethod
    def _pack(index, grads, n):
        packed = [None] * n
        for i, g in zip(index or (), grads):
            packed[i] = g
        return tuple(packed)

    def _on_output(self, grads):
        self.grad_outputs = self._pack(self.output_index, grads, self.n_outputs)
        for hook in self.pre_hooks:
            new = hook(self.module, self.grad_outputs)
            if new is None:
                continue
            new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
            if len(new) != len(self.grad_outputs):
                raise RuntimeError(f"Backward pre hook returned an invalid number of "
                                   f"grad_output, got {len(new)}, but expected "
                                   f"{len(self.grad_outputs)}")
            self.grad_outputs = new
        grad_outputs = self.grad_outputs
        if self.input_index is None and self.hooks:   # no input needs grad: call them now
            warnings.warn("Full backward hook is firing when gradients are computed with "
                          "respect to module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          UserWarning, stacklevel=2)
            grad_inputs = (None,) * self.n_inputs
            for hook in self.hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple)
                                            and all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return [grad_outputs[i] for i in self.output_index]

    def _on_input(self, grads):
        if self.grad_outputs is None:       # the gradient did not come through the outputs
            return grads
        res = self._pack(self.input_index, grads, self.n_inputs)
        for hook in self.hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
            if len(out) != len(res):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = out
        self.grad_outputs = None
        return [res[i] for i in self.input_index]


def warn_old_style(inputs, passed, result):
    """torch's FutureWarning for register_backward_hook when the module is not one op whose
    inputs are the module's inputs (its grad_input would then miss some gradients)."""
    results = result if isinstance(result, tuple) else (result,)
    if not all(isinstance(r, Tensor) for r in results) or \
            not all(isinstance(i, Tensor) for i in inputs):
        what = "return a single Tensor or a tuple of Tensors" if not all(
            isinstance(r, Tensor) for r in results) else "take as input a single Tensor or a " \
                                                         "tuple of Tensors"
        msg = (f"Using non-full backward hooks on a Module that does not {what} is deprecated "
               "and will be removed in future versions. This hook will be missing some of the "
               + ("grad_output." if "return" in what else "grad_input."))
    else:
        out_fns = {r.grad_fn for r in results if r.grad_fn is not None}
        if len(out_fns) != 1:
            msg = ("Using a non-full backward hook when outputs are generated by different "
                   "autograd Nodes is deprecated and will be removed in future versions. This "
                   "hook will be missing some grad_output.")
        else:
            if _one_op(out_fns.pop(), inputs, passed):
                return
            msg = ("Using a non-full backward hook when the forward contains multiple autograd "
                   "Nodes is deprecated and will be removed in future versions. This hook will "
                   "be missing some grad_input.")
    warnings.warn(msg + " Please use register_full_backward_hook to get the documented "
                  "behavior.", FutureWarning, stacklevel=4)


def _one_op(fn, inputs, passed):
    """Whether the output's node fn consumed the module's inputs directly (torch's test),
    looking through the inputs' backward-hook identity when there is one."""
    def fns(ts):
        return {t.grad_fn for t in ts if isinstance(t, Tensor) and t.grad_fn is not None}
    nxt = {n for n, _ in fn.next_functions}
    if nxt != fns(passed):
        return False
    ident = [n for n in nxt if isinstance(n, _BackwardHookFunction._node_cls)]
    if ident:
        nxt = {n for n, _ in ident[0].next_functions}
    return nxt == fns(inputs)
