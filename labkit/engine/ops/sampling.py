"""Sampling: torch.normal, bernoulli, multinomial, and the in-place fills normal_, uniform_,
bernoulli_, exponential_, random_ (what nn.init and hand-written initialisation use).

Numbers are drawn on the host from a labkit.Generator (the default one unless generator= is
given) with torch's CPU algorithms (engine/distributions.py), then moved to the tensor's
device: after labkit.manual_seed(s) they are torch's numbers after torch.manual_seed(s).
A fill goes through `inplace`, so it bumps the version counter and refuses a leaf that
requires grad outside no_grad, like any in-place op; its gradient is zero (the new values do
not depend on the old ones), as torch's.
"""
import numpy as np

from .. import distributions as _dist
from .. import dtype as _dt
from ..creation import _finish, _gen, _size
from ..defaults import defaults
from ..device import to_device_array
from ..function import Function
from ..hooks import current_tracer
from ..creation import zeros_like
from ..tensor import Tensor, tensor_method
from .inplace import _Copy, inplace


def _host(x):
    return x._host() if isinstance(x, Tensor) else x


def _float_dtype(*xs):
    for x in xs:
        if isinstance(x, Tensor):
            if x._data.dtype.kind != "f":
                raise RuntimeError(f"normal: expected a floating-point mean/std, got {x.dtype}.")
            return x._data.dtype
    return defaults.float


class Normal(Function):
    """Samples with tensor mean and/or std: their gradient is zero, as in torch."""
    node_name = "NormalBackward3"
    random = True   # labkit.jit: a fresh draw on every call, never merged or computed ahead

    @staticmethod
    def forward(ctx, mean, std, generator):
        m, s = _host(mean), _host(std)
        if bool(np.any(np.asarray(s) < 0)):
            raise RuntimeError("normal: std must be >= 0, got a negative value.")
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
        dt = _float_dtype(mean, std)
        if isinstance(std, Tensor):      # torch: normal_(0, 1), then mul_(std), add_(mean)
            arr = _dist.normal(_gen(generator), shape, dt) * np.asarray(s, dtype=dt)
        else:                            # torch: normal_(0, std), then add_(mean)
            arr = _dist.normal(_gen(generator), shape, dt, 0.0, s)
        arr = arr + np.asarray(m, dtype=dt)
        dev = (mean if isinstance(mean, Tensor) else std).device
        return to_device_array(arr, dev)

    @staticmethod
    def backward(ctx, grad):
        need = ctx.needs_input_grad
        zero = zeros_like(grad)
        return (zero if need[0] else None), (zero if need[1] else None), None


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    """Normal samples: elementwise from tensor mean/std (broadcast), or `size` of them for
    numbers mean and std."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if size is not None:
            raise RuntimeError("normal: give size only when mean and std are numbers; with "
                               "tensors the shape comes from them.")
        return Normal.apply(mean, std, generator)
    if size is None:
        raise TypeError("normal: with numbers for mean and std, pass size, e.g. "
                        "labkit.normal(0.0, 1.0, size=(3,)).")
    if std < 0:
        raise RuntimeError(f"normal: std must be >= 0, got {std}.")
    _not_traced("normal with number mean and std")
    shape = _size((size,) if isinstance(size, int) else tuple(size))
    arr = _dist.normal(_gen(generator), shape, _dt_np(dtype), mean, std)
    return _finish(arr, None, device, requires_grad)


def _dt_np(dtype):
    return _dt.to_np(dtype) or defaults.float


class Bernoulli(Function):
    node_name = "BernoulliBackward0"
    random = True

    @staticmethod
    def forward(ctx, p, generator):
        probs = _host(p)
        if probs.size and (probs.min() < 0 or probs.max() > 1):
            raise RuntimeError("bernoulli: all probabilities must be in [0, 1].")
        arr = _dist.bernoulli_tensor(_gen(generator), probs).astype(probs.dtype)
        return to_device_array(arr, p.device)

    @staticmethod
    def backward(ctx, grad):
        return zeros_like(grad), None


@tensor_method("bernoulli")
def bernoulli(input, p=None, *, generator=None):
    """0/1 samples, 1 with probability input (elementwise), or with probability p."""
    from .complex_guard import refuse_complex
    refuse_complex("bernoulli", input)
    if p is not None:       # torch: empty_like(input).bernoulli_(p)
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli: p must be in [0, 1], got {p}.")
        _not_traced("bernoulli with a number p")
        arr = _dist.bernoulli_scalar(_gen(generator), input._data.shape, p)
        return Tensor._make(to_device_array(arr.astype(input._data.dtype), input.device),
                            input.device)
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"bernoulli: expected a floating-point tensor of probabilities, got "
                           f"{input.dtype}.")
    return Bernoulli.apply(input, generator)


def _not_traced(name):
    """A draw that is not an op would be frozen into a traced graph as a constant: refuse."""
    if current_tracer() is not None:
        raise RuntimeError(f"labkit.jit: {name} inside a traced or compiled function would "
                           "replay the same numbers on every call. Draw them outside the "
                           "function and pass them in, or use labkit.rand / labkit.randn, "
                           "which are traced as fresh draws.")


def _fill(x, name, draw):
    """Overwrite x with host-drawn values `draw(shape, contiguous)`, through the in-place
    machinery. A non-contiguous x is filled in the order its elements lie in memory, as
    torch's kernels walk it."""
    _not_traced(name)
    if not _dt.is_float(x._data.dtype) and name not in ("bernoulli_", "random_", "geometric_"):
        raise RuntimeError(f"{name}: expected a floating-point tensor, got {x.dtype}.")
    arr = x._data
    if arr.flags.c_contiguous:
        values = draw(arr.shape, True)
    else:
        axes = _dist.memory_order(arr)
        values = np.asarray(draw(tuple(arr.shape[a] for a in axes), False))
        values = values.transpose(np.argsort(axes))
    src = Tensor._make(to_device_array(np.asarray(values).astype(x._data.dtype), x.device),
                       x.device)
    return inplace(x, name, lambda d: d.__setitem__(Ellipsis, src._data), _Copy, src)


