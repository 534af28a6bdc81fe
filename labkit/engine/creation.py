"""Making tensors: tensor, zeros, ones, arange, randn ... and the seeded random stream."""
import itertools

import numpy as np

from . import dtype as _dt
from .defaults import defaults
from .formats import memory_order, preserve_format
from .device import Device, cpu, meta_array, to_device_array
from .hooks import current_tracer
from .memory import names_the_size
from .promotion import PROMOTE, fill_value, python_number
from .tensor import Tensor



from .generator import (Generator, default_generator, get_rng_state,  # noqa: F401
                        initial_seed, manual_seed, seed, set_rng_state)
from . import distributions as _dist


def _size_arg(name, shape, size):
    """The shape given as varargs (zeros(2, 3), zeros((2, 3))) or as size= (zeros(size=(2, 3)))."""
    if size is None:
        return shape
    if shape:
        raise TypeError(f"{name}(): the shape was given twice, as arguments {shape} and as "
                        f"size={size!r}; give one.")
    return (size,)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)) or s < 0:
            return _size_of_tensors(size)
    return tuple(int(s) for s in size)


def _size_of_tensors(size):
    """A one-element integer tensor counts as an int in a size, as in torch (num_idx =
    max(idx) + 1 is a 0-d tensor, then nn.Embedding(num_idx, 5))."""
    out = []
    for s in size:
        if isinstance(s, Tensor) and s.numel() == 1 and s._data.dtype.kind in "iu":
            s = int(s.item())
        if not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"size must be non-negative integers, got {tuple(size)}.")
        out.append(int(s))
    return tuple(out)


def _finish(arr, dtype, device, requires_grad):
    """Cast to dtype, move to device, wrap; the one exit of every creation function."""
    dev = Device(device) if device is not None else (defaults.device or cpu)
    np_dtype = _dt.to_np(dtype)
    if np_dtype is None:
        _dt.from_np(arr.dtype)   # a dtype labkit lacks (complex, uint32, ...) stops here
    elif arr.dtype != np_dtype:
        arr = arr.astype(np_dtype)
    if dev is not cpu:
        arr = to_device_array(arr, dev)
    t = Tensor._make(arr, dev)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _on_meta(device):
    """True when the tensor is made on 'meta': then nothing is filled or drawn (no memory, and
    the random generators do not advance, as in torch)."""
    dev = Device(device) if device is not None else defaults.device
    return dev is not None and dev.type == "meta"


def _default_complex():
    return _dt.from_np(defaults.float).to_complex().np   # complex64 (complex128 for float64)


def _infer(arr):
    """torch's defaults: Python floats become float32; complex complex64; ints int64; bools
    bool."""
    if arr.dtype.kind == "f" and arr.dtype != np.float16:
        return arr.astype(defaults.float) if arr.dtype != defaults.float else arr
    if arr.dtype.kind == "c":
        return arr.astype(_default_complex(), copy=False)
    if arr.dtype.kind in "iu" and arr.dtype != np.uint8:
        return arr.astype(np.int64) if arr.dtype != np.int64 else arr
    return arr


_PYTHON = {float: None, int: np.dtype("int64"), bool: np.dtype(bool)}   # None: the default
_INTS = {np.dtype("int64"), np.dtype(bool)}


def _element_dtypes(data, found):
    """Add to `found` the dtype of each element of nested lists: a numpy scalar's, array's or
    tensor's own, a Python number's default. True if some element had a dtype of its own.
    Walked one nesting level at a time, so that a list of rows costs C loops, not calls."""
    typed = False
    while data:
        kinds = set(map(type, data))
        rows = []
        for kind in kinds:
            if kind is list or kind is tuple:
                rows.append(data if len(kinds) == 1 else [d for d in data if type(d) is kind])
            elif kind in _PYTHON:
                found.add(_PYTHON[kind] or defaults.float)
            elif kind is complex:
                found.add(_default_complex())
            elif issubclass(kind, (np.generic, np.ndarray, Tensor)):
                typed = True
                for d in data:
                    if type(d) is kind:
                        found.add(_own_dtype(d))
        data = list(itertools.chain.from_iterable(itertools.chain.from_iterable(rows)))
    return typed


