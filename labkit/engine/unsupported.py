"""The error for a torch API labkit lacks: it names the API, so a student whose PyTorch program
stops on labkit learns that labkit (not their code) is missing something, and where to look.

    >>> labkit.nn.functional.kl_div
    AttributeError: labkit does not implement torch.nn.functional.kl_div; see docs/compat.md

A name that torch has no more than labkit (a typo) gets Python's usual error, with its
"Did you mean" suggestion. torch_api.txt lists torch's public API; it is generated together with
docs/compat.md (python tools/compat_table.py) and changes only when the torch version does.
"""
import sys

_API = None


def _torch_api():
    """torch's public names, read once; an empty set when the list is not shipped."""
    global _API
    if _API is None:
        import pathlib
        try:
            lines = pathlib.Path(__file__).with_name("torch_api.txt").read_text().splitlines()
        except OSError:
            lines = []
        _API = frozenset(s for s in lines if s and s[0] != "#")
    return _API


def missing(torch_owner, name, obj):
    """The AttributeError for `torch_owner.name` (e.g. "torch.nn", "torch.Tensor"), which
    labkit's `obj` (a module, a tensor, an nn.Module) lacks."""
    qualname = f"{torch_owner}.{name}"
    public = not name.startswith("_")
    if public or (torch_owner == "torch.Tensor" and name[:2] == name[-2:] == "__"):  # operators
        api = _torch_api()
        if qualname in api or (public and not api):
            return AttributeError(f"labkit does not implement {qualname}; see docs/compat.md",
                                  name=name, obj=obj)
    if isinstance(obj, type(sys)):
        what = f"module {obj.__name__!r}"
    else:
        what = f"'{type(obj).__name__}' object"
    return AttributeError(f"{what} has no attribute {name!r}", name=name, obj=obj)


class _Missing:
    """A torch attribute labkit lacks, as a class attribute of the labkit class: reading it
    raises missing()'s error. Not a __getattr__ on the class: on Python 3.11 a class with one
    never gets the interpreter's fast path for any attribute read of its instances (a Tensor
    attribute read costs about 45 ns instead of 11-20, and an op reads some 30)."""
    __slots__ = ("owner", "name")

    def __init__(self, owner, name):
        self.owner, self.name = owner, name

    def __get__(self, obj, cls=None):
        raise missing(self.owner, self.name, cls if obj is None else obj)


_LACKING = {}   # class -> the torch names name_missing put on it


def name_missing(cls, torch_owner):
    """Give cls (called once all its methods are attached) a _Missing for each public name of
    torch_owner it lacks; names its instances set themselves (its annotations) are left alone."""
    api = _torch_api()
    if not api:      # the list is not shipped: every public name a miss, the slow way
        def __getattr__(self, name):
            raise missing(torch_owner, name, self)
        cls.__getattr__ = __getattr__
        return
    prefix = torch_owner + "."
    own = getattr(cls, "__annotations__", {})
    names = set()
    for qualname in api:
        name = qualname[len(prefix):]
        if qualname.startswith(prefix) and "." not in name and not name.startswith("_") \
                and name not in own and not hasattr(cls, name):
            setattr(cls, name, _Missing(torch_owner, name))
            names.add(name)
    _LACKING[cls] = frozenset(names)


def lacking(cls):
    """The names name_missing put on cls or its bases that still stand for a missing API."""
    out = set()
    for k in cls.__mro__:
        out.update(n for n in _LACKING.get(k, ()) if isinstance(k.__dict__.get(n), _Missing))
    return out


def module_getattr(module_name, torch_owner):
    """A module-level __getattr__ for the module that stands for `torch_owner`."""
    def __getattr__(name):
        raise missing(torch_owner, name, sys.modules[module_name])
    return __getattr__
