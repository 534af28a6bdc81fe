"""A FAKE CuPy for the test suite: a test double backed by numpy, NOT a GPU.

With tests/fake_cupy first on sys.path (LABKIT_FAKE_CUDA=1, see tests/conftest.py) `import cupy`
finds this package, labkit sees one "GPU", and every device-parametrised test runs its cuda case
on the CPU. It checks labkit's cupy code path, not CUDA: no kernel runs, timings mean nothing.
What it enforces are CuPy's rules for host/device separation (read from CuPy's sources):

- `ndarray` wraps a numpy array; it is not an np.ndarray subclass. np.asarray(x) / np.array(x)
  raise TypeError (CuPy's message): the only ways to the host are .get() and cupy.asnumpy().
- a numpy ndarray (0-d included) in a cupy function, ufunc or operator raises TypeError
  ("Unsupported type <class 'numpy.ndarray'>"); Python and numpy scalars (np.generic) are fine.
- numpy arrays and lists as *indices* are accepted (CuPy copies them to the device).
- `a[basic index] = numpy array` raises ValueError("non-scalar numpy.ndarray cannot be used for
  fill") unless 0-d; with an advanced (array) index CuPy copies the value over, and so do we.
- reductions and scalar indexing give 0-d arrays, not numpy scalars; iterating gives 0-d arrays.
- np.<ufunc>(cupy arrays) and np.<function>(cupy arrays) dispatch here (__array_ufunc__ /
  __array_function__) and return cupy arrays, as real CuPy does.
- numpy names CuPy lacks (errstate, seterr, geterr) are missing here too.
- ElementwiseKernel / RawKernel / fuse raise NotImplementedError: nothing compiles CUDA C here.
"""
import builtins

import numpy as _np

from . import cuda  # noqa: F401
from .cuda import _track_device

# Copies across the host/device boundary, counted so tests can check that a training step on
# the GPU makes none (each one is a PCIe round trip, and a sync, on a real GPU).
transfers = {"to_device": 0, "to_host": 0}
__version__ = "0+fake"   # not a CuPy release: reports that print it show the fake

_IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. "
             "Please use `.get()` to construct a NumPy array explicitly.")
_MISSING = {"errstate", "seterr", "geterr", "seterrcall", "geterrcall", "ctypeslib", "ma",
            "memmap", "recarray", "rec", "char", "strings", "frompyfunc", "vectorize"}


def _unsupported(x):
    return TypeError(f"Unsupported type {type(x)}")


def _wrap(x, keep=None):
    """numpy results -> fake device arrays (np.generic -> 0-d), recursively in tuples/lists."""
    if isinstance(x, _np.ndarray):
        if keep is not None and id(x) in keep:
            return keep[id(x)]
        return ndarray._of(x)
    if isinstance(x, _np.generic):
        return ndarray._of(_np.asarray(x))
    if type(x) in (tuple, list):
        return type(x)(_wrap(v, keep) for v in x)
    return x


def _unwrap(x, keep):
    """fake arrays -> their numpy arrays (remembered in `keep`); numpy arrays -> TypeError."""
    if isinstance(x, ndarray):
        keep[id(x._a)] = x
        return x._a
    if isinstance(x, _np.ndarray):
        raise _unsupported(x)
    if type(x) in (tuple, list):
        return type(x)(_unwrap(v, keep) for v in x)
    if type(x) is dict:
        return {k: _unwrap(v, keep) for k, v in x.items()}
    return x


def _call(fn, args, kwargs):
    keep = {}
    return _wrap(fn(*_unwrap(args, keep), **_unwrap(kwargs, keep)), keep)


def _function(fn):
    def f(*args, **kwargs):
        return _call(fn, args, kwargs)
    f.__name__ = f.__qualname__ = getattr(fn, "__name__", "f")
    f.__doc__ = f"fake cupy: numpy.{f.__name__} on the wrapped arrays"
    return f


