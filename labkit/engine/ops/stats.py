"""Statistics helpers with torch's semantics: kthvalue, quantile/nanquantile,
median/nanmedian, mode (differentiable: the gradient goes to the chosen elements), histc,
histogram, bincount, unique (counting: not differentiable), std_mean and var_mean.

Sorting is the one new primitive (Sort, whose backward is the inverse permutation); the
rest is written from it and from existing ops."""
import math

from ..creation import arange, linspace
from ..dtype import bool_
from ..function import Function
from ..tensor import Tensor, tensor_method
from .gather import gather
from .join import stack
from .reduce import _dims, evenly_distribute
from .select import where

from .. import return_types as _rt  # noqa: E402
kthvalue_t, mode_t, histogram_t = _rt.kthvalue, _rt.mode, _rt.histogram


def _dim(dim, x, name):
    """One dim as a non-negative int (a 0-d tensor accepts 0 and -1)."""
    if not isinstance(dim, int):
        raise TypeError(f"{name}(): dim must be an int, got {type(dim).__name__}.")
    d = _dims(dim, x.ndim)
    return d[0] if d else 0


class _Permute(Function):
    """x taken along dim in the order perm; its backward puts the gradient back with the
    inverse permutation (another _Permute, so it is differentiable again)."""
    node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, x, perm, inv, dim):
        ctx.perm, ctx.inv, ctx.dim = perm, inv, dim
        return x.device.xp.take_along_axis(x._data, perm, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        return _Permute.apply(grad, ctx.inv, ctx.perm, ctx.dim), None, None, None


class Sort(Function):
    """(values, indices) sorted ascending along dim (stable: equal values keep their order;
    nan sorts last, as in torch)."""
    node_name = "SortBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        xp = x.device.xp
        idx = xp.argsort(x._data, axis=dim, kind="stable")
        ctx.perm, ctx.inv, ctx.dim = idx, xp.argsort(idx, axis=dim, kind="stable"), dim
        ctx.mark_non_differentiable(idx)
        return xp.take_along_axis(x._data, idx, axis=dim), idx

    @staticmethod
    def backward(ctx, grad, _grad_idx):
        return _Permute.apply(grad, ctx.inv, ctx.perm, ctx.dim), None


def _sort(x, dim):
    if x.ndim == 0:
        return x, Tensor._make(x.device.xp.zeros((), "int64"), x.device)
    return Sort.apply(x, dim)


def _take(t, dim, i):
    """t[..., i, ...] with i at position dim (basic indexing: differentiable)."""
    return t[(slice(None),) * dim + (i,)]


@tensor_method("kthvalue")
def kthvalue(input, k, dim=-1, keepdim=False):
    """The k-th smallest element along dim (k from 1) and its index."""
    d = _dim(dim, input, "kthvalue")
    n = input.shape[d] if input.ndim else 1
    if n == 0:
        raise IndexError(f"kthvalue(): expected reduction dim {d} to have non-zero size, got "
                         f"shape {tuple(input.shape)}.")
    if input.ndim:           # a 0-d tensor is its own k-th value, bool or not (torch)
        _no_bool("kthvalue", input)
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}: "
                           f"k={k}, but the dim has {n} elements (k counts from 1).")
    values, indices = _sort(input, d)
    if input.ndim == 0:
        return kthvalue_t(values, indices)
    indices = _tied_as_torch(values, indices, d, k - 1)
    values = gather(input, d, indices.unsqueeze(d)).squeeze(d)    # the gradient goes there
    if keepdim:
        values, indices = values.unsqueeze(d), indices.unsqueeze(d)
    return kthvalue_t(values, indices)


def _tied_as_torch(s, order, d, k):
    """The index of the k-th smallest (from 0) along d, from the stable sort s / order; where
    it ties with a neighbour, the one torch's CPU quickselect returns (its choice among equal
    values decides where the gradient goes)."""
    idx = _take(order, d, k)
    sv = s.detach().movedim(d, -1).cpu().numpy()
    n = sv.shape[-1]
    same = [(sv[..., j] == sv[..., k]) | ((sv[..., j] != sv[..., j]) & (sv[..., k] != sv[..., k]))
            for j in (k - 1, k + 1) if 0 <= j < n]
    if not same or not any(m.any() for m in same):
        return idx
    tied = (same[0] | same[1] if len(same) == 2 else same[0]).reshape(-1)
    sv, where_from = sv.reshape(-1, n), order.detach().movedim(d, -1).cpu().numpy().reshape(-1, n)
    out = idx.cpu().numpy().copy()
    flat = out.reshape(-1)
    for r in tied.nonzero()[0]:
        row = [0.0] * n                  # the row as it was (before sorting)
        for j in range(n):
            row[where_from[r, j]] = sv[r, j]
        flat[r] = _quickselect(row, k)
    return Tensor._make(idx.device.xp.asarray(out), idx.device)


