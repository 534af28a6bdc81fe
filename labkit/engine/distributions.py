"""From raw mt19937 draws to torch's numbers: each distribution as torch's CPU kernels do it.

Read from PyTorch's sources (ATen/core/TransformationHelper.h, DistributionsHelper.h,
native/cpu/DistributionTemplates.h, MultinomialKernel.cpp, TensorFactories.cpp) and checked
against torch 2.13 number for number (tests/test_rng_torch.py):

- uniform: float32 takes 24 bits of one 32-bit draw, float64 53 bits of a 64-bit draw;
  x * (to - from) + from, fused into one rounding as the compiled kernel does.
- normal: below 16 elements (or not contiguous), Box-Muller in float64 one value at a time,
  the second value of each pair cached in the generator; from 16 elements, all uniforms
  first, then Box-Muller on blocks of 16 (the last block recomputed from 16 fresh draws) --
  float32 with torch's AVX2 polynomials (_avx_mathfun), float64 with the C library's log.
- integers: draw % range + low, with 64-bit draws when the range needs them.
- randperm: Fisher-Yates with random() % (n - i).
- bernoulli: uniform < p; exponential: -1 / lambda * log1p(-u) in float64.
- multinomial: with replacement, a binary search of the normalised cumulative sum for each
  float64 uniform; without (or one sample), the exponential race argmax/topk(p / E).

Every function returns a host array of `shape` in C order; callers that fill a
non-contiguous tensor draw in its memory order (see `memory_order`).
"""
import math

import numpy as np

from ._avx_mathfun import _fma, log_ps, sincos_ps

_DIGITS = {np.dtype(np.float32): 24, np.dtype(np.float64): 53}   # half types: float32 draws, cast
_log = np.frompyfunc(math.log, 1, 1)        # the C library's log (numpy's differs by an ulp)
_log1p = np.frompyfunc(math.log1p, 1, 1)


def _numel(shape):
    return int(np.prod(shape, dtype=np.int64))


def _fma64(a, b, c):
    """a * b + c with one rounding in float64 (Dekker's exact product, then an exact sum)."""
    a, b, c = np.asarray(a, np.float64), np.float64(b), np.asarray(c, np.float64)
    p = a * b
    split = 134217729.0
    ta, tb = split * a, split * b
    ah, bh = ta - (ta - a), tb - (tb - b)
    al, bl = a - ah, b - bh
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    return s + (((p - (s - bb)) + (c - bb)) + err)


def _unit(gen, n, dtype):
    """n uniforms in [0, 1) of dtype, torch's uniform_real_distribution(0, 1)."""
    dtype = np.dtype(dtype)
    digits = _DIGITS.get(dtype, 24)
    raw = gen._random64(n) if digits == 53 else gen._random(n)
    mask = np.uint64((1 << digits) - 1)
    acc = np.float64 if digits == 53 else np.float32
    return (raw & mask).astype(acc) * acc(2.0 ** -digits)


def uniform(gen, shape, dtype, low=0.0, high=1.0):
    dtype = np.dtype(dtype)
    x = _unit(gen, _numel(shape), dtype)
    if low != 0 or high != 1:
        if x.dtype == np.float64:
            x = _fma64(x, float(high) - float(low), float(low))
        else:
            lo, hi = np.float32(low), np.float32(high)
            x = _fma(x, hi - lo, lo)
    return x.astype(dtype, copy=False).reshape(shape)


def _box_muller_pairs(gen, count):
    """count pairs (cos, sin) of torch's normal_distribution<double>: u1 angle, u2 radius."""
    u = _unit(gen, 2 * count, np.float64)
    u1, u2 = u[0::2], u[1::2]
    r = np.sqrt(-2.0 * _log1p(-u2).astype(np.float64))
    theta = 2.0 * math.pi * u1
    return r * np.cos(theta), r * np.sin(theta)


