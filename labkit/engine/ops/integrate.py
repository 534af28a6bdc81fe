"""The trapezoid rule: trapezoid (trapz) sums (y[i] + y[i+1]) / 2 * dx along a dim, with a
constant spacing dx or sample points x; cumulative_trapezoid keeps the running sums."""
from ..tensor import Tensor


def _parts(name, y, x, dx, dim):
    n = y.dim()
    if n == 0:
        raise IndexError(f"{name}: Dimension out of range (expected to be in range of [-1, 0], "
                         f"but got {dim})")
    d = dim % n
    k = y.shape[d]
    left = y.narrow(d, 0, max(k - 1, 0))
    right = y.narrow(d, min(1, k), max(k - 1, 0))
    if x is None:
        return (left + right) * (0.5 * (1.0 if dx is None else dx)), d
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: x must be a tensor of sample points (or pass dx=)")
    if x.dim() == 1:
        if x.shape[0] != k:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        spacing = (x[1:] - x[:-1]).reshape(*([1] * d), -1, *([1] * (n - d - 1)))
    else:
        xd = d - n + x.dim() if x.dim() < n else d
        spacing = x.narrow(xd, min(1, k), max(k - 1, 0)) - x.narrow(xd, 0, max(k - 1, 0))
    return (left + right) * spacing * 0.5, d


def trapezoid(y, x=None, *, dx=None, dim=-1):
    if x is not None and not isinstance(x, Tensor):       # trapezoid(y, 0.5): a spacing
        x, dx = None, x
    area, d = _parts("trapezoid", y, x, dx, dim)
    if not area.dtype.is_floating_point and not area.dtype.is_complex:
        area = area.float()
    return area.sum(d)


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    if x is not None and not isinstance(x, Tensor):
        x, dx = None, x
    area, d = _parts("cumulative_trapezoid", y, x, dx, dim)
    return area.cumsum(d)
