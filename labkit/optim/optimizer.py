"""Optimizer: the base class that holds parameter groups and per-parameter state.

An optimizer owns no model: it holds references to the parameters (grouped, each group with its
own hyperparameters such as lr) and whatever it remembers between steps (momentum buffers,
running averages) in `state[param]`. step() reads each param.grad and changes the param in
place under no_grad; zero_grad() forgets the gradients before the next backward.
"""
import functools
from collections import OrderedDict, defaultdict

from ..engine.autograd import zero_grad
from ..engine.creation import tensor, zeros
from ..engine.dtype import float32, float64
from ..engine.grad_mode import enable_grad, no_grad
from ..engine.tensor import Tensor
from ..nn.hooks import add_hook


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        self._step_count = 0
        if isinstance(params, Tensor):
            raise TypeError(f"{type(self).__name__}: params should be an iterable of tensors "
                            "(or of dicts), but got a single Tensor. Pass [w], or "
                            "model.parameters().")
        if isinstance(params, set):
            raise TypeError(_SET_ERROR)
        groups = list(params)
        if not groups:
            raise ValueError(
                f"{type(self).__name__} got an empty parameter list. Did the model register its "
                "layers? (Layers kept in a plain Python list are invisible to parameters(): use "
                "nn.ModuleList.) A generator such as model.parameters() is also empty the "
                "second time it is read.")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:            # count steps (schedulers check the call order)
            cls.step = _counted(cls.__dict__["step"])

    def add_param_group(self, param_group):
        """Add parameters with their own hyperparameters (defaults fill in the rest), e.g. a
        smaller lr for a pretrained body than for a new head."""
        if not isinstance(param_group, dict):
            raise TypeError(f"add_param_group: expected a dict, got {type(param_group).__name__}.")
        group = dict(param_group)
        params = group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(_SET_ERROR)
        params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"{type(self).__name__} can only optimize Tensors, but one of the "
                                f"params is a {type(p).__name__}.")
            if not p.is_leaf:
                raise ValueError(
                    f"{type(self).__name__}: can't optimize a non-leaf Tensor (made by "
                    f"{type(p.grad_fn).__name__}): only leaves get .grad. Optimize the tensor "
                    "it was computed from, or create it with requires_grad=True directly.")
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params) or len({id(p) for p in params}) != len(params):
            raise ValueError("some parameters appear in more than one parameter group (or twice "
                             "in one); each parameter may be given to an optimizer only once.")
        group["params"] = params
        self.param_groups.append(group)

    def register_step_pre_hook(self, hook):
        """hook(optimizer, args, kwargs) runs before step(); it may return (new_args,
        new_kwargs). handle.remove() unregisters it."""
        return add_hook(self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict()),
                        hook)

    def register_step_post_hook(self, hook):
        """hook(optimizer, args, kwargs) runs after step() (e.g. to log or clip weights)."""
        return add_hook(self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict()),
                        hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer) runs before state_dict() packs the state."""
        return add_hook(self._hooks("_optimizer_state_dict_pre_hooks"), hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) runs on the packed dict; a returned dict replaces it."""
        return add_hook(self._hooks("_optimizer_state_dict_post_hooks"), hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) runs before loading; a returned dict is loaded instead
        (to rename or upgrade the state of an older checkpoint)."""
        return add_hook(self._hooks("_optimizer_load_state_dict_pre_hooks"), hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer) runs after load_state_dict() has restored the state."""
        return add_hook(self._hooks("_optimizer_load_state_dict_post_hooks"), hook, prepend)

    def _hooks(self, name):
        return self.__dict__.setdefault(name, OrderedDict())

    def zero_grad(self, set_to_none=True):
        """Forget every parameter's gradient (backward adds into .grad, it does not replace)."""
        zero_grad([p for group in self.param_groups for p in group["params"]], set_to_none)

    def step(self, closure=None):
        """Update every parameter that has a gradient, one at a time (subclasses define
        _update(p, group); SGD overrides step to update all parameters in one loop)."""
        loss = run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        if p._data.dtype.kind == "c":
                            self._update_complex(p, group)
                        else:
                            self._update(p, group)
        return loss

    def _update_complex(self, p, group):
        """As torch: a complex parameter is updated as its real view (..., 2), each real and
        imaginary part a parameter of its own (Adam's g * g is then |part|^2, not z^2); the
        state stays complex, as torch's."""
        from ..engine.ops.complex import view_as_complex, view_as_real
        real = view_as_real(p)
        real.grad = view_as_real(p.grad)
        self.state[real] = {k: view_as_real(v) if isinstance(v, Tensor) and v.is_complex()
                            else v for k, v in self.state.pop(p, {}).items()}
        self._update(real, group)
        self.state[p] = {k: view_as_complex(v) if isinstance(v, Tensor) and
                         tuple(v.shape) == tuple(real.shape) else v
                         for k, v in self.state.pop(real).items()}

    def _update(self, p, group):
        raise NotImplementedError(f"{type(self).__name__} must define _update(p, group) or step().")

    def state_dict(self):
        """{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}:
        parameters are named by their position, so it loads into a freshly built optimizer."""
        for hook in self._hooks("_optimizer_state_dict_pre_hooks").values():
            hook(self)
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: s for p, s in self.state.items() if id(p) in index}
        state_dict = {"state": state, "param_groups": groups}
        for hook in self._hooks("_optimizer_state_dict_post_hooks").values():
            result = hook(self, state_dict)
            state_dict = state_dict if result is None else result
        return state_dict

    def load_state_dict(self, state_dict):
        """Restore hyperparameters and state saved by state_dict(), for the same parameters in
        the same order. Tensors are copied to each parameter's device and dtype."""
        state_dict = dict(state_dict)
        for hook in self._hooks("_optimizer_load_state_dict_pre_hooks").values():
            result = hook(self, state_dict)
            state_dict = state_dict if result is None else result
        groups, saved = self.param_groups, state_dict["param_groups"]
        if len(groups) != len(saved):
            raise ValueError(f"loaded state dict has {len(saved)} parameter group(s), but this "
                             f"optimizer has {len(groups)}: build it the same way as the saved "
                             "one.")
        for i, (g, s) in enumerate(zip(groups, saved)):
            if len(g["params"]) != len(s["params"]):
                raise ValueError(
                    f"loaded state dict contains a parameter group ({i}) with "
                    f"{len(s['params'])} parameters, but the optimizer's group has "
                    f"{len(g['params'])}: it does not belong to this model.")
        by_index = {i: p for s, g in zip(saved, groups) for i, p in zip(s["params"], g["params"])}
        self.state = defaultdict(dict)
        for i, values in state_dict["state"].items():
            p = by_index.get(int(i))
            if p is None:
                raise ValueError(f"loaded optimizer state refers to parameter {i}, which no "
                                 "parameter group contains.")
            self.state[p] = {k: _cast(v, p, k) for k, v in values.items()}
        self.param_groups = [dict(s, params=g["params"]) for s, g in zip(saved, groups)]
        for hook in self._hooks("_optimizer_load_state_dict_post_hooks").values():
            hook(self)

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {k}: {group[k]}" for k in sorted(group) if k != "params")
        return "\n".join(lines) + "\n)"