def _scalars(data):
    """A tensor anywhere in the lists stands for its one value, as in torch: tensor([t]) with a
    one-element t of any shape is 1-D (a training loop's torch.tensor([x]) keeps its shape)."""
    return [d.item() if isinstance(d, Tensor) else
            _scalars(d) if isinstance(d, (list, tuple)) else d for d in data]


def _own_dtype(d):
    if isinstance(d, Tensor):
        if d._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars: "
                             f"tensor() got a list holding a tensor of shape {tuple(d.shape)}. "
                             "Use labkit.stack(tensors) to join tensors.")
        return d._data.dtype
    return d.dtype


def _from_data(data, dtype=None):
    if isinstance(data, Tensor):
        return data._host(), True
    if isinstance(data, (np.ndarray, np.generic)):  # numpy data keeps its dtype (float64 too)
        return np.asarray(data), True
    if type(data) is complex:
        return np.asarray(data, _default_complex()), True
    if hasattr(data, "__cuda_array_interface__") and hasattr(data, "get"):
        return data.get(), True
    typed = None     # as torch: numpy scalars, arrays and tensors in a list keep their dtypes
    found = {_PYTHON[int]} if type(data) is int else set()
    if isinstance(data, (list, tuple)):
        if _element_dtypes(data, found):
            dtypes = iter(found)
            typed = next(dtypes)
            for d in dtypes:
                typed = PROMOTE[typed, d]
            data = _scalars(data)
    try:
        arr = np.array(data)
    except ValueError as e:
        raise ValueError(f"tensor(): the data is ragged (rows of different lengths) or not "
                         f"numeric: {e}. Every row must have the same length.") from None
    if found and found <= _INTS and arr.dtype.kind in "ufO" and not (   # numpy's way out
            dtype is not None and _dt.to_np(dtype).kind == "f"):          # of int64
        raise ValueError("Overflow when unpacking long long: tensor() got a Python int outside "
                         "int64's range (-2**63 to 2**63 - 1), the widest integer a tensor "
                         "holds. Use a float (float(n)) if an approximate value will do.")
    if arr.dtype == object or arr.dtype.kind in "USM":
        raise TypeError(f"tensor(): could not make a numeric tensor from {type(data).__name__} "
                        f"data (numpy saw dtype {arr.dtype}). Use numbers, bools, or nested "
                        "lists of them with equal lengths.")
    if typed is not None:
        return arr.astype(typed, copy=False), True
    return arr, False


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of data (numbers, nested lists, numpy arrays, tensors)."""
    arr, typed = _from_data(data, dtype)
    if not typed and dtype is None:     # with a dtype, Python floats go there directly
        arr = _infer(arr)
    return _finish(np.array(arr, copy=True), dtype, device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like tensor(), but shares memory with a numpy array when dtype and device allow."""
    if isinstance(data, Tensor):
        return data.to(device or data.device, dtype) if (dtype or device) else data
    arr, typed = _from_data(data, dtype)
    if not typed and dtype is None:
        arr = _infer(arr)
    return _finish(arr, dtype, device, False)


