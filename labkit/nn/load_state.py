"""Module.load_state_dict as torch runs it: module by module, each through its own
_load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
error_msgs), the method models override to rename or convert an old checkpoint's keys before
calling super() (litgpt's legacy attn -> qkv keys, LoRA's linear -> linear.linear, BatchNorm's
num_batches_tracked). A child sees the keys of its subtree as its parent left them.

One difference, on purpose: the default step only records its copies, and they run once every
module has been checked, so a load that fails leaves the model as it was (torch copies the
matching tensors, then raises)."""
import warnings
from collections import OrderedDict

from ..engine.grad_mode import no_grad
from ..engine.tensor import Tensor
from .parameter import Parameter

_pending = []   # a stack: the copies each load_state_dict under way has checked and deferred


def load_state_dict(module, state_dict, strict, assign):
    if not hasattr(state_dict, "keys"):
        raise TypeError(f"load_state_dict: expected a dict of name -> tensor, got "
                        f"{type(state_dict).__name__}.")
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)       # the overrides may change it: never the caller's
    for name, m in module.named_modules():     # lazy modules take the checkpoint's shapes
        if hasattr(m, "_materialize_from"):
            m._materialize_from(state_dict, name + "." if name else "")
    missing, unexpected, errors = [], [], []
    copies = []
    _pending.append(copies)
    try:
        _load(module, state_dict, "", metadata, assign, missing, unexpected, errors)
    finally:
        _pending.pop()
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in unexpected) + ". ")
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in missing) + ". ")
    if errors:
        hint = ("\n\tThe checkpoint was saved from a model built differently. Build the same "
                "architecture (same class and sizes) before loading"
                + (", or pass strict=False to load only the matching parameters (e.g. "
                   "for fine-tuning with a new head)." if strict and (missing or unexpected)
                   else "."))
        raise RuntimeError(f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
                           + "\n\t".join(errors) + hint)
    with no_grad():
        for copy in copies:
            copy()
    from .module import _IncompatibleKeys
    return _IncompatibleKeys(missing, unexpected)


def _load(module, local_state, prefix, metadata, assign, missing, unexpected, errors):
    local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
    if assign:
        local_metadata["assign_to_params_buffers"] = assign
    module._load_from_state_dict(local_state, prefix, local_metadata, True, missing, unexpected,
                                 errors)
    for name, child in module._modules.items():
        if child is not None:
            child_prefix = prefix + name + "."
            child_state = {k: v for k, v in local_state.items() if k.startswith(child_prefix)}
            _load(child, child_state, child_prefix, metadata, assign, missing, unexpected,
                  errors)
    hooks = getattr(module, "_load_state_dict_post_hooks", None)
    if hooks:
        from .module import _IncompatibleKeys
        keys = _IncompatibleKeys(missing, unexpected)   # the hooks may edit both lists
        for hook in hooks.values():
            if hook(module, keys) is not None:
                raise RuntimeError("a load_state_dict post hook must return None: change "
                                   "incompatible_keys.missing_keys / unexpected_keys in place.")


def load_own_state(module, state_dict, prefix, local_metadata, strict, missing, unexpected,
                   errors):
    """The default _load_from_state_dict: this module's own parameters and persistent buffers."""
    for hook in getattr(module, "_load_state_dict_pre_hooks", {}).values():
        hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors)
    local = {k: v for k, v in module._parameters.items() if v is not None}
    local.update((k, v) for k, v in module._buffers.items()
                 if v is not None and k not in module._non_persistent_buffers)
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, target in local.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing.append(key)
            continue
        value = state_dict[key]
        if not isinstance(value, Tensor):
            errors.append(f'While copying the parameter named "{key}", expected a tensor '
                          f"in the state_dict, got {type(value).__name__}.")
        elif tuple(value.shape) != tuple(target.shape):
            errors.append(f"size mismatch for {key}: copying a param with shape "
                          f"{value.shape} from checkpoint, the shape in current model is "
                          f"{target.shape}.")
        elif assign:
            _run_or_defer(lambda m=module, n=name, t=target, v=value: _assign(m, n, t, v))
        elif target.device.type == "meta" and value.device.type != "meta":
            warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to "
                          "a meta parameter in the current model, which is a no-op. (Did you "
                          "mean to pass `assign=True` to assign items in the state dictionary "
                          "to their corresponding key in the module instead of copying them "
                          "in place?)", stacklevel=4)
        else:
            _run_or_defer(lambda t=target, v=value: t.copy_(v))
    extra_key = prefix + "_extra_state"
    from .module import Module
    if getattr(type(module), "set_extra_state", Module.set_extra_state) \
            is not Module.set_extra_state:
        if extra_key in state_dict:
            module.set_extra_state(state_dict[extra_key])
        elif strict:
            missing.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected.append(extra_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_key:
                head = key[len(prefix):].split(".", 1)
                if (head[0] not in module._modules) if len(head) > 1 else (head[0] not in local):
                    unexpected.append(key)


def _run_or_defer(copy):
    if _pending:
        _pending[-1].append(copy)
    else:                                    # _load_from_state_dict called on its own
        with no_grad():
            copy()


def _assign(module, name, target, value):
    if isinstance(target, Parameter) and not isinstance(value, Parameter):
        value = Parameter(value, requires_grad=target.requires_grad)
    else:
        value.requires_grad_(target.requires_grad)
    setattr(module, name, value)
