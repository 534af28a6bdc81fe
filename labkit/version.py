"""torch.version: what build this is. labkit has no CUDA or ROCm build of its own (a GPU, when
there is one, is CuPy's).

`__version__` names the torch API labkit follows (2.13.0), with labkit's own release as the
local part: programs gate features on torch.__version__ (`if torch.__version__ >= "2.0":`,
`Version(torch.__version__) < Version("1.8")`), and labkit answers for the API it implements.
Like torch's, the string compares as a version with strings, tuples and packaging Versions."""
import re

LABKIT_RELEASE = "0.1.0"


def _release(v):
    """The numeric release of a version (a string, a tuple, a packaging Version) as a tuple."""
    if isinstance(v, tuple):
        return tuple(int(p) for p in v)
    m = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(v))
    if m is None:
        raise ValueError(f"not a version: {v!r}")
    return tuple(int(p) for p in m.group(1).split("."))


def _local(v):
    text = "" if isinstance(v, tuple) else str(v)
    return (1, text.split("+", 1)[1]) if "+" in text else (0, "")


def _padded(a, b):
    n = max(len(a), len(b))
    return a + (0,) * (n - len(a)), b + (0,) * (n - len(b))


class TorchVersion(str):
    """A version string that orders by its release numbers (torch.torch_version): compared with
    a string, a tuple or a packaging Version; equal only to the same string, as torch's."""

    def _cmp(self, other):
        try:
            a, b = _padded(_release(self), _release(other))
        except ValueError:                  # not a version: plain string order, as torch
            a, b = str(self), str(other)
        else:                               # PEP 440: a local part (+labkit...) sorts after
            a, b = (a, _local(self)), (b, _local(other))    # the bare release
        return (a > b) - (a < b)

    def __lt__(self, other):
        return self._cmp(other) < 0

    def __le__(self, other):
        return self._cmp(other) <= 0

    def __gt__(self, other):
        return self._cmp(other) > 0

    def __ge__(self, other):
        return self._cmp(other) >= 0

    __eq__ = str.__eq__
    __hash__ = str.__hash__


__version__ = TorchVersion(f"2.13.0+labkit.{LABKIT_RELEASE}")
cuda = None
hip = None
debug = False
git_version = "unknown"
