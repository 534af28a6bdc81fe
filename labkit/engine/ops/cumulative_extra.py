"""cummax / cummin (the running extreme and where it was reached, the later index on ties, as
torch) and logcumsumexp (a running log-sum-exp, shifted by the maximum for stability). Values
are gathered from the input, so gradients flow to the positions that won."""

import math

from ..tensor import Tensor, tensor_method

from .. import return_types as _rt  # noqa: E402
CummaxResult, CumminResult = _rt.cummax, _rt.cummin


def _running(input, dim, ufunc_name):
    from .scan import _one_dim
    from .complex_guard import refuse_complex
    refuse_complex("cummax" if ufunc_name == "maximum" else "cummin", input)
    xp = input.device.xp
    d = input._data
    dim = _one_dim(dim, d.ndim, "cummax" if ufunc_name == "maximum" else "cummin")
    if d.ndim == 0:
        return input.clone(), Tensor._make(xp.zeros((), xp.int64), input.device)
    dim %= d.ndim
    run = getattr(xp, ufunc_name).accumulate(d, axis=dim) if d.shape[dim] else d
    positions = xp.arange(d.shape[dim]).reshape([-1 if k == dim else 1 for k in range(d.ndim)])
    nan = xp.isnan(d) if d.dtype.kind == "f" else xp.zeros(d.shape, bool)
    hit = (d == run) | nan                         # a new (or tied) extreme, or a nan
    idx = xp.maximum.accumulate(xp.where(hit, positions, 0), axis=dim)
    if d.dtype.kind == "f" and nan.any():          # after a nan, torch keeps the nan's index
        seen = xp.maximum.accumulate(xp.where(nan, positions, -1), axis=dim)
        idx = xp.where(seen >= 0, seen, idx)
    index = Tensor._make(xp.ascontiguousarray(idx.astype(xp.int64)), input.device)
    return input.gather(dim, index), index


@tensor_method("cummax")
def cummax(input, dim):
    return CummaxResult(*_running(input, dim, "maximum"))


@tensor_method("cummin")
def cummin(input, dim):
    return CumminResult(*_running(input, dim, "minimum"))


@tensor_method("logcumsumexp")
def logcumsumexp(input, dim):
    from .scan import _one_dim
    if input._data.dtype.kind in "biu":
        raise NotImplementedError(f"logcumsumexp: not implemented for {input.dtype} (as in "
                                  "torch); convert first: x.float().logcumsumexp(dim).")
    dim = _one_dim(dim, input.dim(), "logcumsumexp")
    if input.dim() == 0 or input.shape[dim] == 0:
        return input.clone()
    d = input.detach()          # the shift: the largest value that is not nan (a nan stays
    m = d.masked_fill(d.isnan(), -math.inf).amax(dim, keepdim=True)    # where it is, as torch)
    m = m.masked_fill(m.isinf(), 0.0)
    return (input - m).exp().cumsum(dim).log() + m
