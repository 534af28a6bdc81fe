"""Refuse, in one place, the ops torch has no complex kernel for (x < y, relu, max, sort,
clamp, floor ...): numpy would compute them anyway (it orders complex numbers by real part,
then imaginary part), which gives a silently wrong answer where torch raises.

An op class says it accepts complex tensors with `complex_ok = True` (on the class, inherited
by subclasses: `allow(...)` marks classes defined elsewhere). The check runs in the engine's
dispatch (`process.complex_check`, function.py's `_call`), and only after the first complex
tensor of the process exists (dtype.py switches it on): until then real ops pay nothing.
Functions written outside labkit's ops (a lecture's custom Function) are never refused.
"""
from ..dtype import scalar_type_name
from ..grad_mode import process
from ..tensor import Tensor

_VERDICT = {}   # op class -> True (it accepts complex) or False


def enable():
    """Turn the check on (once): from now on every op call is looked at."""
    if process.complex_check is None:
        process.complex_check = check
        process.hooked += 1


def allow(*classes):
    """Mark op classes as computing complex tensors correctly (values and gradients)."""
    for cls in classes:
        if getattr(cls, "complex_ok", None) is not True:   # a subclass inherits the mark
            cls.complex_ok = True
        _VERDICT.clear()


def _accepts(cls):
    ok = cls.__dict__.get("complex_ok")
    if ok is None:
        ok = getattr(cls, "complex_ok", None)
    if ok is None:     # not marked: labkit's own ops are refused, other Functions run
        ok = not cls.__module__.startswith("labkit.engine.ops")
    _VERDICT[cls] = ok
    return ok


def check(cls, args):
    """Raise torch's NotImplementedError when a complex tensor reaches an op that refuses it."""
    ok = _VERDICT.get(cls)
    if ok is None:
        ok = _accepts(cls)
    if ok:
        return
    for a in args:
        if isinstance(a, Tensor):
            if a._data.dtype.kind == "c":
                raise refusal(cls, a)
        elif isinstance(a, (list, tuple)):
            for t in a:
                if isinstance(t, Tensor) and t._data.dtype.kind == "c":
                    raise refusal(cls, t)


def refuse_complex(name, x, exc=NotImplementedError, torch_has=False):
    """For the ops that are not one Function (composites): torch's refusal of complex x
    (torch_has: torch computes it, labkit does not yet; say so rather than compute wrong)."""
    if isinstance(x, Tensor) and x._data.dtype.kind == "c":
        if torch_has:
            raise NotImplementedError(
                f"{name}: labkit has no complex version yet (torch has); got a {x.dtype} "
                f"tensor of shape {tuple(x.shape)}. Compute it from z.real and z.imag.")
        raise refusal(type(name, (), {"op_name": name, "complex_error": exc}), x)


# torch's exception type where it is not NotImplementedError (argmax(): "does not support
# complex input", Sort/topk "do not support complex dtypes", maximum "not implemented for
# complex tensors" ...)
_TORCH_RUNTIME_ERROR = {"argmax", "argmin", "sort", "topk", "maximum", "minimum", "fmax", "fmin",
                        "heaviside", "isposinf", "isneginf", "maxdim", "mindim"}
# ops torch computes for complex tensors that labkit has not verified yet: refused all the same
# (numpy would compute some, with the wrong gradient), but without blaming torch
_TORCH_HAS = {"prodall", "prod", "cumprod", "silu", "exp2", "lerp", "unfold",
              "logcumsumexp", "logaddexp"}


def refusal(cls, x):
    """torch's words ('"lt_cpu" not implemented for 'ComplexFloat''), with what to do."""
    name = getattr(cls, "op_name", None) or cls.__name__.lower()
    if name in _TORCH_HAS:
        return NotImplementedError(
            f"{name}: labkit has no complex version yet (torch has); got a {x.dtype} tensor "
            f"of shape {tuple(x.shape)}. Compute it from z.real and z.imag, or z.abs() and "
            "z.angle(), with the ops labkit has for complex tensors.")
    exc = getattr(cls, "complex_error", None) or (
        RuntimeError if name in _TORCH_RUNTIME_ERROR else NotImplementedError)
    return exc(f"{name}: not implemented for '{scalar_type_name(x)}' ({x.dtype} tensor of "
               f"shape {tuple(x.shape)}), as in torch, which has no complex kernel for it "
               "(complex numbers have no order: no max, sort, <, clamp or relu). Work on real "
               "tensors: z.abs() (magnitudes), z.real and z.imag, or z.angle().")