def _normal_serial(gen, n, mean, std):
    """One value at a time with the generator's cached second value, as torch's serial
    kernel (float64 arithmetic, the caller casts)."""
    out = np.empty(n, np.float64)
    i = 0
    if n and gen.next_double_normal is not None:
        out[0], gen.next_double_normal, i = gen.next_double_normal, None, 1
    pairs = (n - i + 1) // 2
    if pairs:
        c, s = _box_muller_pairs(gen, pairs)
        vals = np.empty(2 * pairs)
        vals[0::2], vals[1::2] = c, s
        out[i:] = vals[:n - i]
        if (n - i) % 2:
            gen.next_double_normal = float(s[-1])
    if std != 1 or mean != 0:
        out = _fma64(out, float(std), float(mean))
    return out


def _fill16_f32(u, mean, std):
    """torch's normal_fill_16_AVX2 over rows of 16 float32 uniforms."""
    u = u.reshape(-1, 16)
    radius = np.sqrt(np.float32(-2) * log_ps(np.float32(1) - u[:, :8]))
    s, c = sincos_ps(np.float32(2.0 * math.pi) * u[:, 8:])
    return np.concatenate([_fma(radius * c, std, mean), _fma(radius * s, std, mean)],
                          axis=1).ravel()


def _fill16_f64(u, mean, std):
    """torch's normal_fill_16<double> over rows of 16 float64 uniforms."""
    u = u.reshape(-1, 16)
    radius = np.sqrt(-2.0 * _log(1.0 - u[:, :8]).astype(np.float64))
    theta = 2.0 * math.pi * u[:, 8:]
    out = np.concatenate([radius * np.cos(theta), radius * np.sin(theta)], axis=1).ravel()
    return out if (std == 1 and mean == 0) else _fma64(out, float(std), float(mean))


def normal(gen, shape, dtype, mean=0.0, std=1.0, contiguous=True):
    dtype, n = np.dtype(dtype), _numel(shape)
    if dtype.itemsize == 2 and n >= 16 and n % 16 == 0 and contiguous:
        # float16 / bfloat16: torch's values are the float32 kernel's, rounded (checked for
        # whole blocks of 16; its tail for other sizes is drawn differently, and not matched)
        return normal(gen, shape, np.float32, mean, std).astype(dtype)
    if n < 16 or not contiguous or dtype not in (np.float32, np.float64):
        return _normal_serial(gen, n, mean, std).astype(dtype).reshape(shape)
    if dtype == np.float32:
        fill, mean, std = _fill16_f32, np.float32(mean), np.float32(std)
    else:
        fill = _fill16_f64
    u = _unit(gen, n, dtype)
    out = np.empty(n, dtype)
    k = n - n % 16
    out[:k] = fill(u[:k], mean, std)
    if n % 16:
        out[k:] = u[k:]
        out[n - 16:] = fill(_unit(gen, 16, dtype), mean, std)
    return out.reshape(shape)


def randint(gen, shape, low, high):
    """Integers in [low, high): torch's random_(from, to) and randint (int64 results)."""
    span, n = int(high) - int(low), _numel(shape)
    raw = gen._random64(n) if span >= 2 ** 32 else gen._random(n)
    return ((raw % np.uint64(span)).astype(np.int64) + np.int64(low)).reshape(shape)


def random_full(gen, shape, dtype):
    """random_() with no bounds: [0, 2**63) for int64 (and [0, 2**mantissa] for floats)."""
    dtype, n = np.dtype(dtype), _numel(shape)
    if dtype == np.bool_:
        return (gen._random(n) & np.uint64(1)).astype(np.bool_).reshape(shape)
    wide = dtype in (np.int64, np.float64)
    raw = gen._random64(n) if wide else gen._random(n)
    if dtype.kind == "f":
        mod = (1 << _DIGITS[dtype]) + 1
    else:
        mod = int(np.iinfo(dtype).max) + 1
    return (raw % np.uint64(mod)).astype(dtype).reshape(shape)


