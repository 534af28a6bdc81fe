"""Module: the base class of every layer and model.

A Module finds its parts by attribute assignment: `self.fc = nn.Linear(...)` registers a child
module, `self.w = nn.Parameter(...)` a parameter, `self.register_buffer("mean", t)` a tensor
that is state but not learned. Everything else (parameters(), state_dict(), to(), train(),
zero_grad()) walks that tree. You write only __init__ and forward; autograd does backward.
"""
import warnings
from collections import OrderedDict, namedtuple
from typing import Any, TypeVar

from ..engine.autograd import zero_grad
from ..engine.device import Device
from ..engine.dtype import dtype as _dtype, float16, float32, float64
from ..engine.grad_mode import no_grad
from ..engine.tensor import Tensor
from ..engine.unsupported import missing
from . import hooks as _hooks
from .hooks import (RemovableHandle, register_module_backward_hook,  # noqa: F401
                    register_module_forward_hook, register_module_forward_pre_hook,
                    register_module_full_backward_hook,
                    register_module_full_backward_pre_hook)
from .parameter import Buffer, Parameter


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


# The global hook registries (nn/hooks.py changes them in place, never rebinds them), named
# here so that every module call reads each with one lookup
_GLOBAL_FORWARD_PRE = _hooks._global_forward_pre_hooks
_GLOBAL_FORWARD = _hooks._global_forward_hooks
_GLOBAL_BACKWARD = _hooks._global_backward_hooks
_GLOBAL_BACKWARD_PRE = _hooks._global_backward_pre_hooks