@tensor_method("normal_")
def normal_(x, mean=0.0, std=1.0, *, generator=None):
    """Fill x in place with samples from N(mean, std**2)."""
    if std < 0:
        raise RuntimeError(f"normal_: std must be >= 0, got {std}.")
    if x._data.dtype.kind == "c":     # as torch: the real view, each part variance std^2 / 2
        from .complex import view_as_real
        normal_(view_as_real(x), mean, std / 2 ** 0.5, generator=generator)
        return x
    gen = _gen(generator)
    return _fill(x, "normal_", lambda s, c: _dist.normal(gen, s, x._data.dtype, mean, std, c))


@tensor_method("uniform_")
def uniform_(x, a=0.0, b=1.0, *, generator=None):
    """Fill x in place with samples from U[a, b)."""
    if a > b:
        raise RuntimeError(f"uniform_: expects a <= b, but got a={a} and b={b}.")
    if x._data.dtype.kind == "c":     # as torch: real and imaginary parts each U[a, b)
        from .complex import view_as_real
        uniform_(view_as_real(x), a, b, generator=generator)
        return x
    gen = _gen(generator)
    return _fill(x, "uniform_", lambda s, c: _dist.uniform(gen, s, x._data.dtype, a, b))


@tensor_method("bernoulli_")
def bernoulli_(x, p=0.5, *, generator=None):
    """Fill x in place with 1 (probability p) or 0; p a number or a tensor of probabilities."""
    probs = _host(p)
    if np.any(np.asarray(probs) < 0) or np.any(np.asarray(probs) > 1):
        raise RuntimeError("bernoulli_: p must be in [0, 1].")
    gen = _gen(generator)
    if isinstance(p, Tensor):
        if probs.dtype.kind != "f":
            raise RuntimeError(f"bernoulli_: expected a floating-point tensor p, got {p.dtype}.")
        return _fill(x, "bernoulli_", lambda s, c: _dist.bernoulli_tensor(
            gen, np.broadcast_to(probs, x._data.shape).transpose(_order(x, s))))
    return _fill(x, "bernoulli_", lambda s, c: _dist.bernoulli_scalar(gen, s, p))


