"""labkit: a compact autograd engine with PyTorch's API, built to be read.

    import labkit as torch   # a student's PyTorch code runs after this swap
"""
from .engine import (Device as device, Size, Tensor, enable_grad, inference_mode,  # noqa: F401
                     is_grad_enabled, no_grad, set_grad_enabled)
from .engine import is_anomaly_enabled, is_inference_mode_enabled  # noqa: F401,E402
from .engine.creation import (Generator, arange, as_tensor, empty, empty_like, eye,  # noqa: F401
                              from_numpy, full, full_like, initial_seed, linspace, manual_seed,
                              ones, ones_like, rand, rand_like, randint, randn, randn_like,
                              randperm, seed, tensor, zeros, zeros_like)
from .engine.dtype import (bool_ as bool, dtype, float16, float32, float64, int8,  # noqa: F401
                           int16, int32, int64, uint8)
from .engine.dtype import bfloat16  # noqa: F401,E402  (numpy's via ml_dtypes, loaded on first use)
from .engine.dtype import complex64, complex128  # noqa: F401,E402
cfloat, cdouble = complex64, complex128
from .engine.formats import (channels_last, channels_last_3d, contiguous_format,  # noqa: F401
                             jagged, layout, memory_format, preserve_format, sparse_bsc,
                             sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided)
from .engine.ops.complex import (angle, complex_ as complex, conj, conj_physical,  # noqa
                                 imag, is_conj, polar, real, resolve_conj, view_as_complex,
                                 view_as_real)
from .engine.ops.arithmetic import add, div, mul, neg, pow, sub  # noqa: F401
from .engine.ops.compare import (allclose, eq, equal, ge, gt, isfinite, isinf, isnan,  # noqa
                                 le, logical_and, logical_not, logical_or, logical_xor, lt, ne)
from .engine.ops.compare import (bitwise_and, bitwise_left_shift, bitwise_not,  # noqa: F401
                                 bitwise_or, bitwise_right_shift, bitwise_xor)
from .engine.ops.join import cat, chunk, concat, concatenate, split, stack  # noqa: F401
from .engine.ops.linalg import matmul, mm  # noqa: F401
from .engine.ops.reduce import (amax, amin, argmax, argmin, max, mean, min, std, sum,  # noqa
                                var)
from .engine.ops.select import maximum, minimum, where  # noqa: F401
from .engine.ops.shape import (clone, flatten, permute, reshape, squeeze, t,  # noqa: F401
                               transpose, unsqueeze)
from .engine.ops.shape import ravel, select  # noqa: F401
from .engine.ops.index import take  # noqa: F401
from .engine.ops.softmax import log_softmax, softmax  # noqa: F401
from .engine.ops.unary import (abs, clamp, cos, exp, log, relu, sigmoid, sign, sin,  # noqa
                               sqrt, tanh)
from .engine.ops.erf import erf  # noqa: F401
from .engine.ops.einsum import einsum  # noqa: F401
from .engine.ops.gather import gather, index_select, scatter, scatter_add  # noqa: F401
from .engine.ops.inplace import clamp_, masked_fill, relu_  # noqa: F401
from .engine.ops.inplace_unary import (abs_, ceil_, cos_, exp_, floor_, log_, round_,  # noqa
                                       sigmoid_, sin_, sqrt_, tanh_)
from .engine.ops.layout import (flip, fliplr, flipud, meshgrid, moveaxis, movedim,  # noqa
                                narrow, repeat_interleave, roll, swapdims,
                                tile, unbind, unflatten)
from .engine.ops.math import (acos, arccos, arcsin, arctan, arctan2, asin, atan,  # noqa
                              atan2, ceil, cosh, expm1, floor, floor_divide, frac, lerp, log1p,
                              log2, log10, reciprocal, remainder, round, rsqrt, sinh, square,
                              tan, trunc)
