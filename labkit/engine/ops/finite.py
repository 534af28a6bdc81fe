"""Elementwise helpers around infinities: nan_to_num (replace nan/inf, torch's default: the
dtype's largest finite values) and logaddexp / logaddexp2 (log(exp(a) + exp(b)) without
overflow). Written with where/maximum/log1p, so they differentiate."""
from ..tensor import Tensor, tensor_method
from ..typeinfo import finfo


@tensor_method("nan_to_num")
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    if not input.dtype.is_floating_point:
        return input.clone()
    nan = 0.0 if nan is None else nan           # torch's None: the default
    info = finfo(input.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = input.masked_fill(input.isnan(), nan)
    out = out.masked_fill(input == float("inf"), posinf)
    return out.masked_fill(input == float("-inf"), neginf)


@tensor_method("nan_to_num_")
def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    return input.copy_(nan_to_num(input, nan, posinf, neginf))


def _logaddexp(a, b, log1p_exp):
    from .select import maximum, where
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError("logaddexp(): both arguments must be tensors")
    m = maximum(a, b)
    same_inf = (a == b) & a.isinf()
    gap = where(same_inf, 0.0, -(a - b).abs())
    return where(same_inf, a, m + log1p_exp(gap))


@tensor_method("logaddexp")
def logaddexp(input, other):
    return _logaddexp(input, other, lambda g: g.exp().log1p())


@tensor_method("logaddexp2")
def logaddexp2(input, other):
    import math
    return _logaddexp(input, other, lambda g: (g * math.log(2)).exp().log1p() / math.log(2))


@tensor_method("diff")
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """input[1:] - input[:-1] along dim, n times (!= for bool tensors), after joining prepend
    and append."""
    from .join import cat
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if n == 0:                                # torch ignores prepend/append then
        return input
    parts = [p for p in (prepend, input, append) if p is not None]
    x = cat(parts, dim) if len(parts) > 1 else input
    d = dim % x.dim()
    for _ in range(n):
        size = x.shape[d]
        if size == 0:
            break
        hi, lo = x.narrow(d, 1, size - 1), x.narrow(d, 0, size - 1)
        x = (hi != lo) if x.dtype.name == "bool" else hi - lo
    return x


@tensor_method("rot90")
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees k times in the plane of dims, from the first towards the second."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    nd = input.dim()
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = dims[0] % nd, dims[1] % nd
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    k %= 4
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip(d0, d1)
    if k == 3:
        return input.flip(d0).transpose(d0, d1)
    return input.clone()
