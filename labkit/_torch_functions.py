"""torch.X(tensor, ...) for Tensor methods torch also offers as functions (torch.multiply,
torch.take, torch.acosh, torch.exp2_ ...): each calls the method, so the two can never differ."""
from .engine.tensor import Tensor


def _function(name):
    method = getattr(Tensor, name)

    def fn(input, *args, **kwargs):
        if name in ("multiply", "subtract"):      # torch.subtract(2.5, 1), as torch.sub
            from .engine.ops.arithmetic import number_operand
            input = number_operand(input)
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return method(input, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = method.__doc__
    return fn


NAMES = (
    "absolute", "multiply", "subtract", "negative", "negative_", "positive", "greater",
    "greater_equal", "less", "less_equal", "not_equal", "fix", "fix_", "ravel", "select",
    "take", "put", "swapaxes", "detach", "asinh", "acosh", "atanh", "arcsinh",
    "arccosh", "arctanh", "asinh_", "acosh_", "atanh_", "arcsinh_", "arccosh_", "arctanh_",
    "mv", "addmv", "addmv_", "addr", "addbmm", "inner", "vdot", "ger", "matrix_power", "cross",
    "is_nonzero", "is_same_size", "is_signed", "is_conj", "is_neg", "clamp_max_", "clamp_min_",
    "clip_", "acos_", "arccos_", "asin_", "arcsin_", "atan_", "arctan_", "cosh_", "sinh_",
    "tan_", "trunc_", "log10_", "log1p_", "log2_", "expm1_", "rsqrt_", "reciprocal_", "sinc_",
    "deg2rad_", "rad2deg_", "erf_", "exp2_", "frac_", "neg_", "square_", "xlogy_", "zero_",
    "fill_", "logit_", "nan_to_num_", "index_put_", "diagflat", "cov", "corrcoef", "dist",
    "hsplit", "vsplit", "dsplit", "split_with_sizes", "unique_consecutive", "lgamma",
    "digamma", "erfc", "erfc_", "erfinv", "mvlgamma",
)
for _name in NAMES:
    if _name in Tensor.__dict__ and type(Tensor.__dict__[_name]).__name__ != "_Missing":
        globals()[_name] = _function(_name)
__all__ = [n for n in NAMES if n in globals()]


def rsub(input, other, alpha=1):
    """other - alpha * input (sub with the operands swapped; alpha also by position, as torch's
    Scalar overload)."""
    return (other - input) if alpha == 1 else other - input * alpha


def fill(input, value):
    """A copy of input with every element set to value."""
    return input.clone().fill_(value)


from .engine.ops.products_vec import chain_matmul  # noqa: E402,F401
from .engine.ops.conv import conv1d, conv2d, conv_transpose2d  # noqa: E402,F401
from .engine.ops.conv3d import conv3d  # noqa: E402,F401
from .engine.ops.conv_transpose3d import conv_transpose3d  # noqa: E402,F401
from .engine.ops.pool import max_pool1d, max_pool2d  # noqa: E402,F401
from .engine.ops.resample import adaptive_avg_pool1d, avg_pool1d  # noqa: E402,F401
from .engine.ops.gamma import polygamma  # noqa: E402,F401
__all__ += ["polygamma"]
from .engine.ops.construct import block_diag, combinations, vander  # noqa: E402,F401
from .engine.ops.integrate import cumulative_trapezoid, trapezoid, trapz  # noqa: E402,F401
__all__ += ["block_diag", "combinations", "vander", "cumulative_trapezoid", "trapezoid", "trapz"]
__all__ += ["rsub", "fill", "chain_matmul", "conv1d", "conv2d", "conv3d", "conv_transpose2d", "conv_transpose3d",
            "max_pool1d", "max_pool2d", "adaptive_avg_pool1d", "avg_pool1d"]



def _plain_pieces(input, sizes, dim):
    from .engine.ops.join import Split
    out = Split.apply(input, sizes, dim % max(input.dim(), 1))
    return out if isinstance(out, tuple) else (out,)


def unsafe_split(input, split_size, dim=0):
    """split whose pieces share input's memory but are not views to autograd (torch's
    "unsafe"): changing one in place is allowed, and input's history does not hear of it."""
    return _plain_pieces(input, [p.shape[dim] for p in input.detach().split(split_size, dim)],
                         dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return _plain_pieces(input, [p.shape[dim] for p in
                                 input.detach().split(list(split_sizes), dim)], dim)


def unsafe_chunk(input, chunks, dim=0):
    return _plain_pieces(input, [p.shape[dim] for p in input.detach().chunk(chunks, dim)], dim)


def constant_pad_nd(input, pad, value=0):
    """F.pad(input, pad, value=value) under ATen's name."""
    from .nn.functional import pad as _pad
    return _pad(input, list(pad), value=value)


for _name in ("unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk"):
    setattr(Tensor, _name, globals()[_name])
__all__ += ["unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk", "constant_pad_nd"]
for _name in ("index_copy", "index_fill", "as_strided"):
    globals()[_name] = _function(_name)
    __all__.append(_name)
