"""grid_sample over volumes: input (N, C, D, H, W) read at grid (N, Do, Ho, Wo, 3) of (x, y, z)
in [-1, 1] -- trilinear (eight weighted gathers) or nearest, the same composites as the 2-D
form in functional_grid, so gradients for input and grid and higher derivatives follow."""
from ..engine.creation import zeros
from ..engine.dtype import bool_
from ..engine.ops.select import where
from .functional_grid import _coords


def _gather(flat, iz, iy, ix, size, channels):
    """input values at integer (iz, iy, ix) (N, Do, Ho, Wo), zero outside: (N, C, Do, Ho, Wo)."""
    d, h, w = size
    inside = (ix >= 0) & (ix <= w - 1) & (iy >= 0) & (iy <= h - 1) & (iz >= 0) & (iz <= d - 1)
    lin = where(inside, (iz.clamp(0, d - 1) * h + iy.clamp(0, h - 1)) * w + ix.clamp(0, w - 1),
                0).long()
    n, *out = lin.shape
    idx = lin.reshape(n, 1, -1).expand(n, channels, lin[0].numel())
    vals = flat.gather(2, idx).reshape(n, channels, *out)
    return vals * inside.unsqueeze(1).to(vals.dtype)


def grid_sample_3d(input, grid, mode, padding_mode, align_corners):
    """grid_sample's 5-D case; grid_sample has checked the arguments."""
    if grid.dim() != 5 or input.shape[0] != grid.shape[0] or grid.shape[-1] != 3:
        raise RuntimeError(f"grid_sampler(): expected 5D input and grid with the same batch size "
                           f"and 3 coordinates (x, y, z) in the last dimension, but got input "
                           f"with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    n, c, d, h, w = input.shape
    flat = input.reshape(n, c, d * h * w)
    x = _coords(grid[..., 0], w, padding_mode, align_corners)
    y = _coords(grid[..., 1], h, padding_mode, align_corners)
    z = _coords(grid[..., 2], d, padding_mode, align_corners)
    if mode == "nearest":
        out = _gather(flat, z.detach().round(), y.detach().round(), x.detach().round(),
                      (d, h, w), c)
        never = zeros(tuple(out.shape), dtype=bool_, device=out.device)
        return out + where(never, (x + y + z).unsqueeze(1), 0.0)
    x0, y0, z0 = x.detach().floor(), y.detach().floor(), z.detach().floor()
    wx1, wy1, wz1 = (x - x0).unsqueeze(1), (y - y0).unsqueeze(1), (z - z0).unsqueeze(1)
    out = None
    for dz, wz in ((0, 1 - wz1), (1, wz1)):
        for dy, wy in ((0, 1 - wy1), (1, wy1)):
            for dx, wx in ((0, 1 - wx1), (1, wx1)):
                term = _gather(flat, z0 + dz, y0 + dy, x0 + dx, (d, h, w), c) * (wz * wy * wx)
                out = term if out is None else out + term
    return out