class ufunc:
    """A numpy ufunc behind the guard: call, at, reduce, accumulate, outer."""

    def __init__(self, u):
        self._u, self.__name__, self.nin, self.nout = u, u.__name__, u.nin, u.nout

    def __call__(self, *args, **kwargs):
        return _call(self._u, args, kwargs)

    def __getattr__(self, method):
        if method not in ("at", "reduce", "accumulate", "outer", "reduceat"):
            raise AttributeError(method)
        return _function(getattr(self._u, method))


def _index(key, shape):
    """An index for numpy: fake arrays unwrapped; numpy arrays and lists allowed (CuPy copies
    them to the device). Out-of-range integer-array indices wrap around (i % n), as in CuPy,
    where numpy would raise. Returns (key, whether it holds an advanced index)."""
    items = []
    adv = False
    for k in (key if type(key) is tuple else (key,)):
        if isinstance(k, ndarray):
            k, adv = k._a, True
        elif isinstance(k, (_np.ndarray, list)):
            transfers["to_device"] += 1     # CuPy copies a host index to the device
            k, adv = _np.asarray(k), True
        items.append(k)
    out, axis = [], 0
    for k in items:
        if k is Ellipsis:
            axis += len(shape) - builtins.sum(_axes_used(j) for j in items)
        elif isinstance(k, _np.ndarray) and k.dtype.kind in "iu" and axis < len(shape) \
                and shape[axis]:
            k = _np.mod(k, shape[axis])
        axis += _axes_used(k)
        out.append(k)
    return (tuple(out) if type(key) is tuple else out[0]), adv


def _axes_used(k):
    """How many dims of the indexed array one index item consumes."""
    if k is None or k is Ellipsis:
        return 0
    return k.ndim if isinstance(k, _np.ndarray) and k.dtype == bool else 1


def _operand(x):
    if isinstance(x, ndarray):
        return x._a
    if isinstance(x, (bool, int, float, complex, _np.generic)):
        return x
    if getattr(x, "__array_ufunc__", 0) is None or getattr(x, "__array_priority__", 0) > 100:
        return NotImplemented       # CuPy's _should_use_rop: let the other operand try
    raise _unsupported(x)


def _binary(name):
    op = getattr(_np.ndarray, name)

    def method(self, other):
        o = _operand(other)
        if o is NotImplemented:
            return o
        r = op(self._a, o)
        return self if r is self._a else _wrap(r)
    method.__name__ = name
    return method


def _unary(name):
    op = getattr(_np.ndarray, name)

    def method(self):
        return _wrap(op(self._a))
    method.__name__ = name
    return method


class Flags:
    """CuPy's flags: c_contiguous, f_contiguous, owndata (no `writeable`)."""

    def __init__(self, a):
        self.c_contiguous = bool(a.flags.c_contiguous)
        self.f_contiguous = bool(a.flags.f_contiguous)
        self.owndata = a.base is None

    def __getitem__(self, name):
        return getattr(self, {"C_CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous",
                              "OWNDATA": "owndata"}[name])


_METHODS = {"all", "any", "argmax", "argmin", "argsort", "argpartition", "astype", "choose",
            "clip", "compress", "conj", "conjugate", "copy", "cumprod", "cumsum", "diagonal",
            "dot", "flatten", "max", "mean", "min", "nonzero", "partition", "prod", "ptp", "put",
            "ravel", "repeat", "reshape", "round", "sort", "squeeze", "std", "sum", "swapaxes",
            "take", "trace", "transpose", "var", "view"}
_PROPERTIES = {"dtype", "ndim", "size", "strides", "nbytes", "itemsize", "T", "mT", "real",
               "imag", "flat"}


