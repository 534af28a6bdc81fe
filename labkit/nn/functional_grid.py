"""affine_grid and grid_sample: the spatial transformer's two halves. affine_grid maps an output
pixel grid through a batch of affine matrices into normalised input coordinates in [-1, 1];
grid_sample reads the input at those (fractional) places.

Both are compositions of differentiable ops (a matrix product; gathers weighted by the distance
to the neighbouring pixels), so the input gets its gradient through the gathers (a scatter-add)
and the grid through the weights, exactly torch's formulas, and higher derivatives follow.
"""
from ..engine.creation import arange, tensor, zeros
from ..engine.dtype import bool_
from ..engine.ops.join import stack
from ..engine.ops.select import where


def _base(n, align_corners, like):
    """The n normalised pixel coordinates along one axis (torch's linspace_from_neg_one)."""
    if n <= 1:
        return tensor([0.0] * n, dtype=like.dtype, device=like.device)
    x = arange(n, dtype=like.dtype, device=like.device) * (2.0 / (n - 1)) - 1.0
    return x if align_corners else x * ((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    """(N, H, W, 2) sampling coordinates from theta (N, 2, 3); (N, D, H, W, 3) from (N, 3, 4)."""
    size = [int(s) for s in size]
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    spatial = len(size) - 2
    if spatial not in (2, 3):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    want = (size[0], spatial, spatial + 1)
    if theta.dim() != 3 or tuple(theta.shape) != want:
        raise ValueError(f"Expected a batch of {spatial}D affine matrices of shape Nx{spatial}x"
                         f"{spatial + 1} for size {size}. Got {tuple(theta.shape)}.")
    if min(size[2:]) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    align_corners = _align(align_corners)
    axes = [_base(n, align_corners, theta) for n in reversed(size[2:])]   # x, y (, z)
    from ..engine.ops.layout import meshgrid
    mesh = meshgrid(*reversed(axes), indexing="ij")          # (D,) H, W grids of z, y, x
    ones = mesh[0] * 0 + 1
    base = stack([*reversed(mesh), ones], -1).reshape(-1, spatial + 1)     # (HW, 3)
    grid = base.unsqueeze(0).matmul(theta.transpose(1, 2))                 # (N, HW, 2)
    return grid.reshape(size[0], *size[2:], spatial)


def _align(align_corners):
    if align_corners is None:
        import warnings
        warnings.warn("Default grid_sample and affine_grid behavior has changed to "
                      "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                      "old behavior is desired. See the documentation of grid_sample for "
                      "details.", UserWarning, stacklevel=3)
    return bool(align_corners)


def _unnormalize(coord, n, align_corners):
    if align_corners:
        return (coord + 1) * ((n - 1) / 2)
    return ((coord + 1) * n - 1) / 2


def _reflect(x, twice_low, twice_high):
    """Reflect x into [twice_low / 2, twice_high / 2] (torch's reflect_coordinates)."""
    if twice_low == twice_high:
        return x * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    x = (x - low).abs()
    flips = (x / span).floor().detach()
    extra = x - flips * span
    return where(flips.remainder(2) == 1, span - extra, extra) + low


def _coords(coord, n, padding_mode, align_corners):
    """Pixel coordinates from normalised ones, with the padding mode's clipping/reflection."""
    x = _unnormalize(coord, n, align_corners)
    if padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (n - 1)) if align_corners else _reflect(x, -1, 2 * n - 1)
    if padding_mode != "zeros":     # torch's clip_coordinates_set_grad: the gradient passes
        #                             strictly inside only; on the border itself it is 0
        x = where((x > 0) & (x < n - 1), x, x.detach().clamp(0, n - 1))
    return x


def _gather(flat, iy, ix, h, w, channels):
    """input values at integer (iy, ix) (N, Ho, Wo), zero outside the image: (N, C, Ho, Wo)."""
    inside = (ix >= 0) & (ix <= w - 1) & (iy >= 0) & (iy <= h - 1)
    lin = where(inside, iy.clamp(0, h - 1) * w + ix.clamp(0, w - 1), 0).long()
    n, ho, wo = lin.shape
    idx = lin.reshape(n, 1, ho * wo).expand(n, channels, ho * wo)
    vals = flat.gather(2, idx).reshape(n, channels, ho, wo)
    return vals * inside.unsqueeze(1).to(vals.dtype)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, H, W) read at grid (N, Ho, Wo, 2) of (x, y) in [-1, 1]: (N, C, Ho, Wo)
    (5-D volumes: functional_grid3d)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if input.dim() == 5 and input.dtype == grid.dtype:
        from .functional_grid3d import grid_sample_3d
        return grid_sample_3d(input, grid, mode, padding_mode, _align(align_corners))
    if input.dim() != 4 or grid.dim() != 4:
        raise RuntimeError(f"grid_sampler(): expected 4D input and grid with same number of "
                           f"dimensions, but got input with sizes {list(input.shape)} and grid "
                           f"with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0] or grid.shape[-1] != 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension and the same batch size as input (input "
                           f"{list(input.shape)}, grid {list(grid.shape)}); grid holds (x, y) "
                           "pairs in [-1, 1], one per output pixel")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have the same dtype, "
                           f"but input has {input.dtype} and grid has {grid.dtype}")
    if mode == "bicubic":
        raise NotImplementedError("labkit's grid_sample has mode='bilinear' and 'nearest'; "
                                  "'bicubic' is not implemented")
    align_corners = _align(align_corners)
    n, c, h, w = input.shape
    flat = input.reshape(n, c, h * w)
    x = _coords(grid[..., 0], w, padding_mode, align_corners)
    y = _coords(grid[..., 1], h, padding_mode, align_corners)
    if mode == "nearest":
        # round half to even, as torch's nearbyint; the grid gets torch's zero gradient
        out = _gather(flat, y.detach().round(), x.detach().round(), h, w, c)
        never = zeros(tuple(out.shape), dtype=bool_, device=out.device)
        return out + where(never, (x + y).unsqueeze(1), 0.0)
    x0, y0 = x.detach().floor(), y.detach().floor()
    wx1, wy1 = (x - x0).unsqueeze(1), (y - y0).unsqueeze(1)
    wx0, wy0 = 1 - wx1, 1 - wy1
    return (_gather(flat, y0, x0, h, w, c) * wy0 * wx0 +
            _gather(flat, y0, x0 + 1, h, w, c) * wy0 * wx1 +
            _gather(flat, y0 + 1, x0, h, w, c) * wy1 * wx0 +
            _gather(flat, y0 + 1, x0 + 1, h, w, c) * wy1 * wx1)