_SET_ERROR = ("optimizer parameters must be an ordered collection (a list), not a set: the "
              "order of a set changes between runs, and state_dict() refers to parameters by "
              "position.")


def step_tensor(p):
    """A step count as a 0-d float32 tensor on p's device (as torch's capturable optimizers
    keep it): counting in place changes no Python number, so jit.compile does not retrace."""
    return zeros((), dtype=float32, device=p.device)


def step_as_float(step, p):
    """The step count in the dtype bias corrections are computed in: float64 for float64
    parameters, else float32. torch computes them in Python floats; in p's dtype a bfloat16
    0.999 ** step rounds to 1 and Adam's step becomes 0 / 0."""
    return step.to(p.dtype if p.dtype == float64 else float32)


def _cast(value, param, key):
    """A copy of a saved state value, on the parameter's device and (if float) dtype."""
    if key == "step":             # a count, as a float32 0-d tensor (an int from older files)
        value = value if isinstance(value, Tensor) else tensor(float(value))
        return value.to(param.device, float32, copy=True)
    if not isinstance(value, Tensor):
        return value
    if value.is_floating_point():
        return value.to(param.device, param.dtype, copy=True)
    return value.to(param.device, copy=True)


def _counted(step):
    """Every optimizer's step: counted (schedulers check the call order), with the step
    pre-hooks (which may replace the arguments) and post-hooks around it."""
    @functools.wraps(step)
    def counted_step(*args, **kwargs):      # args[0] is the optimizer (hooks see it, as torch)
        self = args[0]
        self._step_count += 1
        pre = [*_global_step_pre_hooks.values(),
               *getattr(self, "_optimizer_step_pre_hooks", {}).values()]
        for hook in pre:
            new = hook(self, args, kwargs)
            if new is not None:
                if not (isinstance(new, tuple) and len(new) == 2):
                    raise RuntimeError(f"{hook} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {new}.")
                args, kwargs = new
        out = step(*args, **kwargs)
        for hook in [*_global_step_post_hooks.values(),
                     *getattr(self, "_optimizer_step_post_hooks", {}).values()]:
            hook(self, args, kwargs)
        return out
    return counted_step


_global_step_pre_hooks = OrderedDict()
_global_step_post_hooks = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """hook(optimizer, args, kwargs) before every optimizer's step (may return new args)."""
    return add_hook(_global_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """hook(optimizer, args, kwargs) after every optimizer's step."""
    return add_hook(_global_step_post_hooks, hook)


def run_closure(closure):
    """step(closure): re-evaluate the model (with grad recording) and return the loss."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


Optimizer.step = _counted(Optimizer.step)   # the inherited step (Adam, ...) counts too