def _order(x, shape):
    """The axes permutation _fill drew `shape` in (identity when x is contiguous)."""
    arr = x._data
    return list(range(arr.ndim)) if tuple(shape) == arr.shape and arr.flags.c_contiguous \
        else _dist.memory_order(arr)


@tensor_method("exponential_")
def exponential_(x, lambd=1.0, *, generator=None):
    """Fill x in place with samples from the exponential distribution of rate lambd."""
    if lambd <= 0:
        raise RuntimeError(f"exponential_: expects lambd > 0, got {lambd}.")
    gen = _gen(generator)
    return _fill(x, "exponential_",
                 lambda s, c: _dist.exponential(gen, s, x._data.dtype, lambd))


@tensor_method("multinomial")
def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices drawn with probability proportional to the (non-negative) weights in each row."""
    _not_traced("multinomial")
    w = _host(input)
    if w.ndim not in (1, 2):
        raise RuntimeError(f"multinomial: prob_dist must be 1 or 2 dim, got {tuple(input.shape)}.")
    if not _dt.is_float(w.dtype):
        raise RuntimeError(f"multinomial: expected a floating-point tensor of weights, got "
                           f"{input.dtype}.")
    rows = w.reshape(-1, w.shape[-1])
    rows = rows if rows.dtype in (np.float32, np.float64) else rows.astype(np.float32)
    if num_samples <= 0:
        raise RuntimeError(f"multinomial: cannot sample num_samples={num_samples} <= 0 samples.")
    if not np.isfinite(rows).all() or (rows < 0).any():
        raise RuntimeError("multinomial: probability tensor contains either inf, nan or "
                           "element < 0.")
    if (rows.sum(axis=1) <= 0).any():
        raise RuntimeError("multinomial: invalid distribution: the weights of a row sum to 0.")
    n = rows.shape[1]
    if not replacement:
        if num_samples > n:
            raise RuntimeError(f"multinomial: cannot sample n_sample={num_samples} > "
                               f"prob_dist.size(-1)={n} samples without replacement.")
    out = _dist.multinomial(_gen(generator), rows, num_samples, replacement)
    out = out.astype(np.int64)
    out = out.reshape(w.shape[:-1] + (num_samples,))
    return Tensor._make(to_device_array(out, input.device), input.device)




def _whole_range(x):
    """The end of x.random_()'s [0, end): every integer a float holds exactly (2**mantissa
    bits, inclusive), or 0..max of an integer dtype (bool: 0..1), as torch."""
    d = x._data.dtype
    if d.kind == "b":
        return 2
    if d.kind in "iu":
        end = int(np.iinfo(d).max) + 1
        return min(end, 2 ** 63 - 1)      # int64: its max itself left out (numpy's end)
    bits = 8 if d.name == "bfloat16" else {2: 11, 4: 24, 8: 53}[d.itemsize]
    return 2 ** bits + 1


@tensor_method("random_")
def random_(x, from_=0, to=None, *, generator=None):
    """Fill x in place with integers drawn uniformly from [from_, to) (x.random_(5): 0..4),
    as torch's docs do for class targets: torch.empty(3, dtype=torch.long).random_(5)."""
    if to is None:
        if from_ == 0:                    # x.random_(): torch's whole range of the dtype
            from_, to = 0, _whole_range(x)
        else:
            from_, to = 0, from_
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} "
                           f">= to={to}.")
    gen = _gen(generator)
    return _fill(x, "random_", lambda s, c: _dist.randint(gen, s, from_, to))
