"""torch.compile, as labkit runs it: eagerly. torch.compile never changes results (it falls
back to eager Python wherever it cannot capture), so running the model as written is a faithful
stand-in; labkit's own compiler, which students study, is labkit.jit.compile. As in torch, a
compiled module is an OptimizedModule wrapping the original (`_orig_mod`, state_dict keys
prefixed "_orig_mod.")."""
from .nn.module import Module

_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


class OptimizedModule(Module):
    def __init__(self, mod):
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    if mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: "
                           f"{', '.join(m for m in _MODES if m)}")
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified "
                           "at the same time.")
    if model is None:
        def decorator(fn):
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, disable=disable)
        return decorator
    if not callable(model):
        raise RuntimeError(f"torch.compile: expected a callable (a function or an nn.Module), "
                           f"got {type(model).__name__}")
    if isinstance(model, Module) and not disable:
        return OptimizedModule(model)
    return model