class ndarray:
    """A fake device array: a numpy array reachable only through CuPy's API."""
    __slots__ = ("_a", "__weakref__")
    __hash__ = None

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        self._a = _np.empty(shape, dtype, order=order)
        _track_device(self._a)

    @classmethod
    def _of(cls, a):
        self = object.__new__(cls)
        self._a = a
        root = a
        while isinstance(root.base, _np.ndarray):
            root = root.base
        _track_device(root)
        return self

    # --- the host boundary --------------------------------------------------------------
    def __array__(self, *args, **kwargs):
        raise TypeError(_IMPLICIT)

    def get(self, stream=None, order="C", out=None, blocking=True):
        transfers["to_host"] += 1
        if out is None:
            return _np.array(self._a, order=order, copy=True)
        if not isinstance(out, _np.ndarray):
            raise TypeError("Only numpy.ndarray can be obtained from cupy.ndarray")
        out[...] = self._a
        return out

    def set(self, arr, stream=None):
        if not isinstance(arr, _np.ndarray):
            raise TypeError("Only numpy.ndarray can be set to cupy.ndarray")
        if arr.dtype != self._a.dtype:
            raise TypeError(f"{arr.dtype} array cannot be set to {self._a.dtype} array")
        if arr.shape != self._a.shape:
            raise ValueError(f"Shape mismatch. Old shape: {self._a.shape}, new shape: {arr.shape}")
        transfers["to_device"] += 1
        self._a[...] = arr

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _call(getattr(ufunc, method), inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func.__name__ in _MISSING:
            return NotImplemented
        return _call(func, args, kwargs)

    # --- attributes ---------------------------------------------------------------------
    def __getattr__(self, name):
        if name in _METHODS:
            return _function(getattr(self._a, name))
        if name in _PROPERTIES:
            return _wrap(getattr(self._a, name))
        raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}' (fake cupy)")

    @property
    def shape(self):
        return self._a.shape

    @shape.setter
    def shape(self, value):
        self._a.shape = value

    @property
    def device(self):
        return cuda.Device(0)

    @property
    def data(self):
        return cuda.MemoryPointer(self._a.__array_interface__["data"][0])

    @property
    def __cuda_array_interface__(self):   # real CuPy has it; a "device" pointer, never read
        a = self._a
        return {"shape": a.shape, "typestr": a.dtype.str, "version": 3, "stream": 1,
                "data": (a.__array_interface__["data"][0], False),
                "strides": None if a.flags.c_contiguous else a.strides}

    @property
    def flags(self):
        return Flags(self._a)

    @property
    def base(self):
        b = self._a.base
        return ndarray._of(b) if isinstance(b, _np.ndarray) else None

    def fill(self, value):
        if isinstance(value, ndarray):
            value = value._a
        elif isinstance(value, _np.ndarray) and value.ndim:
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        elif not isinstance(value, (bool, int, float, complex, _np.generic, _np.ndarray)):
            raise _unsupported(value)
        self._a.fill(value)

    def item(self, *args):
        transfers["to_host"] += 1
        return self._a.item(*args)

    def tolist(self):
        transfers["to_host"] += 1
        return self._a.tolist()

    # --- indexing and protocols ---------------------------------------------------------
    def __getitem__(self, key):
        return _wrap(self._a[_index(key, self._a.shape)[0]])

    def __setitem__(self, key, value):
        key, adv = _index(key, self._a.shape)
        if isinstance(value, ndarray):
            value = value._a
        elif isinstance(value, _np.ndarray):
            if not adv and value.ndim:
                raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
            transfers["to_device"] += 1
        elif not isinstance(value, (bool, int, float, complex, _np.generic)) and not adv:
            raise _unsupported(value)
        self._a[key] = value

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self._a)))

    def __float__(self):
        transfers["to_host"] += 1
        return float(self._a)

    def __int__(self):
        transfers["to_host"] += 1
        return int(self._a)

    def __complex__(self):
        transfers["to_host"] += 1
        return complex(self._a)

    def __bool__(self):
        transfers["to_host"] += 1
        return bool(self._a)

    def __index__(self):
        transfers["to_host"] += 1
        return self._a.__index__()

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    def __format__(self, spec):
        return format(self._a, spec)

    def __copy__(self):
        return ndarray._of(self._a.copy())

    def __deepcopy__(self, memo):
        return ndarray._of(self._a.copy())

    def __reduce__(self):
        return array, (self.get(),)

    def __neg__(self):
        return _wrap(-self._a)


for _n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
           "xor", "lshift", "rshift", "divmod"):
    for _f in (f"__{_n}__", f"__r{_n}__", f"__i{_n}__"):
        if hasattr(_np.ndarray, _f):
            setattr(ndarray, _f, _binary(_f))
