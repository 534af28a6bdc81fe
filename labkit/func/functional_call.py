"""functional_call: run a module with the parameters and buffers you pass, not its own, so the
module becomes a pure function of them (what grad and vmap need; torch.func.functional_call)."""
from contextlib import contextmanager


def _owner(module, name):
    *path, leaf = name.split(".")
    for p in path:
        module = getattr(module, p)
    return module, leaf


@contextmanager
def _swapped(module, tensors, strict):
    known = dict(module.named_parameters(remove_duplicate=False))
    known.update(module.named_buffers(remove_duplicate=False))
    unknown = sorted(set(tensors) - set(known))
    if unknown:
        raise RuntimeError(f"functional_call: unexpected key(s) {unknown}; the module has "
                           f"{sorted(known)}.")
    if strict and set(known) - set(tensors):
        raise RuntimeError(f"functional_call(strict=True): missing key(s) "
                           f"{sorted(set(known) - set(tensors))}.")
    saved = []
    try:
        for name, t in tensors.items():
            owner, leaf = _owner(module, name)
            kind = "_parameters" if leaf in owner._parameters else "_buffers"
            table = owner.__dict__[kind]
            saved.append((table, leaf, table[leaf]))
            table[leaf] = t
        yield
    finally:
        for table, leaf, old in reversed(saved):
            table[leaf] = old


def functional_call(module, parameter_and_buffer_dicts, args=(), kwargs=None, *, strict=False):
    """module(*args, **kwargs) computed with the given tensors in place of its own."""
    dicts = parameter_and_buffer_dicts
    tensors = {}
    for d in (dicts if isinstance(dicts, (tuple, list)) else (dicts,)):
        tensors.update(d)
    args = args if isinstance(args, tuple) else (args,)
    with _swapped(module, tensors, strict):
        return module(*args, **(kwargs or {}))
