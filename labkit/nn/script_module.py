"""torch.jit.ScriptModule and torch.jit.script_method: the pre-torch.jit.script(module) way to
write a scripted module (subclass ScriptModule, decorate the methods to compile), still used by
RWKV's and older tutorials' inference code. labkit runs those methods as written, eagerly,
which is what torch itself does under PYTORCH_JIT=0: the same results, no graph. For a graph,
call labkit.jit.script(module) or labkit.jit.trace(module, example).
"""
from .module import Module


class ScriptModule(Module):
    """A Module whose @script_method methods torch would compile; labkit runs them eagerly."""


def script_method(fn):
    """Mark a ScriptModule method torch would compile; labkit keeps the Python function."""
    return fn