for _f in ("__lt__", "__le__", "__gt__", "__ge__"):
    setattr(ndarray, _f, _binary(_f))
for _f in ("__pos__", "__abs__", "__invert__"):
    setattr(ndarray, _f, _unary(_f))


def _equality(name):
    op = _binary(name)

    def method(self, other):
        if other is None or not isinstance(other, (ndarray, _np.ndarray, bool, int, float,
                                                   complex, _np.generic)):
            return NotImplemented
        return op(self, other)
    return method


ndarray.__eq__, ndarray.__ne__ = _equality("__eq__"), _equality("__ne__")


# --- module functions: the explicit transfers, then numpy's functions behind a guard ---------
def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0):
    if isinstance(obj, ndarray):
        return ndarray._of(_np.array(obj._a, dtype=dtype, copy=copy, order=order, ndmin=ndmin))
    transfers["to_device"] += 1
    return ndarray._of(_np.array(obj, dtype=dtype, copy=True, order=order, ndmin=ndmin))


def asarray(a, dtype=None, order=None):
    if isinstance(a, ndarray):
        b = _np.asarray(a._a, dtype=dtype, order=order)
        return a if b is a._a else ndarray._of(b)
    transfers["to_device"] += 1
    return ndarray._of(_np.array(a, dtype=dtype, order=order, copy=True))


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    if isinstance(a, ndarray):
        return a.get(stream=stream, order=order, out=out)
    return _np.asarray(a, order=order)


def get_array_module(*args):
    import sys
    # builtins.any: the module __getattr__ below caches numpy's names (any, sum ...) as globals
    return sys.modules[__name__] if builtins.any(isinstance(a, ndarray) for a in args) else _np


def get_default_memory_pool():
    return cuda.memory_pool


def get_default_pinned_memory_pool():
    return cuda.pinned_memory_pool


class _NoCompiler:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("fake cupy cannot compile CUDA C (it is numpy, not a GPU)")


ElementwiseKernel = ReductionKernel = RawKernel = RawModule = _NoCompiler


def fuse(*args, **kwargs):
    raise NotImplementedError("fake cupy cannot compile CUDA C (it is numpy, not a GPU)")


def diagonal(a, offset=0, axis1=0, axis2=1):
    """A writeable view, as CuPy's (numpy hands out diagonals read-only)."""
    d = _np.diagonal(_unwrap(a, {}), offset, axis1, axis2)
    d.flags.writeable = d.base.flags.writeable
    return _wrap(d)


class lib:
    """cupy.lib.stride_tricks.as_strided (a view over the same memory, as CuPy's)."""
    class stride_tricks:
        as_strided = staticmethod(_function(_np.lib.stride_tricks.as_strided))


class linalg:
    """cupy.linalg: numpy.linalg's functions on fake device arrays (results stay on device)."""
    LinAlgError = _np.linalg.LinAlgError


def _plain(fn):
    """numpy's named-tuple results (SVDResult, QRResult ...) as the plain tuples CuPy gives."""
    def f(*args, **kwargs):
        out = fn(*args, **kwargs)
        return tuple(out) if isinstance(out, tuple) else out
    return f


for _name in ("inv", "solve", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "svd", "qr",
              "norm", "matrix_rank", "pinv", "lstsq", "tensorinv", "tensorsolve", "matrix_power"):
    setattr(linalg, _name, staticmethod(_function(_plain(getattr(_np.linalg, _name)))))


class fft:
    """cupy.fft: numpy.fft's transforms on fake device arrays (labkit.fft's kernels)."""


for _name in ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn"):
    setattr(fft, _name, staticmethod(_function(getattr(_np.fft, _name))))


def __getattr__(name):
    if name.startswith("__") or name in _MISSING or not hasattr(_np, name):
        raise AttributeError(f"module 'cupy' has no attribute '{name}' (fake cupy)")
    value = getattr(_np, name)
    if isinstance(value, _np.ufunc):
        value = ufunc(value)
    elif callable(value) and not isinstance(value, type):
        value = _function(value)
    globals()[name] = value
    return value


from . import random  # noqa: E402,F401