def _quickselect(vals, k):
    """torch's quick_select_template (median of three, nan largest) on one row: the original
    position of the element that ends at place k."""
    idx = list(range(len(vals)))

    def gt(a, b):
        return (a != a and b == b) or a > b

    def swap(i, j):
        vals[i], vals[j], idx[i], idx[j] = vals[j], vals[i], idx[j], idx[i]
    lo, hi = 0, len(vals) - 1
    while hi > lo:
        if hi == lo + 1:
            if gt(vals[lo], vals[hi]):
                swap(lo, hi)
            break
        swap(lo + (hi - lo) // 2, lo + 1)
        if gt(vals[lo + 1], vals[hi]):
            swap(lo + 1, hi)
        if gt(vals[lo], vals[hi]):
            swap(lo, hi)
        if gt(vals[lo + 1], vals[lo]):
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, vals[lo]
        while True:
            i += 1
            while gt(pivot, vals[i]):
                i += 1
            j -= 1
            while gt(vals[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return idx[k]


class ModeIndex(Function):
    """Index of the most frequent value along the last dim: the smallest such value on ties,
    at its last occurrence (what torch's CPU kernel gives for rows of up to 16 elements; for
    longer rows torch leaves the choice among equal values unspecified). Integer output."""

    @staticmethod
    def forward(ctx, x):
        xp = x.device.xp
        a = x._data.reshape(-1, x._data.shape[-1])
        rows, n = a.shape
        order = xp.argsort(a, axis=1, kind="stable")
        s = xp.take_along_axis(a, order, axis=1)
        new_run = xp.concatenate([xp.ones((rows, 1), bool), s[:, 1:] != s[:, :-1]], axis=1)
        run = xp.cumsum(new_run, axis=1) - 1                 # run number of each sorted slot
        flat = (run + xp.arange(rows)[:, None] * n).reshape(-1)
        counts = xp.bincount(flat, minlength=rows * n).reshape(rows, n)
        best = xp.argmax(counts, axis=1)                     # first max: the smallest value
        last = xp.where(run == best[:, None], xp.arange(n)[None, :], -1).max(axis=1)
        picked = xp.take_along_axis(order, last[:, None], axis=1)[:, 0]
        # among equal values the stable sort keeps input order: the last slot is the last index
        return picked.reshape(x._data.shape[:-1]).astype("int64")


@tensor_method("mode")
def mode(input, dim=-1, keepdim=False):
    """The most frequent value along dim (the smallest on ties) and its last index."""
    d = _dim(dim, input, "mode")
    if input.ndim == 0:
        return mode_t(input.clone(), Tensor._make(input.device.xp.zeros((), "int64"),
                                                  input.device))
    if input.shape[d] == 0:
        raise IndexError(f"mode(): expected a non-empty dim to reduce, but dim {d} of shape "
                         f"{tuple(input.shape)} is empty.")
    perm = [i for i in range(input.ndim) if i != d] + [d]
    idx = ModeIndex.apply(input.permute(*perm)).unsqueeze(d)
    values = gather(input, d, idx)          # gathered: a masked sum loses the sign of -0.0
    if not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    return mode_t(values, idx)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


@tensor_method("quantile")
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles (q in [0, 1], a number or a 1-D tensor) along dim, or of all
    elements; between two data points `interpolation` picks how. A slice holding nan gives
    nan. A tensor q adds a leading dim of its length."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


@tensor_method("nanquantile")
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile of the non-nan values of each slice (nan only where all are nan)."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, name):
    if not input.is_floating_point():
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype, got "
                           f"{input.dtype}.")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    scalar_q = not isinstance(q, Tensor) or q.ndim == 0
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor, got shape "
                               f"{tuple(q.shape)}.")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor "
                               f"({q.dtype} vs {input.dtype}).")
    qs = [float(q)] if scalar_q else [float(v) for v in q.reshape(-1).tolist()]
    for v in qs:
        if not 0 <= v <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {v}")
    if dim is None:
        x, out_dims = input.reshape(-1), None
    else:
        d = _dim(dim, input, name)
        x = input.permute(*[i for i in range(input.ndim) if i != d], d) if input.ndim else \
            input.reshape(1)
        out_dims = d
    n = x.shape[-1]
    if n == 0:
        raise IndexError(f"{name}() input tensor must be non-empty")
    s, _ = _sort(x, x.ndim - 1)
    outs = [_nan_quantile(s, v, interpolation) if ignore_nan else
            where(s[..., -1].isnan(), float("nan"), _sorted_quantile(s, v, interpolation))
            for v in qs]
    out = stack(outs) if not scalar_q else outs[0]
    lead = 0 if scalar_q else 1
    if keepdim:
        if out_dims is None:
            out = out.reshape(*out.shape[:lead], *[1] * input.ndim)
        elif input.ndim:
            out = out.unsqueeze(lead + out_dims)
    return out


