"""torch.gradient: the derivative of sampled values by finite differences (numpy.gradient's
rule), one tensor per dim. Inside, central differences, (f[i+1] - f[i-1]) / 2h, or their
weighted form for unevenly spaced coordinates; at the two ends one-sided differences of first
(edge_order=1) or second order. Built from slices and arithmetic, so it is differentiable."""
from ..promotion import promote_types
from ..tensor import Tensor


def _slice(f, d, start, stop=None):
    index = [slice(None)] * f.dim()
    index[d] = slice(start, stop)
    return f[tuple(index)]


def _along(v, f, d):
    """A 1-d tensor of spacings shaped to broadcast along dim d of f."""
    return v.reshape((-1,) + (1,) * (f.dim() - d - 1))


def _uniform(f, d, h, edge_order):
    s = lambda a, b=None: _slice(f, d, a, b)          # noqa: E731
    inner = (s(2) - s(None, -2)) / (2 * h)
    if edge_order == 1:
        first, last = (s(1, 2) - s(0, 1)) / h, (s(-1) - s(-2, -1)) / h
    else:
        first = (-1.5 * s(0, 1) + 2 * s(1, 2) - 0.5 * s(2, 3)) / h
        last = (0.5 * s(-3, -2) - 2 * s(-2, -1) + 1.5 * s(-1)) / h
    return first, inner, last


def _coordinates(f, d, x, edge_order):
    s = lambda a, b=None: _slice(f, d, a, b)          # noqa: E731
    dx = x[1:] - x[:-1]                               # the steps, 1-d
    h = lambda a, b=None: _along(dx[a:b], f, d)       # noqa: E731  (shaped to broadcast)
    hl, hr = h(None, -1), h(1)
    inner = (-hr / (hl * (hl + hr))) * s(None, -2) + ((hr - hl) / (hl * hr)) * s(1, -1) \
        + (hl / (hr * (hl + hr))) * s(2)
    if edge_order == 1:
        return (s(1, 2) - s(0, 1)) / h(0, 1), inner, (s(-1) - s(-2, -1)) / h(-1)
    a, b = h(0, 1), h(1, 2)
    first = (-(2 * a + b) / (a * (a + b))) * s(0, 1) + ((a + b) / (a * b)) * s(1, 2) \
        - (a / (b * (a + b))) * s(2, 3)
    a, b = h(-2, -1), h(-1)
    last = (b / (a * (a + b))) * s(-3, -2) - ((a + b) / (a * b)) * s(-2, -1) \
        + ((2 * b + a) / (b * (a + b))) * s(-1)
    return first, inner, last


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """(df/dx_d for each dim d): spacing a number (the step of every dim), one number per
    dim, or one coordinate tensor per dim; dim an int or a list (default: every dim)."""
    from .join import cat
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2, got "
                           f"{edge_order}")
    dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, int) \
        else list(dim)
    dims = [d % max(input.dim(), 1) for d in dims]
    spacing = 1 if spacing is None else spacing     # torch's None: unit spacing
    if isinstance(spacing, (int, float)):
        spacing = [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        raise RuntimeError(
            f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {input.dim()}', since dim argument was not given, but got "
            f"a list of length {len(spacing)}" if dim is None else
            f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            f"dim arguments to have the same length, but got a spacing argument of length "
            f"{len(spacing)} and a dim argument of length {len(dims)}.")
    f = input if input.is_floating_point() else input.float()
    out = []
    for d, h in zip(dims, spacing):
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
        if isinstance(h, Tensor):
            dt = promote_types(f.dtype, h.dtype) if h.is_floating_point() else f.dtype
            parts = _coordinates(f.to(dt), d, h.to(dt), edge_order)
        else:
            parts = _uniform(f, d, h, edge_order)
        out.append(cat(parts, d))
    return tuple(out)