from .engine.ops.diag import diag, diag_embed, diagonal, trace  # noqa: F401
from .engine.ops.find import (argwhere, count_nonzero, isclose, masked_select,  # noqa
                              nonzero, where)
from .engine.ops.fused import addcdiv, addcmul, clamp_max, clamp_min, index_add  # noqa: F401
from .engine.ops.stats import median, std_mean, var_mean  # noqa: F401
from .engine.ops.norm import cdist, logsumexp, norm  # noqa: F401
from .engine.ops.compare import all, any  # noqa: F401  (torch.all(x), torch.any(x))
from .engine.ops.products import addmm, baddbmm, bmm, dot, outer  # noqa: F401
from .engine.ops.sampling import bernoulli, multinomial, normal  # noqa: F401
from .engine.generator import default_generator, get_rng_state, set_rng_state  # noqa: F401
from .engine.ops.scan import cumprod, cumsum, prod  # noqa: F401
from .engine.ops.sort import argsort, msort, sort, topk  # noqa: F401
from .engine.ops.tri import tril, triu  # noqa: F401
from .engine.defaults import (get_default_device, get_default_dtype,  # noqa: F401
                              set_default_device, set_default_dtype)
from . import autograd, cuda, nn, optim  # noqa: F401,E402
from . import amp  # noqa: F401,E402
from .amp import autocast, get_autocast_dtype, is_autocast_enabled  # noqa: F401,E402
from . import accelerator, linalg  # noqa: F401,E402
from . import fft  # noqa: F401,E402  (torch.fft)
from .engine.ops.complex_stft import istft, stft  # noqa: F401,E402
from .engine import return_types  # noqa: F401,E402  (torch.return_types)
from .engine.ops import keywords as _keywords  # noqa: E402
from .serialization import load, save  # noqa: F401,E402
from . import utils  # noqa: F401,E402  (labkit.utils.data, as torch.utils.data)
from .legacy import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor,  # noqa
                     HalfTensor, IntTensor, LongTensor, ShortTensor, range)
from .engine.ops.stats import (bincount, histc, histogram, kthvalue, mode,  # noqa: F401
                               nanmedian, nanquantile, quantile, unique)

from .version import __version__  # noqa: E402  (the torch API followed, 2.13.0)
from math import e, inf, nan, pi  # noqa: F401,E402  (torch.pi, torch.inf: python floats there too)
newaxis = None
from ._runtime import quiet_numpy_float_warnings as _quiet  # noqa: E402
_quiet()
from .engine.printing import set_printoptions  # noqa: F401,E402
from .engine.typeinfo import finfo, iinfo  # noqa: F401,E402
from .engine.ops.broadcast import broadcast_shapes, broadcast_tensors, broadcast_to  # noqa
from .engine.ops.scatter_reduce import scatter_reduce  # noqa: F401,E402
from .engine.ops.index_put import index_put  # noqa: F401,E402
divide = true_divide = div
from .engine.ops.stacking import (atleast_1d, atleast_2d, atleast_3d, column_stack,  # noqa
                                  dstack, hstack, row_stack, tensor_split, vstack)
from .engine.ops.search import bucketize, isin, searchsorted  # noqa: F401,E402
from .engine.ops.products_extra import cartesian_prod, kron, tensordot  # noqa: F401,E402
from .engine.ops.finite import diff, logaddexp, logaddexp2, nan_to_num, rot90  # noqa: F401,E402
from .engine.ops.float_parts import (frexp, isneginf, isposinf, isreal, ldexp,  # noqa
                                     ldexp_, nextafter)
from .engine.ops.integer_math import gcd, gcd_, lcm, lcm_  # noqa: F401,E402
from .engine.ops.renorm import renorm  # noqa: F401,E402
from .engine.ops.scatter_into import (diagonal_scatter, masked_scatter,  # noqa: F401,E402
                                      select_scatter, slice_scatter)