def from_numpy(array):
    """A tensor sharing memory with a numpy array (changes show in both)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, got {type(array).__name__}.")
    _dt.from_np(array.dtype)
    return Tensor._make(array, cpu)


def _filled(fill, size, dtype, device, requires_grad, default=None):
    np_dtype = _dt.to_np(dtype) or default or defaults.float
    if isinstance(fill, complex) and np_dtype.kind != "c" or \
            not isinstance(fill, (bool, np.bool_)) and np_dtype.kind in "iu":
        try:            # as torch: -1 wraps into uint8, 300 or nan in int8 raise, and so
            fill = fill_value(np_dtype, fill)   # does 1j in a float (numpy: garbage or a cast)
        except RuntimeError as e:
            raise RuntimeError(f"full: {e}") from None
    if _on_meta(device):
        return _finish(meta_array(_size(size), np_dtype), None, device, requires_grad)
    return _finish(np.full(_size(size), fill, dtype=np_dtype), None, device, requires_grad)


@names_the_size
def zeros(*shape, size=None, dtype=None, device=None, requires_grad=False):
    size = _size_arg("zeros", shape, size)
    return _filled(0, size, dtype, device, requires_grad)


@names_the_size
def ones(*shape, size=None, dtype=None, device=None, requires_grad=False):
    size = _size_arg("ones", shape, size)
    return _filled(1, size, dtype, device, requires_grad)


@names_the_size
def empty(*shape, size=None, dtype=None, device=None, requires_grad=False):
    size = _size_arg("empty", shape, size)
    np_dtype = _dt.to_np(dtype) or defaults.float
    if _on_meta(device):
        return _finish(meta_array(_size(size), np_dtype), None, device, requires_grad)
    return _finish(np.empty(_size(size), np_dtype), None, device, requires_grad)


@names_the_size
def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    fill_value = python_number(fill_value)
    if isinstance(fill_value, (list, tuple)) or isinstance(fill_value, Tensor) and \
            fill_value.ndim:
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not "
                        f"{type(fill_value).__name__} (a 0-d tensor works too).")
    default = np.bool_ if isinstance(fill_value, bool) else \
        np.int64 if isinstance(fill_value, int) else \
        _default_complex() if isinstance(fill_value, complex) else defaults.float
    return _filled(fill_value, (size,) if isinstance(size, int) else size, dtype, device,
                   requires_grad, np.dtype(default))


def _like(input, dtype, device):
    return dtype or input.dtype, device or input.device


def _in_format(t, memory_format, op):
    """The *_like result in memory_format: channels_last (or contiguous_format) reorders the
    memory as torch does; preserve_format (the default) keeps labkit's row-major layout."""
    if memory_format is None or memory_format is preserve_format:
        return t
    memory_order(memory_format, t.shape, op)        # torch's error for a wrong rank or value
    return t.contiguous(memory_format=memory_format)


def zeros_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _in_format(zeros(input.shape, dtype=_like(input, dtype, device)[0],
                            device=_like(input, dtype, device)[1], requires_grad=requires_grad),
                      memory_format, "zeros_like")


def ones_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _in_format(ones(input.shape, dtype=_like(input, dtype, device)[0],
                           device=_like(input, dtype, device)[1], requires_grad=requires_grad),
                      memory_format, "ones_like")


def empty_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _in_format(empty(input.shape, dtype=_like(input, dtype, device)[0],
                            device=_like(input, dtype, device)[1], requires_grad=requires_grad),
                      memory_format, "empty_like")


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False,
              memory_format=None):
    return _in_format(full(input.shape, fill_value, dtype=_like(input, dtype, device)[0],
                           device=_like(input, dtype, device)[1], requires_grad=requires_grad),
                      memory_format, "full_like")


