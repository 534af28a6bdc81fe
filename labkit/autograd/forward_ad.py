"""Forward-mode AD with dual tensors (torch.autograd.forward_ad), as in the forward-mode tutorial:

    with fwAD.dual_level():
        x = fwAD.make_dual(primal, tangent)     # x carries the tangent alongside its value
        y = f(x)                                # every op also pushes the tangent forward
        jvp = fwAD.unpack_dual(y).tangent       # J_f(primal) @ tangent, in one pass

A dual level is labkit.func's ForwardLevel (the one jvp uses): it holds each tensor's tangent in
a table and computes every op's output tangent from the op's tangent rule right after the op.
Leaving the level forgets all tangents.
"""
from collections import namedtuple

from ..engine.tensor import Tensor
from ..func._alias import Alias
from ..func._level import running
from ..func.forward import ForwardLevel

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
_levels = []


def enter_dual_level():
    """Start a new level (prefer `with dual_level():`); returns its index."""
    level = ForwardLevel()
    running.__enter__()
    level.__enter__()
    _levels.append(level)
    return len(_levels) - 1


def exit_dual_level(*, level=None):
    """End the innermost level: the tangents it holds are dropped."""
    if not _levels or (level is not None and level != len(_levels) - 1):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    _levels.pop().__exit__(None, None, None)
    running.__exit__()


class dual_level:
    """Context manager: dual tensors made inside carry tangents until it exits."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def _current(level):
    if not _levels:
        return None
    return _levels[-1 if level is None else level]


def make_dual(tensor, tangent, *, level=None):
    """A tensor equal to `tensor` whose tangent (forward gradient) is `tangent`."""
    lvl = _current(level)
    if lvl is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        raise TypeError("make_dual: expected tensors for the primal and the tangent, got "
                        f"{type(tensor).__name__} and {type(tangent).__name__}.")
    if not tensor.dtype.is_floating_point:
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"torch.{tensor.dtype.name}")
    if not tangent.dtype.is_floating_point:
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"torch.{tangent.dtype.name}")
    if tuple(tensor.shape) != tuple(tangent.shape):
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than "
                           f"that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    dual = Alias.apply(tensor)
    lvl.bind(dual, tangent.to(tensor.dtype))
    return dual


def unpack_dual(tensor, *, level=None):
    """(primal, tangent): the value (a view without the tangent) and the tangent, or None
    when the tensor carries none (or outside any dual level)."""
    lvl = _current(level)
    if lvl is None or not isinstance(tensor, Tensor):
        return UnpackedDualTensor(tensor, None)
    tangent = lvl.lookup(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(lvl.outside(Alias.apply, tensor), tangent)