_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class Module:
    """Base class for layers and models: subclass it, register parts in __init__ (after
    super().__init__()), and compute the output in forward(). Call the module, not forward."""

    # torch's class attributes: dump_patches (a legacy flag torch keeps, always False), the
    # state_dict format version (local_metadata["version"]), and call_super_init (True: pass
    # __init__'s arguments on to the next class in the MRO, for cooperative mixins)
    dump_patches = False
    _version = 1
    call_super_init = False
    T_destination = TypeVar("T_destination", bound=dict[str, Any])

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        set_ = object.__setattr__
        set_(self, "training", True)
        set_(self, "_parameters", {})
        set_(self, "_buffers", {})
        set_(self, "_non_persistent_buffers", set())
        set_(self, "_modules", {})
        for name in ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks",
                     "_backward_hooks"):
            set_(self, name, OrderedDict())
        set_(self, "_forward_pre_hooks_with_kwargs", {})
        set_(self, "_forward_hooks_with_kwargs", {})
        set_(self, "_forward_hooks_always_called", {})
        set_(self, "_is_full_backward_hook", None)
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function: '
            "define forward(self, x) in your class; it says how the output is computed from "
            "the input and the registered layers.")

    def __call__(self, *args, **kwargs):
        if (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or _GLOBAL_FORWARD_PRE or _GLOBAL_FORWARD
                or _GLOBAL_BACKWARD or _GLOBAL_BACKWARD_PRE):
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    def _call_with_hooks(self, args, kwargs):
        """torch's order: forward pre-hooks (global first), the inputs' backward-hook identity,
        forward, forward hooks, the outputs' backward-hook identity. If something raises,
        the forward hooks registered with always_call=True still run (with output None)."""
        called = set()
        try:
            return self._hooked_call(args, kwargs, called)
        except Exception:
            for key, hook in [*_hooks._global_forward_hooks.items(),
                              *self._forward_hooks.items()]:
                if key in called or not (key in self._forward_hooks_always_called or
                                         key in _hooks._global_forward_hooks_always_called):
                    continue
                try:
                    if key in self._forward_hooks_with_kwargs:
                        hook(self, args, kwargs, None)
                    else:
                        hook(self, args, None)
                except Exception as e:
                    warnings.warn("module forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {e}", stacklevel=2)
            raise

    def _hooked_call(self, args, kwargs, called):
        for key, hook in [*_hooks._global_forward_pre_hooks.items(),
                          *self._forward_pre_hooks.items()]:
            if key in self._forward_pre_hooks_with_kwargs:
                new = hook(self, args, kwargs)
                if new is not None:
                    if not (isinstance(new, tuple) and len(new) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {new}.")
                    args, kwargs = new
            else:
                new = hook(self, args)
                if new is not None:
                    args = new if isinstance(new, tuple) else (new,)
        full, old = self._backward_hooks_by_kind()
        pre = [*_hooks._global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
        bw = _hooks.BackwardHook(self, full or old, pre) if full or old or pre else None
        given = args
        if bw is not None:
            args = bw.setup_input_hook(args)
        out = self.forward(*args, **kwargs)
        for key, hook in [*_hooks._global_forward_hooks.items(), *self._forward_hooks.items()]:
            called.add(key)
            if key in self._forward_hooks_with_kwargs or \
                    key in _hooks._global_forward_hooks_with_kwargs:
                new = hook(self, args, kwargs, out)
            else:
                new = hook(self, args, out)
            if new is not None:
                out = new
        if old:
            _hooks.warn_old_style(given, args, out)
        if bw is not None:
            out = bw.setup_output_hook(out)
        return out

    def _backward_hooks_by_kind(self):
        hooks = [*_hooks._global_backward_hooks.values(), *self._backward_hooks.values()]
        if not hooks:
            return [], []
        full = self._is_full_backward_hook
        if full is None:
            full = _hooks._global_is_full[0]
        return (hooks, []) if full else ([], hooks)

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) runs before forward; it may return new args. With with_kwargs,
        hook(module, args, kwargs) may return (new_args, new_kwargs)."""
        return _hooks.add_hook(self._forward_pre_hooks, hook, prepend,
                               (self._forward_pre_hooks_with_kwargs,) if with_kwargs else ())

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """hook(module, args, output) runs after forward (to look at activations, e.g. for a
        histogram); it may return a replacement output. With with_kwargs,
        hook(module, args, kwargs, output). With always_call, it runs even if forward raises."""
        extra = ((self._forward_hooks_with_kwargs,) if with_kwargs else ()) + \
            ((self._forward_hooks_always_called,) if always_call else ())
        return _hooks.add_hook(self._forward_hooks, hook, prepend, extra)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) runs when the gradients of the module's outputs are known;
        it may return a replacement grad_output (a tuple, None for non-tensor outputs)."""
        return _hooks.add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) runs when the gradients of the module's inputs
        are known (one entry per positional input, None where no gradient); it may return a
        replacement grad_input. Do not change its arguments in place."""
        self._set_hook_kind(True)
        return _hooks.add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """Deprecated (as in torch): use register_full_backward_hook. labkit gives it the same
        module-level gradients, and warns as torch does where torch's would miss some."""
        self._set_hook_kind(False)
        return _hooks.add_hook(self._backward_hooks, hook)

    def _set_hook_kind(self, full):
        if self._is_full_backward_hook is not None and self._is_full_backward_hook != full:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", full)

    # --- registration -------------------------------------------------------------------
    def _registry(self, kind):
        try:
            return self.__dict__[kind]
        except KeyError:
            raise AttributeError(
                f"cannot assign {kind[1:-1]}s before Module.__init__() call: start your "
                f"{type(self).__name__}.__init__ with super().__init__().") from None

    def register_parameter(self, name, param):
        """Add a parameter (a Parameter, or None for an optional one such as a missing bias)."""
        params = self._registry("_parameters")
        _check_name(self, name, "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign a {type(param).__name__} as parameter '{name}' of "
                f"{type(self).__name__}: wrap it as nn.Parameter(tensor) to make it learnable, "
                f"or use register_buffer('{name}', tensor) for state that is not learned.")
        self._forget(name, "_parameters")
        params[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is state but not learned (e.g. BatchNorm's running mean): it moves
        with to() and, when persistent, is saved in the state_dict."""
        buffers = self._registry("_buffers")
        _check_name(self, name, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign a {type(tensor).__name__} as buffer '{name}' of "
                            f"{type(self).__name__}: a buffer must be a tensor (or None).")
        self._forget(name, "_buffers")
        buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)

    def add_module(self, name, module):
        modules = self._registry("_modules")
        _check_name(self, name, "module")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass, so it cannot be "
                            f"added as child '{name}' of {type(self).__name__}.")
        self._forget(name, "_modules")
        modules[name] = module

    register_module = add_module

    def _forget(self, name, keep):
        """Drop `name` from the other registries (it is being registered in `keep`; there, an
        existing entry is replaced in place, keeping its position)."""
        d = self.__dict__
        d.pop(name, None)
        for kind in ("_parameters", "_buffers", "_modules"):
            if kind != keep:
                d[kind].pop(name, None)

    def __setattr__(self, name, value):
        d = self.__dict__
        params, modules = d.get("_parameters"), d.get("_modules")
        if isinstance(value, Parameter):
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign a {type(value).__name__} as parameter '{name}' of "
                    f"{type(self).__name__} (a Parameter or None expected). To change its "
                    f"values, copy into it: with no_grad(): module.{name}.copy_(new).")
            params[name] = None
        elif isinstance(value, Module):
            self.add_module(name, value)
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign a {type(value).__name__} as child module "
                                f"'{name}' of {type(self).__name__} (a Module or None expected).")
            modules[name] = None
        elif isinstance(value, Buffer):
            self.register_buffer(name, value, persistent=value.persistent)
        elif name in d.get("_buffers", ()):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign a {type(value).__name__} as buffer '{name}' "
                                f"of {type(self).__name__} (a Tensor or None expected).")
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        # Only called when normal lookup fails: parameters, buffers and children live here.
        d = self.__dict__
        for kind in ("_parameters", "_buffers", "_modules"):
            registry = d.get(kind)
            if registry is not None and name in registry:
                return registry[name]
        raise missing("torch.nn.Module", name, self)   # names a torch.nn.Module API labkit lacks

    def __delattr__(self, name):
        d = self.__dict__
        for kind in ("_parameters", "_buffers", "_modules"):
            if name in d.get(kind, ()):
                del d[kind][name]
                d["_non_persistent_buffers"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))

    # --- walking the tree ---------------------------------------------------------------
    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for this module and every module inside it, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name,
                                           remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def _named_members(self, kind, prefix, recurse, remove_duplicate=True):
        seen = set()
        tree = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mod_prefix, m in tree:
            for name, t in m.__dict__[kind].items():
                if t is None or (remove_duplicate and id(t) in seen):
                    continue
                seen.add(id(t))
                yield (f"{mod_prefix}.{name}" if mod_prefix else name), t

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, parameter) pairs, e.g. ("0.weight", ...); a shared parameter appears once."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        """Every learnable tensor of this module and its children: give it to an optimizer."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target):
        """The module at a dotted path such as "encoder.0"."""
        m = self
        for part in target.split(".") if target else []:
            if part not in m._modules or m._modules[part] is None:
                raise AttributeError(f"{type(m).__name__} has no submodule '{part}' "
                                     f"(looking up '{target}').")
            m = m._modules[part]
        return m

    def set_submodule(self, target, module, strict=False):
        """Put `module` at a dotted path such as "encoder.0" (its parent must exist): it
        replaces the submodule there, or, unless strict, adds one where there was none."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target):
        """The parameter at a dotted path such as "encoder.0.weight"."""
        return self._get_member(target, "_parameters", "an nn.Parameter")

    def get_buffer(self, target):
        """The buffer at a dotted path such as "bn.running_mean"."""
        return self._get_member(target, "_buffers", "a buffer")

    def _get_member(self, target, kind, what):
        module_path, _, name = target.rpartition(".")
        m = self.get_submodule(module_path)
        if not hasattr(m, name):
            raise AttributeError(f"{m._get_name()} has no attribute `{name}` (looking up "
                                 f"'{target}').")
        if name not in m.__dict__[kind]:
            raise AttributeError(f"`{name}` is not {what} (looking up '{target}').")
        return m.__dict__[kind][name]

    # --- modes and gradients ------------------------------------------------------------
    def train(self, mode=True):
        """Training mode (the default): Dropout drops, BatchNorm uses batch statistics."""
        if not isinstance(mode, bool):
            raise ValueError(f"train(mode): mode must be True or False, got {mode!r}.")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        """Evaluation mode: Dropout passes everything, BatchNorm uses running statistics.
        (It does not turn off gradient recording: use no_grad() for that.)"""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Freeze (False) or unfreeze every parameter, e.g. a pretrained body when fine-tuning."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Forget the gradients of the last backward (they accumulate otherwise)."""
        zero_grad(self.parameters(), set_to_none)

    def apply(self, fn):
        """Call fn(m) on every child module (depth first), then on self; e.g. custom init."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # --- devices and dtypes -------------------------------------------------------------
    def to(self, *args, **kwargs):
        """Move (device) and/or cast (dtype, floating-point tensors only) every parameter and
        buffer, in place: the Parameter objects stay the same, so an optimizer built earlier
        still holds them."""
        device, dtype, fmt = _parse_to(args, kwargs)

        def convert(t):
            if fmt is not None and t.dim() in (4, 5):    # as torch: conv weights only
                t = t.to(memory_format=fmt)
            if dtype is not None and t.is_floating_point():
                return t.to(device or t.device, dtype)
            return t.to(device) if device is not None else t
        return self._apply(convert)

    def _apply(self, fn):
        for m in self.children():
            m._apply(fn)
        with no_grad():
            for p in self._parameters.values():
                if p is not None:
                    _take_payload(p, fn(p))
                    if p.grad is not None:
                        _take_payload(p.grad, fn(p.grad))
            for name, b in self._buffers.items():
                if b is not None:
                    self._buffers[name] = fn(b)
        return self

    def share_memory(self):
        """Move parameters and buffers into shared memory (Tensor.share_memory_): worker
        processes forked afterwards train the same weights (Hogwild)."""
        return self._apply(lambda t: t.share_memory_())

    def to_empty(self, *, device, recurse=True):
        """Every parameter and buffer given new, uninitialised memory on device (the step
        after building a model on the meta device, before loading its weights)."""
        from ..engine.creation import empty_like
        device = Device(device)
        for module in (self.modules() if recurse else (self,)):
            for name, p in module._parameters.items():
                if p is None:
                    continue
                new = empty_like(p, device=device)
                if "meta" in (p.device.type, device.type):   # as torch: a meta tensor's
                    module._parameters[name] = Parameter(new, p.requires_grad)   # memory
                else:                                         # cannot be reused: new objects
                    _take_payload(p, new)
            for name, b in module._buffers.items():
                if b is not None:
                    module._buffers[name] = empty_like(b, device=device)
        return self

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to(f"cuda:{device}" if isinstance(device, int) else device or "cuda")

    def float(self):
        return self.to(float32)

    def double(self):
        return self.to(float64)

    def type(self, dst_type):
        """Every parameter and buffer cast to dst_type (a dtype or a legacy type such as
        labkit.DoubleTensor), integer buffers too, unlike to(dtype), as torch's."""
        return self._apply(lambda t: t.type(dst_type))

    def half(self):
        return self.to(float16)

    def bfloat16(self):
        from ..engine.dtype import bfloat16
        return self.to(bfloat16)

    # --- state_dict ---------------------------------------------------------------------
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """Name -> tensor for every parameter and persistent buffer: all a checkpoint needs
        besides the code (the class) that builds the model. The tensors share memory with the
        model's (detached, unless keep_vars). A module that defines get_extra_state() adds
        its result under prefix + "_extra_state", as torch does. As in torch, the result (an
        OrderedDict) carries `_metadata`: each module's {"version": ...}, by its prefix."""
        if args:                 # torch's old positional form, which it warns about
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning,
                          stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self.__dict__.get("_state_dict_pre_hooks", {}).values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
        for hook in self.__dict__.get("_state_dict_hooks", {}).values():
            result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if result is not None:     # the private API's hooks may return a new dict
                    destination = result
            elif result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """This module's own entries of state_dict (not its children's): override it to save
        differently, as torch code does."""
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers:
                destination[prefix + name] = b if keep_vars else b.detach()
        if getattr(type(self), "get_extra_state", Module.get_extra_state) \
                is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def get_extra_state(self):
        """Override it (with set_extra_state) to keep more than tensors in the state_dict:
        what it returns is saved under prefix + "_extra_state". Only an override is called."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called: only a subclass's own get_extra_state() is (labkit "
                           "follows torch here).")

    def set_extra_state(self, state):
        """Override it (with get_extra_state) to take back what get_extra_state returned, from
        the state_dict load_state_dict is given. Only an override is called."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called: only a subclass's own set_extra_state() is (labkit "
                           "follows torch here).")

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) before state_dict() saves this module."""
        return _hooks.add_hook(self.__dict__.setdefault("_state_dict_pre_hooks",
                                                        OrderedDict()), hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) once state_dict() has saved this
        module and its children; it may change state_dict in place and must return None."""
        hook._from_public_api = True
        return _hooks.add_hook(self.__dict__.setdefault("_state_dict_hooks", OrderedDict()),
                               hook)

    def _register_state_dict_hook(self, hook):
        """torch's older, private post-hook: a dict it returns replaces the root's result."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via "
                               "register_state_dict_post_hook")
        return _hooks.add_hook(self.__dict__.setdefault("_state_dict_hooks", OrderedDict()),
                               hook)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values from state_dict into this model's parameters and buffers, in place.

        Everything is checked first (keys, tensor types, shapes) and nothing is copied when
        something is wrong, so a failed load leaves the model as it was. With strict=False,
        missing and unexpected keys are allowed and returned (fine-tuning a changed model).
        With assign=True the checkpoint's tensors themselves become the parameters and buffers
        (no copy; each keeps the requires_grad of the one it replaces), as torch does. Each
        module takes its keys through _load_from_state_dict (see nn/load_state.py)."""
        from .load_state import load_state_dict
        return load_state_dict(self, state_dict, strict, assign)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """This module's part of load_state_dict (its own parameters and persistent buffers,
        keys prefix + name): override it to rename or convert an old checkpoint's keys in
        state_dict, then call super()._load_from_state_dict(...) as torch code does."""
        from .load_state import load_own_state
        load_own_state(self, state_dict, prefix, local_metadata, strict, missing_keys,
                       unexpected_keys, error_msgs)

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs) before this module takes its keys (it may edit them)."""
        return _hooks.add_hook(self.__dict__.setdefault("_load_state_dict_pre_hooks",
                                                        OrderedDict()), hook)

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) once this module and its children are loaded; it
        may remove entries of incompatible_keys.missing_keys / unexpected_keys in place."""
        return _hooks.add_hook(self.__dict__.setdefault("_load_state_dict_post_hooks",
                                                        OrderedDict()), hook)

    def compile(self, *args, **kwargs):
        """torch's in-place Module.compile: later calls run compiled. labkit's torch.compile runs
        eagerly (see labkit/_compile.py), so this only checks the arguments."""
        from .._compile import compile as _compile_fn
        _compile_fn(self.forward, *args, **kwargs)

    # --- printing -----------------------------------------------------------------------
    def extra_repr(self):
        """The one-line settings shown between the parentheses, e.g. 'in_features=2, ...'."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): {_indent(repr(m), 2)}" for name, m in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"


def _indent(text, spaces):
    first, *rest = text.split("\n")
    return "\n".join([first] + [" " * spaces + line if line.strip() else "" for line in rest])


def _check_name(module, name, kind):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string, got {type(name).__name__}.")
    if "." in name or name == "":
        raise KeyError(f"{kind} name must be non-empty and without dots, got {name!r} (dots "
                       "separate the levels of state_dict keys).")
    if hasattr(type(module), name):
        raise KeyError(f"attribute '{name}' already exists on {type(module).__name__} (a "
                       f"method or class attribute); choose another {kind} name.")


def _take_payload(t, new):
    """Make t hold new's data and device (t stays the same object)."""
    if new is not t:
        t._data, t.device = new._data, new.device


def _parse_to(args, kwargs):
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    fmt = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"Module.to(): unexpected keyword(s) {sorted(kwargs)}.")
    for a in args:
        if isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, _dtype):
            dtype = a
        elif isinstance(a, (str, Device)):
            device = a
        else:
            raise TypeError(f"Module.to(): expected a device ('cpu', 'cuda'), a dtype "
                            f"(labkit.float64) or a tensor, got {a!r}.")
    if dtype is not None and not _dtype_is_float(dtype):
        raise TypeError(f"Module.to() only accepts floating point dtypes, got {dtype}: "
                        "parameters must stay floating point to have gradients.")
    return (Device(device) if device is not None else None), dtype, fmt


def _dtype_is_float(d):
    return isinstance(d, _dtype) and d.is_floating_point