@names_the_size
def arange(start=None, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """start, start+step, ... below end; int64 if all arguments are ints, else float32."""
    start, end, step = (v.item() if isinstance(v, Tensor) and v.ndim == 0 else v
                        for v in (start, end, step))     # torch reads a 0-d tensor as its number
    if end is None:
        start, end = 0, start
    elif start is None:        # arange(end=5), as torch
        start = 0
    if step == 0:
        raise RuntimeError("arange: step must be nonzero.")
    if dtype is not None and _dt.to_np(dtype).kind == "c":
        raise NotImplementedError(f'"arange_cpu" not implemented for '
                                  f"'{_dt.scalar_type_name(_dt.to_np(dtype))}' (as torch). "
                                  "Make a real range and convert: labkit.arange(n).to(dtype).")
    ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
    arr = np.arange(start, end, step, dtype=np.int64 if ints else np.float64)
    if not ints and dtype is None:
        arr = arr.astype(defaults.float)
    return _finish(arr, dtype, device, requires_grad)


@names_the_size
def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    cplx = isinstance(start, complex) or isinstance(end, complex)
    np_dtype = np.dtype(_dt.to_np(dtype) or (_default_complex() if cplx else defaults.float))
    if np_dtype.kind == "c":      # torch's kernel on each part: the step is (end - start) / n
        part = _dt.from_np(np_dtype).to_real().np
        start, end = complex(start), complex(end)
        arr = np.empty(max(steps, 0), np_dtype)
        arr.real = _linspace(start.real, end.real, steps, part)
        arr.imag = _linspace(start.imag, end.imag, steps, part)
        return _finish(arr, None, device, requires_grad)
    return _finish(_linspace(start, end, steps, np_dtype), None, device, requires_grad)


def _linspace(start, end, steps, np_dtype):
    """torch's kernel, not numpy's: the step in the result's float type, the first half counted
    up from start and the second half down from end, each value one fused multiply-add
    (emulated in long double), so linspace(-10, 10, 101)[50] is -1.49e-07 as in torch, not 0
    (bit for bit in float32/float64; integer dtypes truncate start and end first and step in
    float64, as torch; float16/bfloat16 round every operation to their type, as torch's Half)."""
    if steps < 0:
        raise RuntimeError(f"linspace: number of steps must be non-negative, got {steps}.")
    if steps <= 1:
        return np.full(steps, start).astype(np_dtype)
    idx = np.arange(steps)
    if np_dtype.kind in "iub":
        f, wide, lo, hi = np.float64, np.float64, float(int(start)), float(int(end))
    elif np_dtype.itemsize >= 4:
        f, wide = np_dtype.type, np.longdouble
        lo, hi = f(float(start)), f(float(end))
    else:                    # float16/bfloat16: c10::Half arithmetic, each op rounded to the
        f = wide = np_dtype.type   # type, as numpy's float16 (and ml_dtypes') arithmetic is
        lo, hi = f(float(start)), f(float(end))
    step = (f(hi) - f(lo)) / f(steps - 1)
    up = wide(lo) + wide(step) * idx.astype(wide)
    down = wide(hi) - wide(step) * (steps - 1 - idx).astype(wide)
    return np.where(idx < steps // 2, up, down).astype(f).astype(np_dtype)


@names_the_size
def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    np_dtype = _dt.to_np(dtype) or defaults.float
    return _finish(np.eye(n, m, dtype=np_dtype), None, device, requires_grad)


def _gen(generator):
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"generator must be a labkit.Generator, got {type(generator).__name__}.")
    return generator or default_generator


_SCALAR_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                 "uint8": "Byte", "bool": "Bool"}     # torch's names in kernel errors


def _random_dtype(name, dtype):
    np_dtype = _dt.to_np(dtype) or defaults.float
    if np_dtype.kind == "c" and name in ("rand", "randn"):
        return np_dtype
    if not _dt.is_float(np.dtype(np_dtype)):   # float16/32/64 and bfloat16; torch's kernel
        kernel = {"rand": "check_uniform_bounds", "randn": "normal_kernel_cpu"}.get(name, name)
        raise NotImplementedError(f'"{kernel}" not implemented for '      # has no integer one
                                  f"'{_SCALAR_NAMES.get(np.dtype(np_dtype).name, np_dtype)}': "
                                  f"{name} draws "
                                  f"floating-point numbers, got dtype {dtype}; use randint for "
                                  "integers.")
    return np_dtype


