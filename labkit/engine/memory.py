"""An allocation that cannot succeed says which labkit call asked for how much, and what to do
(numpy's bare MemoryError names neither the call nor a fix)."""
import functools
import math


class OutOfMemoryError(RuntimeError, MemoryError):
    """Not enough memory for a tensor. A RuntimeError, as torch raises for a failed CPU
    allocation, and a MemoryError, as Python code expects."""


def _human(n):
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.2f} {unit}"
        n /= 1024


def names_the_size(fn):
    """Decorate a function that allocates a tensor: a MemoryError becomes OutOfMemoryError
    naming the function, the shape, the dtype and the bytes."""
    @functools.wraps(fn)
    def allocating(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except MemoryError as e:
            if isinstance(e, OutOfMemoryError):
                raise
            raise OutOfMemoryError(_message(fn.__name__, e)) from None
    return allocating


def _message(name, err):
    shape, dtype = getattr(err, "shape", None), getattr(err, "dtype", None)
    if shape is not None and dtype is not None:
        nbytes = math.prod(shape) * dtype.itemsize
        what = (f"a tensor of shape {tuple(shape)} and dtype {dtype}: {_human(nbytes)} "
                f"({nbytes} bytes)")
    else:
        what = f"its tensor ({err})"
    return (f"labkit.{name}: not enough memory for {what}. Check the size you asked for (a "
            "stray power of ten, or dimensions multiplied where they should be added?); use "
            "a smaller batch, or a smaller dtype (float16 halves float32's memory).")
