"""histogram and histc: count the elements falling in each of a row of bins. Counts carry no
gradient (torch's are not differentiable either). Bin edges follow torch's linspace formula
(in the input's dtype, from each end); torch's vectorised linspace may round an interior edge
1 ulp differently (it depends on the CPU's vector width), so a value lying exactly on an
interior edge can land in the neighbouring bin."""
import collections

import numpy as np

from ..creation import tensor
from ..tensor import Tensor, tensor_method

histogram_return = collections.namedtuple("histogram", ["hist", "bin_edges"])


def _linspace(start, end, steps, dtype):
    """torch's scalar linspace: start + step * i for the first half, end - step * (n - 1 - i)
    for the second, in the output dtype."""
    start, end = dtype.type(start), dtype.type(end)
    step = (end - start) / dtype.type(steps - 1) if steps > 1 else dtype.type(0)
    i = np.arange(steps)
    half = steps // 2
    return np.where(i < half, start + step * i.astype(dtype),
                    end - step * (steps - 1 - i).astype(dtype)).astype(dtype)


def _check_float(name, input):
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"{name}: input tensor and bins tensors should have the same dtype, "
                           f"and be floating point; got {input.dtype}. Use input.float().")


def _count(values, edges, weight, density):
    """Per bin: how many (or how much weight) of values lie in [edge_i, edge_i+1) (the last
    bin also takes its right edge); values outside the edges are left out."""
    n = len(edges) - 1
    pos = np.searchsorted(edges, values, side="right") - 1
    pos[values == edges[-1]] = n - 1
    keep = (values >= edges[0]) & (values <= edges[-1])
    w = None if weight is None else weight[keep]
    hist = np.bincount(pos[keep], weights=w, minlength=n)[:n].astype(values.dtype)
    if density:
        hist = hist / (hist.sum() * np.diff(edges))
    return hist.astype(values.dtype)


def _outer_edges(values, range, widen):
    if range is not None:
        lo, hi = float(range[0]), float(range[1])
    elif values.size:
        lo, hi = float(values.min()), float(values.max())
    else:
        lo, hi = 0.0, 1.0            # torch's edges for an empty input
    if lo > hi:
        raise ValueError(f"histogram: max must be larger than min, got range ({lo}, {hi}).")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ValueError(f"histogram: range of [{lo}, {hi}] is not finite.")
    if lo == hi:
        lo, hi = lo - widen, hi + widen
    return lo, hi


@tensor_method("histogram")
def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """(hist, bin_edges): bins equal-width bins over range (default: input's min to max), or
    the given increasing edges (a 1-D tensor). weight adds weights instead of 1; density
    divides by the total times the bin width (the histogram integrates to 1)."""
    _check_float("histogram", input)
    values = input._host().reshape(-1)
    if isinstance(bins, Tensor):
        edges = bins._host().astype(values.dtype)
        if edges.ndim != 1 or edges.size < 1:
            raise RuntimeError("histogram: bins tensor should have one dimension and at least "
                               f"1 element, got shape {tuple(bins.shape)}.")
    else:
        if int(bins) <= 0:
            raise RuntimeError(f"histogram: bins must be > 0, but got {bins}.")
        lo, hi = _outer_edges(values, range, 0.5)
        edges = _linspace(lo, hi, int(bins) + 1, values.dtype)
    w = None
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise RuntimeError(f"histogram: weight {tuple(weight.shape)} should have the same "
                               f"shape as input {tuple(input.shape)}.")
        w = weight._host().reshape(-1)
    hist = _count(values, edges, w, density)
    return histogram_return(tensor(hist, device=input.device),
                            tensor(edges, device=input.device))


@tensor_method("histc")
def histc(input, bins=100, min=0, max=0):
    """Counts in bins equal-width bins over [min, max] (both 0: the input's min and max);
    elements outside are ignored. The counts have the input's dtype."""
    _check_float("histc", input)
    values = input._host().reshape(-1)
    if int(bins) <= 0:
        raise RuntimeError(f"histc: bins must be > 0, but got {bins}.")
    lo, hi = _outer_edges(values, None if min == max == 0 else (min, max), 1.0)
    edges = _linspace(lo, hi, int(bins) + 1, values.dtype)
    return tensor(_count(values, edges, None, False), device=input.device)