@names_the_size
def rand(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform numbers in [0, 1) (torch's numbers after the same seed)."""
    size = _size_arg("rand", shape, size)
    np_dtype = _random_dtype("rand", dtype)
    if current_tracer() is not None:  # labkit.jit is tracing: draw through an op it records
        return _traced("uniform", _size(size), np_dtype, generator, device, requires_grad)
    if np_dtype.kind == "c":       # as torch: each part uniform in [0, 1)
        return _complex_draw(_dist.uniform, generator, size, np_dtype, 1.0, device,
                             requires_grad)
    if _on_meta(device):
        return _finish(meta_array(_size(size), np_dtype), None, device, requires_grad)
    arr = _dist.uniform(_gen(generator), _size(size), np_dtype)
    return _finish(arr, None, device, requires_grad)


@names_the_size
def randn(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal numbers (mean 0, variance 1; torch's numbers after the same seed)."""
    size = _size_arg("randn", shape, size)
    np_dtype = _random_dtype("randn", dtype)
    if current_tracer() is not None:  # labkit.jit is tracing: draw through an op it records
        return _traced("normal", _size(size), np_dtype, generator, device, requires_grad)
    if np_dtype.kind == "c":       # as torch: variance 1 split over the parts
        return _complex_draw(_dist.normal, generator, size, np_dtype, np.sqrt(0.5), device,
                             requires_grad)
    if _on_meta(device):
        return _finish(meta_array(_size(size), np_dtype), None, device, requires_grad)
    arr = _dist.normal(_gen(generator), _size(size), np_dtype)
    return _finish(arr, None, device, requires_grad)


def _complex_draw(draw, generator, size, np_dtype, scale, device, requires_grad):
    """Complex random numbers as torch draws them: real draws of shape (*size, 2), pairs
    read as (real, imag), times scale (torch's std for randn)."""
    real = np.dtype(np_dtype.char.lower())                 # F -> f, D -> d
    parts = draw(_gen(generator), _size(size) + (2,), real)
    if scale != 1.0:
        parts = parts * real.type(scale)
    arr = np.ascontiguousarray(parts).view(np_dtype)[..., 0]
    return _finish(arr, None, device, requires_grad)


def bernoulli_mask(shape, p, dtype, device, generator=None):
    """empty(shape, dtype).bernoulli_(p) as one draw that labkit.jit records (dropout's
    mask is drawn afresh on every compiled call)."""
    np_dtype = _dt.to_np(dtype)
    if current_tracer() is not None:
        return _traced("bernoulli", _size(shape), np_dtype, generator, device, False, p)
    arr = _dist.bernoulli_scalar(_gen(generator), _size(shape), p).astype(np_dtype)
    return _finish(arr, None, device, False)


def _traced(kind, shape, np_dtype, generator, device, requires_grad, p=None):
    draw = getattr(current_tracer(), "random_draw", None)    # vmap's randomness= decides
    if draw is not None:
        t = draw(kind, shape, np_dtype, _gen(generator), requires_grad, p)
        if t is not None:
            return t
    from .ops.random import Random
    if device is not None and Device(device) is not cpu:
        raise RuntimeError("labkit.jit: random numbers drawn on a GPU inside a traced or "
                           "compiled function are not supported yet; draw them on the CPU "
                           "and move them, or outside the function.")
    t = Random.apply(kind, shape, np_dtype, _gen(generator), p)
    if requires_grad:
        t.requires_grad_(True)
    return t


def randint(low, high=None, size=None, generator=None, dtype=None, device=None,
            requires_grad=False):
    """Integers in [low, high); randint(high, size) starts at 0."""
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint: pass size, e.g. labkit.randint(0, 10, (3,)).")
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    if _on_meta(device):
        shape = _size((size,) if isinstance(size, int) else size)
        return _finish(meta_array(shape, np.int64), dtype, device, requires_grad)
    arr = _dist.randint(_gen(generator), _size((size,) if isinstance(size, int) else size),
                        low, high)
    return _finish(arr, dtype, device, requires_grad)


def randperm(n, generator=None, dtype=None, device=None, requires_grad=False):
    """A random ordering of 0..n-1 (torch's order after the same seed)."""
    if n < 0:
        raise RuntimeError(f"randperm: n must be non-negative, got {n}.")
    return _finish(_dist.randperm(_gen(generator), n), dtype, device, requires_grad)


def rand_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _in_format(rand(input.shape, dtype=dtype or input.dtype,
                           device=device or input.device, requires_grad=requires_grad),
                      memory_format, "rand_like")


def randn_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _in_format(randn(input.shape, dtype=dtype or input.dtype,
                            device=device or input.device, requires_grad=requires_grad),
                      memory_format, "randn_like")