def _positions(rank, interpolation):
    """(lo, hi, weight of hi) for a fractional rank, as torch picks them."""
    lo, hi = math.floor(rank), math.ceil(rank)
    if interpolation == "lower":
        hi = lo
    elif interpolation == "higher":
        lo = hi
    elif interpolation == "nearest":
        lo = hi = round(rank)               # Python's round: half to even, as torch's
    return lo, hi, 0.5 if interpolation == "midpoint" else rank - lo


def _lerp(a, b, w):
    """a + w (b - a), computed from the nearer end (torch's lerp, exact at w = 0 and 1)."""
    return a + w * (b - a) if w < 0.5 else b - (b - a) * (1 - w)


def _sorted_quantile(s, v, interpolation):
    lo, hi, w = _positions(v * (s.shape[-1] - 1), interpolation)
    return s[..., lo] if lo == hi else _lerp(s[..., lo], s[..., hi], w)


class NanQuantilePositions(Function):
    """Per sorted row, (lo, hi, weight) of the q-th quantile of its non-nan values (which
    sort first); a row of nan only points at its first nan. Not differentiable."""

    @staticmethod
    def forward(ctx, s, v, interpolation):
        xp = s.device.xp
        valid = (~xp.isnan(s._data)).sum(-1)
        rank = v * xp.maximum(valid - 1, 0)
        lo, hi = xp.floor(rank), xp.ceil(rank)
        if interpolation == "lower":
            hi = lo
        elif interpolation == "higher":
            lo = hi
        elif interpolation == "nearest":
            lo = hi = xp.round(rank)        # half to even, as torch
        w = xp.full(rank.shape, 0.5) if interpolation == "midpoint" else rank - lo
        return (xp.asarray(lo).astype("int64"), xp.asarray(hi).astype("int64"),
                xp.asarray(w).astype(s._data.dtype))


def _nan_quantile(s, v, interpolation):
    lo, hi, w = NanQuantilePositions.apply(s.detach(), v, interpolation)
    pos = arange(s.shape[-1], device=s.device)
    a = where(pos == lo.unsqueeze(-1), s, 0).sum(-1)
    b = where(pos == hi.unsqueeze(-1), s, 0).sum(-1)
    return where(w < 0.5, a + w * (b - a), b - (b - a) * (1 - w))





