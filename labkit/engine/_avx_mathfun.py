"""float32 log and sincos exactly as torch's CPU randn computes them (avx_mathfun.h).

For a contiguous float32 tensor of 16 or more elements torch's normal_ runs an AVX2 kernel
whose log and sin/cos are Julien Pommier's Cephes polynomials, not the C library's; to print
torch's numbers labkit evaluates the same polynomials in the same order in float32. The
compiler fuses some multiply-adds into FMA instructions; `_fma` reproduces those (the product
of two float32 is exact in float64, so one rounding to float32 follows, as in the hardware).
"""
import numpy as np

f32, i32 = np.float32, np.int32


def _fma(a, b, c):
    """a * b + c rounded once to float32."""
    return (np.asarray(a, np.float64) * np.float64(b) + np.asarray(c, np.float64)).astype(f32)


_LOG_P = [f32(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                           -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                           2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)]


def log_ps(x):
    """log256_ps for positive float32 x."""
    x = np.maximum(x, np.array(0x00800000, i32).view(f32))
    bits = x.view(i32)
    e = ((bits.view(np.uint32) >> 23).astype(i32) - 0x7F).astype(f32) + f32(1)
    x = ((bits & i32(~0x7F800000)) | np.array(0.5, f32).view(i32)).view(f32)
    small = x < f32(0.707106781186547524)
    tmp = np.where(small, x, f32(0))
    x = x - f32(1)
    e = e - small.astype(f32)
    x = x + tmp
    z = x * x
    y = np.full_like(x, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = _fma(y, x, p)
    y = y * x
    y = _fma(y, z, e * f32(-2.12194440e-4))
    y = y - z * f32(0.5)
    x = x + y
    return _fma(e, f32(0.693359375), x)


def sincos_ps(x):
    """sincos256_ps: (sin x, cos x) for float32 x."""
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = ((x * f32(1.27323954473516)).astype(i32) + 1) & ~1
    y = j.astype(f32)
    sign_sin = sign_sin ^ ((j & 4) != 0)
    sign_cos = (~(j - 2) & 4) != 0
    first = (j & 2) == 0
    x = _fma(y, f32(-0.78515625), x)
    x = _fma(y, f32(-2.4187564849853515625e-4), x)
    x = _fma(y, f32(-3.77489497744594108e-8), x)
    z = x * x
    yc = _fma(np.full_like(x, f32(2.443315711809948E-005)), z, f32(-1.388731625493765E-003))
    yc = _fma(yc, z, f32(4.166664568298827E-002))
    yc = _fma(yc * z, z, -(z * f32(0.5))) + f32(1)
    ys = _fma(np.full_like(x, f32(-1.9515295891E-4)), z, f32(8.3321608736E-3))
    ys = _fma(ys, z, f32(-1.6666654611E-1))
    ys = _fma(ys * z, x, x)
    s, c = np.where(first, ys, yc), np.where(first, yc, ys)
    return np.where(sign_sin, -s, s), np.where(sign_cos, -c, c)