from .engine.ops.signal_windows import (bartlett_window, blackman_window,  # noqa: F401,E402
                                        hamming_window, hann_window, kaiser_window)
from .engine.ops.unravel import unravel_index  # noqa: F401,E402
from .engine.creation_asarray import asarray, frombuffer, scalar_tensor  # noqa: F401,E402
from .legacy_defaults import (get_device, is_warn_always_enabled,  # noqa: F401,E402
                              set_default_tensor_type, set_flush_denormal, set_warn_always,
                              typename)
from .nn.functional_distance import pdist  # noqa: F401,E402
from .engine.sampling_counts import binomial, poisson  # noqa: F401,E402
from .engine.ops.finite_difference import gradient  # noqa: F401,E402
from .engine.ops.linalg_solve import det, inv as inverse, logdet, slogdet  # noqa: F401,E402
from ._torch_linalg import *  # noqa: F401,F403,E402  (torch.svd, torch.qr, torch.pinverse ...)
from . import testing  # noqa: F401,E402
from ._dtype_api import can_cast, is_complex, is_floating_point, promote_types, result_type  # noqa
from .engine.ops.api_extras import (aminmax, logspace, nanmean, nansum, randint_like,  # noqa
                                    take_along_dim, tril_indices, triu_indices)
from . import random, version  # noqa: F401,E402
from .engine.ops.special_math import (copysign, deg2rad, exp2, float_power, fmax, fmin,  # noqa
                                      fmod, heaviside, hypot, logit, rad2deg, sgn, signbit,
                                      sinc, xlogy)
from .engine.ops.cumulative_extra import cummax, cummin, logcumsumexp  # noqa: F401,E402
from .engine.ops.igamma import igamma, igammac  # noqa: F401,E402
from .engine.ops.detach import detach_  # noqa: F401,E402
from ._torch_functions import *  # noqa: F401,F403,E402  (torch.multiply, torch.acosh, torch.mv ...)
from ._torch_nn_functions import *  # noqa: F401,F403,E402  (torch.layer_norm, torch.dropout ...)
from ._torch_more import *  # noqa: F401,F403,E402  (the *_copy ops, native_*, empty_strided ...)
from ._compile import compile  # noqa: F401,E402  (runs eagerly: see labkit/_compile.py)
from . import backends  # noqa: F401,E402  (labkit.distributions loads on first use)
from ._runtime import (are_deterministic_algorithms_enabled, get_num_interop_threads,  # noqa
                       get_num_threads, is_deterministic_algorithms_warn_only_enabled,
                       set_num_interop_threads, set_num_threads, use_deterministic_algorithms)
from ._runtime import get_float32_matmul_precision, set_float32_matmul_precision  # noqa: F401,E402
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16
clip = clamp
_keywords.install(globals(), _keywords.FUNCTIONS)  # input=, other=, axis=, keepdims=, out=
_keywords.install_table(globals(), "torch")       # torch's other names (torch_signatures.txt)
_keywords.install_table(None, "Tensor")
_keywords.install_table(vars(nn.functional), "F")
_keywords.install_table(vars(linalg), "linalg")


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(x):
    return x.numel()


def __getattr__(name):
    """labkit.viz loads on first use (it needs graphviz, ipywidgets and matplotlib); so do
    labkit.jit and labkit.onnx (the exporter needs the onnx package)."""
    if name in ("viz", "jit", "onnx", "bench", "func", "export", "distributed", "profiler",
                "special", "distributions", "_dynamo", "_inductor", "multiprocessing"):
        import importlib
        return importlib.import_module("." + name, __name__)
    if name == "cond":                    # the explicit branch op of labkit.export
        from .export import cond
        return cond
    if name == "vmap":                    # torch.vmap is torch.func.vmap
        from .func import vmap
        return vmap
    import sys
    from .engine.unsupported import missing   # a torch API labkit lacks is named as such
    raise missing("torch", name, sys.modules[__name__])