class MedianPosition(Function):
    """Where the lower median sits in each sorted row (last dim): at (n - 1) // 2 of the n
    non-nan values with ignore_nan, else of all values, except that a row holding nan
    gives its first nan (sorted last). Integer output: not differentiable."""

    @staticmethod
    def forward(ctx, s, ignore_nan):
        xp = s.device.xp
        a = s._data
        valid = (~xp.isnan(a)).sum(-1) if a.dtype.kind == "f" else \
            xp.full(a.shape[:-1], a.shape[-1])
        if ignore_nan:
            pos = xp.maximum(valid - 1, 0) // 2
        else:
            pos = xp.where(valid < a.shape[-1], valid, (a.shape[-1] - 1) // 2)
        return xp.asarray(pos).astype("int64")


class MedianAll(Function):
    """The lower median of all elements (nan if any is nan; nanmedian: of the non-nan ones).
    Ties share the gradient evenly, as torch's median() (not median(dim), which picks one)."""
    node_name = "MedianBackward0"

    @staticmethod
    def forward(ctx, x, ignore_nan):
        xp = x.device.xp
        a = x._data.reshape(-1)
        if a.dtype.kind in "fV":
            nan = xp.isnan(a)
            if ignore_nan:
                a = a[~nan]
            elif bool(nan.any()):
                a = a[:0]
        # nothing to take: nan, cast to the dtype as torch casts it (int64 min for int64)
        y = xp.sort(a)[(a.size - 1) // 2] if a.size else \
            xp.asarray(float("nan")).astype(x._data.dtype)
        y = xp.asarray(y)
        ctx.save_for_backward(x, y)    # the output too: an in-place change to it is caught
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return evenly_distribute(grad, x, y.detach()), None

    @staticmethod
    def jvp(args, tangents, out):
        x, t = args[0], tangents[0]
        if t is None:
            return None
        mask = (x == out) | (x.isnan() & out.isnan())
        return where(mask, t, 0.0).sum() / mask.sum()


def _no_bool(name, input):
    if input.dtype == bool_:
        raise NotImplementedError(f"{name}(): not implemented for bool tensors (as in torch). "
                                  f"Convert first: x.long().{name}(...).")


def _median(input, dim, keepdim, ignore_nan, name):
    if dim is None:
        if input.numel():        # torch checks the dtype after its empty-tensor answer
            _no_bool(name, input)
        return MedianAll.apply(input, ignore_nan)
    d = _dim(dim, input, name)
    x = input.permute(*[i for i in range(input.ndim) if i != d], d) if input.ndim else \
        input.reshape(1)
    n = x.shape[-1]
    if n:
        _no_bool(name, input)
    else:
        raise IndexError(f"{name}(): expected a non-empty dim {dim} to reduce, got shape "
                         f"{tuple(input.shape)}.")
    s, order = _sort(x, x.ndim - 1)
    pos = MedianPosition.apply(s, ignore_nan).unsqueeze(-1)
    # gathered, not summed under a mask: a sum would turn a median of -0.0 into +0.0
    values, indices = gather(s, -1, pos).squeeze(-1), gather(order, -1, pos).squeeze(-1)
    if input.ndim == 0:
        values, indices = values.reshape(()), indices.reshape(())
    elif keepdim:
        values, indices = values.unsqueeze(d), indices.unsqueeze(d)
    return getattr(_rt, name)(values, indices)


@tensor_method("median")
def median(input, dim=None, keepdim=False):
    """The lower of the two middle values (of all elements, or with dim a (values, indices)
    pair along it); nan if a nan is there. The gradient goes to the element chosen."""
    return _median(input, dim, keepdim, False, "median")


@tensor_method("nanmedian")
def nanmedian(input, dim=None, keepdim=False):
    """median ignoring nan (nan only where every value is nan)."""
    return _median(input, dim, keepdim, True, "nanmedian")


class Histc(Function):
    """Counts in `bins` equal bins over [min, max] (torch's histc; min == max == 0 means the
    data's range). Values outside are ignored; a value equal to max goes to the last bin."""

    @staticmethod
    def forward(ctx, x, bins, lo, hi):
        xp = x.device.xp
        a = x._data.reshape(-1)
        if lo == hi and a.size:
            lo, hi = a.min().item(), a.max().item()
        if lo == hi:
            lo, hi = lo - 1, hi + 1
        t = a.dtype.type
        lo_t, hi_t = t(lo), t(hi)
        inside = a[(a >= lo_t) & (a <= hi_t)]
        pos = ((inside - lo_t) * t(bins) / (hi_t - lo_t)).astype("int64")
        pos = xp.minimum(pos, bins - 1)
        return xp.bincount(pos, minlength=bins).astype(a.dtype)


@tensor_method("histc")
def histc(input, bins=100, min=0, max=0):
    if not input.is_floating_point():
        raise NotImplementedError(f'"histogram_cpu" not implemented for \'{input.dtype}\': '
                                  "histc needs a float tensor; use x.float().histc(...) (or "
                                  "bincount for small non-negative integers).")
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for dimension 0")
    if max < min:
        raise RuntimeError(f"torch.histc: max must be larger than min (min={min}, max={max})")
    return Histc.apply(input.detach(), int(bins), float(min), float(max))


class Histogram(Function):
    @staticmethod
    def forward(ctx, x, edges, weight, density):
        xp = x.device.xp
        a = x._data.reshape(-1)
        w = None if weight is None else weight._data.reshape(-1)
        hist, _ = xp.histogram(a, bins=edges._data, weights=w, density=density)
        return hist.astype(a.dtype)


@tensor_method("histogram")
def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """(hist, bin_edges): counts (or sums of weight) in bins given as a count (equal bins over
    range, default the data's min..max) or as a 1-D tensor of increasing edges; each bin
    holds [left, right) except the last, [left, right]. density=True divides by total * width."""
    if not input.is_floating_point():
        raise RuntimeError(f"torch.histogram: input tensor and bins tensors should have the "
                           f"same dtype, and be floating point; got {input.dtype}.")
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise RuntimeError(f"torch.histogram: if weight tensor is provided, it should have the "
                           f"same shape as the input tensor ({tuple(weight.shape)} vs "
                           f"{tuple(input.shape)}).")
    if isinstance(bins, Tensor):
        edges = bins
    else:
        if int(bins) <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                               "dimension 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif input.numel():
            lo, hi = input.min().item(), input.max().item()
        else:
            lo, hi = 0.0, 1.0                      # torch's edges for an empty input
        if lo > hi:
            raise RuntimeError(f"torch.histogram: min should not exceed max, but got min {lo} "
                               f"max {hi}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = linspace(lo, hi, int(bins) + 1, dtype=input.dtype, device=input.device)
    hist = Histogram.apply(input.detach(), edges.detach(),
                           None if weight is None else weight.detach(), bool(density))
    return histogram_t(hist, edges.detach())


class BinCount(Function):
    op_name = "bincount"
    @staticmethod
    def forward(ctx, x, weights, minlength):
        xp = x.device.xp
        w = None if weights is None else weights._data
        out = xp.bincount(x._data, weights=w, minlength=minlength)
        if w is None:
            return out.astype("int64")
        return out.astype("float32" if w.dtype.name == "float32" else "float64")


@tensor_method("bincount")
def bincount(input, weights=None, minlength=0):
    """How often each value 0, 1, ..., max occurs in a 1-D tensor of non-negative integers
    (with weights, the sum of their weights); at least minlength bins."""
    if input.dtype.is_floating_point or input.dtype.name == "bool":
        raise NotImplementedError(f'"bincount_cpu" not implemented for \'{input.dtype}\': '
                                  "bincount counts integers; convert with x.long().")
    if input.ndim != 1 or (input.numel() and input.min().item() < 0):
        raise RuntimeError(f"bincount only supports 1-d non-negative integral inputs. (got "
                           f"shape {tuple(input.shape)})")
    if minlength < 0:
        raise RuntimeError(f"bincount: minlength should be >= 0, got {minlength}")
    if weights is not None and tuple(weights.shape) != tuple(input.shape):
        raise RuntimeError(f"bincount: weights should be 1-d and have the same length as input "
                           f"({tuple(weights.shape)} vs {tuple(input.shape)})")
    return BinCount.apply(input, None if weights is None else weights.detach(), int(minlength))


class Unique(Function):
    @staticmethod
    def forward(ctx, x, dim):
        xp = x.device.xp
        a = x._data
        if dim is None:
            vals, inv, counts = xp.unique(a.reshape(-1), return_inverse=True,
                                          return_counts=True, equal_nan=False)  # nan != nan
            return vals, inv.reshape(a.shape).astype("int64"), counts.astype("int64")
        moved = xp.moveaxis(a, dim, 0)
        vals, inv, counts = xp.unique(moved.reshape(moved.shape[0], -1), axis=0,
                                      return_inverse=True, return_counts=True)
        vals = xp.moveaxis(vals.reshape((-1,) + moved.shape[1:]), 0, dim)
        return vals, inv.reshape(-1).astype("int64"), counts.astype("int64")


@tensor_method("unique")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements in ascending order (always sorted, as torch on the CPU), or the
    distinct slices along dim; optionally the index of each input element in that result
    (inverse) and how often each occurs (counts)."""
    d = None if dim is None else _dim(dim, input, "unique")
    if d is not None and input.ndim == 0:
        raise IndexError("unique(): dim given for a 0-d tensor; drop dim.")
    vals, inv, counts = Unique.apply(input.detach(), d)
    out = (vals,) + ((inv,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return out[0] if len(out) == 1 else out


def _mean(input, dim, keepdim):
    if dim is not None:
        return input.mean(dim, keepdim)
    return input.mean().reshape([1] * input.ndim) if keepdim else input.mean()


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) in one call."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return input.var(dim, unbiased, keepdim, correction=correction), _mean(input, dim, keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) in one call."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return input.std(dim, unbiased, keepdim, correction=correction), _mean(input, dim, keepdim)
