"""torch's other names for ops labkit has (absolute, multiply, greater, fix, arccosh ...), and
small Tensor methods programs call that are one line over existing ops: ndimension, ravel,
select, take, put/put_, new, get_device, is_signed, is_nonzero, short/char ...

An alias is the same function object as the op it names, so x.multiply(y) and x.mul(y) can never
differ. In-place forms that have no kernel of their own (put_, clamp_min_) compute the
out-of-place result and copy_ it in, so they version-check and record like every in-place op.
"""
from ..dtype import bool_, int8, int16
from ..promotion import category
from .common import require_tensor
from ..tensor import Tensor, tensor_method

# torch name -> labkit name (a Tensor method that already exists)
ALIASES = {
    "absolute": "abs", "absolute_": "abs_", "multiply": "mul", "multiply_": "mul_",
    "subtract": "sub", "subtract_": "sub_", "negative": "neg", "negative_": "neg_",
    "true_divide": "div", "true_divide_": "div_", "greater": "gt", "greater_equal": "ge",
    "less": "lt", "less_equal": "le", "not_equal": "ne", "fix": "trunc", "fix_": "trunc_",
    "arccos_": "acos_", "arcsin_": "asin_", "arctan_": "atan_", "ndimension": "dim",
}


def _attach():
    from .keywords import install_methods
    install_methods()           # alias the keyword-aware forms (x.multiply(other=y)); idempotent
    for torch_name, ours in ALIASES.items():
        fn = Tensor.__dict__.get(ours)
        if fn is not None and type(fn).__name__ != "_Missing":
            setattr(Tensor, torch_name, fn)


_attach()


def _copy_in(x, out, name="in-place op"):
    """x.copy_(out), refusing what torch refuses: a result of another shape (broadcasting may
    not grow x) or of a dtype x cannot hold (a float into an int tensor, a bool-only op)."""
    if tuple(out.shape) != tuple(x.shape):
        raise RuntimeError(f"{name}: output with shape {list(x.shape)} doesn't match the "
                           f"broadcast shape {list(out.shape)}")
    if category(out._data.dtype) > category(x._data.dtype):     # torch's canCast
        raise RuntimeError(f"{name}: result type {_kind(out.dtype)} can't be cast to the "
                           f"desired output type {_kind(x.dtype)}")
    return x.copy_(out)


def _kind(dtype):
    return str(dtype).split(".")[-1]


def _inplace_of(name):
    """x.name_(...) = x.copy_(x.name(...)): the out-of-place op on a snapshot, copied in."""
    def op(x, *args, **kwargs):
        return _copy_in(x, getattr(Tensor, name)(x.clone(), *args, **kwargs), name + "_")
    op.__name__ = op.__qualname__ = name + "_"
    op.__doc__ = f"In-place {name}: x.{name}_(...) changes x to x.{name}(...) and returns it."
    return tensor_method(name + "_")(op)


for _name in ("addbmm", "addmm", "addmv", "addr", "atan2", "baddbmm", "copysign", "cumprod",
              "cumsum", "deg2rad", "eq", "erf", "exp2", "fmod", "frac", "ge", "gt", "heaviside",
              "hypot", "le", "log10", "logit", "lt", "ne", "rad2deg", "sgn", "sinc", "xlogy"):
    _inplace_of(_name)
for _torch, _ours in (("arctan2_", "atan2_"), ("greater_", "gt_"), ("greater_equal_", "ge_"),
                      ("less_", "lt_"), ("less_equal_", "le_"), ("not_equal_", "ne_")):
    setattr(Tensor, _torch, getattr(Tensor, _ours))


def _truth(x):
    return x if x.dtype == bool_ else x != 0


@tensor_method("logical_not_")
def logical_not_(input):
    """input = not input, stored in input's dtype (1/0 for numbers, as torch)."""
    return _copy_in(input, ~_truth(input), "logical_not_")


def _logical_inplace(name, combine):
    def op(input, other):
        require_tensor(name, other)
        return _copy_in(input, combine(_truth(input), _truth(other)), name)
    op.__name__ = op.__qualname__ = name
    return tensor_method(name)(op)


logical_and_ = _logical_inplace("logical_and_", lambda a, b: a & b)
logical_or_ = _logical_inplace("logical_or_", lambda a, b: a | b)
logical_xor_ = _logical_inplace("logical_xor_", lambda a, b: a ^ b)


@tensor_method("float_power_")
def float_power_(input, exponent):
    """float_power computes in float64, so only a float64 tensor can hold it in place."""
    if str(input.dtype) not in ("labkit.float64", "labkit.complex128"):
        raise RuntimeError(f"the base given to float_power_ has dtype {input.dtype} but the "
                           f"operation's result requires dtype float64; use "
                           f"x.double().float_power_(...) or the out-of-place float_power")
    return _copy_in(input, input.clone().float_power(exponent), "float_power_")