def randperm(gen, n):
    """torch's CPU randperm for n < 2**32 / 20: Fisher-Yates, for i in 0..n-2 swap positions
    i and k_i = i + random() % (n - i). The swaps run in numpy, not one by one (see
    _fisher_yates): the same permutation, a few times faster at n = 60000 (a DataLoader
    epoch)."""
    n = _randperm_size(n)
    if n < 2:
        return np.arange(n, dtype=np.int64)
    k = (gen._random(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64)
    return _fisher_yates(k + np.arange(n - 1), n)


def skip_randperm(gen, n):
    """Advance gen exactly as randperm(gen, n) would, without building the permutation
    (torch's RandomSampler draws one whose first 0 entries it then uses)."""
    n = _randperm_size(n)
    if n > 1:
        gen._random(n - 1)


def _randperm_size(n):
    n = int(n)
    if n >= (2 ** 32 - 1) // 20:
        raise NotImplementedError("randperm: n >= 214748364 uses torch's 64-bit path, which "
                                  "labkit does not reproduce.")
    return n


def _fisher_yates(k, n):
    """The permutation made by swapping positions i and k[i] >= i for i = 0, 1, ..., n-2.

    Read backwards: position i is final after its own swap, and then holds what position k[i]
    held just before it. Position p (> i) last received something from the latest earlier swap
    j that targeted it (k[j] == p), which moved there what position j held before swap j, V(j);
    untouched, it holds p. V(j) itself is V of the latest swap that targeted j before step j,
    or j: a chain back in time, resolved for all positions at once by pointer jumping."""
    m = n - 1
    order = np.argsort(k, kind="stable")        # swaps grouped by target, in time order
    tk = k[order]
    same = tk[1:] == tk[:-1]
    prev = np.full(m, -1, np.int64)             # the previous swap with the same target
    prev[order[1:][same]] = order[:-1][same]
    earlier = order < tk                        # swaps j that target a later position p
    tgt, src = tk[earlier], order[earlier]
    latest = np.ones(len(tgt), bool)
    latest[:-1] = tgt[:-1] != tgt[1:]
    v = np.arange(n)                            # v[p]: what position p holds before swap p
    v[tgt[latest]] = src[latest]
    while True:
        jumped = v[v]
        if np.array_equal(jumped, v):
            break
        v = jumped
    perm = np.empty(n, np.int64)
    perm[:m] = np.where(prev >= 0, v[prev], k)
    perm[m] = v[m]
    return perm


def bernoulli_scalar(gen, shape, p):
    """bernoulli_(p) for a number p: a float64 uniform < p (torch's default kernel)."""
    return _unit(gen, _numel(shape), np.float64).reshape(shape) < float(p)


def bernoulli_tensor(gen, probs):
    """bernoulli(p) for a tensor of probabilities: a uniform of p's precision < p."""
    probs = np.asarray(probs)
    dt = np.float64 if probs.dtype == np.float64 else np.float32
    return _unit(gen, probs.size, dt).reshape(probs.shape) < probs.astype(dt, copy=False)


def exponential(gen, shape, dtype, lambd=1.0):
    u = _unit(gen, _numel(shape), np.float64)
    return (-1.0 / float(lambd) * _log1p(-u).astype(np.float64)).astype(dtype).reshape(shape)


def multinomial(gen, rows, num_samples, replacement):
    """Index samples for each row of the 2-D weights `rows` (float32 or float64)."""
    n_rows, n_cat = rows.shape
    if not replacement or num_samples == 1:
        q = exponential(gen, rows.shape, rows.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            keys = rows / q
        if num_samples == 1:
            return np.argmax(keys, axis=1)[:, None].astype(np.int64)
        return np.argsort(-keys, axis=1, kind="stable")[:, :num_samples].astype(np.int64)
    out = np.empty((n_rows, num_samples), np.int64)
    for i in range(n_rows):
        cdf = np.cumsum(rows[i])                 # sequential, in the weights' precision
        cdf = cdf / cdf[-1]
        cdf[-1] = 1
        u = _unit(gen, num_samples, np.float64)
        out[i] = np.searchsorted(cdf.astype(np.float64), u, side="left")
    return out


def memory_order(arr):
    """The axes of arr from slowest to fastest in memory: a non-contiguous tensor is filled
    in the order its elements lie in memory, as torch's TensorIterator walks it."""
    strides = [abs(s) for s in arr.strides]
    return sorted(range(arr.ndim), key=lambda d: -strides[d])