@tensor_method("clamp_min_")
def clamp_min_(input, min):
    return input.clamp_(min=min)


@tensor_method("clamp_max_")
def clamp_max_(input, max):
    return input.clamp_(max=max)


@tensor_method("positive")
def positive(input):
    if input.dtype == bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@tensor_method("ravel")
def ravel(input):
    """The elements in row-major order, 1-D (a view when the memory allows, like reshape)."""
    return input.reshape(-1)


def _wrap_dim(name, dim, ndim):
    lo, hi = -max(ndim, 1), max(ndim, 1) - 1
    if not lo <= dim <= hi:
        raise IndexError(f"{name}: Dimension out of range (expected to be in range of [{lo}, "
                         f"{hi}], but got {dim})")
    return dim % max(ndim, 1)


@tensor_method("select")
def select(input, dim, index):
    """input[..., index, ...] at `dim`: a view with that dimension removed."""
    if input.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim("select()", int(dim), input.dim())
    n = input.shape[dim]
    if not -n <= int(index) < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {dim}")
    return input[(slice(None),) * dim + (int(index),)]


def _flat_index(name, input, index):
    if not isinstance(index, Tensor) or index._data.dtype.name != "int64":   # (int32 too)
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got "
                           f"{getattr(index, 'dtype', type(index).__name__)}")
    n = input.numel()
    if index.numel():
        lo, hi = int(index.min()), int(index.max())
        bad = lo if lo < -n else hi if hi >= n else None
        if bad is not None:
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                             f"elements.")
    return index.long().remainder(n) if n else index.long()


@tensor_method("take")
def take(input, index):
    """input treated as 1-D, read at `index`: the result has index's shape."""
    return input.reshape(-1)[_flat_index("take", input, index)]


@tensor_method("put")
def put(input, index, source, accumulate=False):
    """A copy of input with input.flatten()[index] = source (+= when accumulate)."""
    index = _flat_index("put", input, index)
    if index.numel() != source.numel():
        raise IndexError(f"put(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {source.numel()}, "
                           f"index.numel() = {index.numel()}")
    flat = input.reshape(-1)
    out = flat.index_put((index.reshape(-1),), source.reshape(-1).to(input.dtype), accumulate)
    return out.reshape(input.shape)


@tensor_method("put_")
def put_(input, index, source, accumulate=False):
    return _copy_in(input, put(input.clone(), index, source, accumulate))


@tensor_method("new")
def new(input, *args, size=None, device=None):
    """The legacy constructor: x.new(2, 3) or x.new(torch.Size) is uninitialised memory of that
    size, x.new(data) a tensor of data, x.new() an empty tensor: x's dtype and device each time."""
    from ..creation import empty, tensor
    from .. import Size
    device = device or input.device
    if size is not None:                  # x.new(size=(3, 4)): a size, never data
        if args:
            raise TypeError("new(): give the size either by position or as size=, not both.")
        return empty(tuple(size), dtype=input.dtype, device=device)
    if len(args) == 1 and not isinstance(args[0], (int, Size)):
        data = args[0]
        if isinstance(data, Tensor):
            data = data.detach().cpu().numpy()
        return tensor(data, dtype=input.dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        raise TypeError(f"new(): argument 'size' must be a tuple of ints, got {args}")
    return empty(*args, dtype=input.dtype, device=device) if args else \
        empty(0, dtype=input.dtype, device=device)


@tensor_method("get_device")
def get_device(input):
    """-1 for a cpu tensor, else the GPU's index."""
    return -1 if input.device.type == "cpu" else (input.device.index or 0)


@tensor_method("is_signed")
def is_signed(input):
    return input.dtype.is_signed


@tensor_method("is_complex")
def is_complex(input):
    return input._data.dtype.kind == "c"


@tensor_method("is_nonzero")
def is_nonzero(input):
    n = input.numel()
    if n != 1:
        raise RuntimeError(f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'} is ambiguous")
    return bool(input.reshape(()).item())


@tensor_method("is_same_size")
def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


@tensor_method("short")
def short(input, memory_format=None):
    return input.to(int16)


@tensor_method("char")
def char(input, memory_format=None):
    return input.to(int8)


Tensor.is_cpu = property(lambda self: self.device.type == "cpu",
                         doc="True for a tensor in host memory.")
Tensor.is_meta = property(lambda self: self.device.type == "meta",
                          doc="True for a tensor on the 'meta' device (a shape, no data).")
