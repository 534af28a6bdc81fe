"""More torch.X functions: the *_copy forms of the view ops (the same values as a new tensor,
differentiable), empty_strided / empty_permuted, the torch.X forms of nn.functional ops with
ATen's signatures (dropout(input, p, train) and its variants, max_pool3d, ctc_loss with an int
reduction ...), the native_* ops that return torch's tuples (native_layer_norm's mean and
rstd ...), frobenius_norm / nuclear_norm, index_reduce, lu_solve, i0, and global switches
(set_anomaly_enabled, the deterministic debug mode)."""
import warnings

from .engine.creation_more import empty_permuted, empty_strided  # noqa: F401
from .engine.ops.bessel import i0, i0_  # noqa: F401
from .engine.tensor import Tensor
from .nn import functional as F


def _tensor(fn, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _fresh(t):
    """A new, contiguous tensor with t's values and t's place in the graph."""
    from .engine.formats import contiguous_format
    return t.clone(memory_format=contiguous_format)


# --- the *_copy forms of the view ops ------------------------------------------------------

def _copy_of(view):
    def fn(input, *args, **kwargs):
        _tensor(fn.__name__, input)
        out = view(input, *args, **kwargs)
        if isinstance(out, (tuple, list)):
            return tuple(_fresh(o) for o in out)
        return _fresh(out)
    fn.__name__ = fn.__qualname__ = view.__name__ + "_copy"
    fn.__doc__ = (f"torch.{view.__name__}'s result as a new tensor (its own memory, "
                  f"contiguous) rather than a view of input; differentiable as the view is.")
    return fn


def _alias(input):
    return input.view(input.shape)


def _detach(input):
    return input.detach()


def _diagonal(input, offset=0, dim1=0, dim2=1):
    return input.diagonal(offset, dim1, dim2)


def _expand(input, size, *, implicit=False):
    return input.expand(*size)


def _permute(input, dims):
    return input.permute(*dims)


def _select(input, dim, index):
    return input.select(dim, index)


def _slice(input, dim=0, start=None, end=None, step=1):
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    index = [slice(None)] * input.dim()
    index[dim] = slice(start, end, step)
    return input[tuple(index)]


def _split(input, split_size, dim=0):
    return input.split(split_size, dim)


def _split_with_sizes(input, split_sizes, dim=0):
    return input.split(list(split_sizes), dim)


def _squeeze(input, dim=None):
    return input.squeeze() if dim is None else input.squeeze(dim)


def _t(input):
    return input.t()


def _transpose(input, dim0, dim1):
    return input.transpose(dim0, dim1)


def _unbind(input, dim=0):
    return input.unbind(dim)


def _unfold(input, dimension, size, step):
    return input.unfold(dimension, size, step)


def _unsqueeze(input, dim):
    return input.unsqueeze(dim)


def _view(input, size):
    from .engine.dtype import dtype as _dtype
    if isinstance(size, _dtype):
        return input.view(size)
    return input.view(*size) if isinstance(size, (tuple, list)) else input.view(size)


def _as_strided(input, size, stride, storage_offset=None):
    return input.as_strided(size, stride, storage_offset)


def _view_as_real(input):
    from .engine.ops.complex import view_as_real
    return view_as_real(input)


def _view_as_complex(input):
    from .engine.ops.complex import view_as_complex
    return view_as_complex(input)


def _narrow(input, dim, start, length):
    return input.narrow(dim, start, length)


_VIEWS = {"alias": _alias, "detach": _detach, "diagonal": _diagonal, "expand": _expand,
          "permute": _permute, "select": _select, "slice": _slice, "split": _split,
          "split_with_sizes": _split_with_sizes, "squeeze": _squeeze, "t": _t,
          "transpose": _transpose, "unbind": _unbind, "unfold": _unfold,
          "unsqueeze": _unsqueeze, "view": _view, "as_strided": _as_strided,
          "view_as_real": _view_as_real, "view_as_complex": _view_as_complex,
          "narrow": _narrow}
for _name, _view_fn in _VIEWS.items():
    _view_fn.__name__ = _name
    globals()[_name + "_copy"] = _copy_of(_view_fn)


def adjoint(input):
    _tensor("adjoint", input)
    return input.adjoint()


def resolve_neg(input):
    """input itself: labkit has no lazy negation bit, so nothing is ever left to resolve."""
    _tensor("resolve_neg", input)
    return input


def is_inference(input):
    _tensor("is_inference", input)
    return input.is_inference()


# --- torch.X forms of nn.functional ops (ATen's signatures) -----------------------------------

def _train(train):
    return True if train is None else bool(train)


def dropout_(input, p, train):
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def feature_dropout(input, p, train):
    """Zero whole channels (dims 0 and 1 pick one; the rest share its fate), as F.dropout2d
    does, for any rank of at least 2."""
    from .nn.functional_dropout import _feature_dropout
    return _feature_dropout(input, p, train, False)


def feature_dropout_(input, p, train):
    from .nn.functional_dropout import _feature_dropout
    return _feature_dropout(input, p, train, True)


def celu_(input, alpha=1.0):
    return F.celu_(input, alpha)


def selu_(input):
    return F.selu_(input)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    if generator is not None:
        raise NotImplementedError("labkit's rrelu draws from the global generator; pass "
                                  "generator=None")
    return F.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    if generator is not None:
        raise NotImplementedError("labkit's rrelu_ draws from the global generator; pass "
                                  "generator=None")
    return F.rrelu_(input, lower, upper, training)


def channel_shuffle(input, groups):
    return F.channel_shuffle(input, groups)


def native_channel_shuffle(input, groups):
    return F.native_channel_shuffle(input, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return F.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


def _stride(stride):
    return None if stride in ((), []) else stride


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    return F.max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation,
                                     ceil_mode)


def adaptive_max_pool1d(input, output_size):
    """(values, indices), as torch.adaptive_max_pool1d gives both."""
    return F.adaptive_max_pool1d_with_indices(input, output_size)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """F.ctc_loss with ATen's int reduction (0 none, 1 mean, 2 sum; omitted, none, as torch's
    binding gives it); the lengths may be lists or tensors."""
    from ._torch_nn_functions import _reduction
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _reduction(reduction), zero_infinity)


# --- the native_* ops: torch's tuples --------------------------------------------------------

def native_dropout(input, p, train):
    """(output, mask): the kept elements scaled by 1/(1-p) and the bool mask of what was kept
    (the same draw as torch.dropout's); not training, (a copy, all True). train=None trains,
    as in torch, whose gradient then leaves out the 1/(1-p) scale (torch's derivative
    formula scales by 1 unless train is given as True): labkit's does the same."""
    from .engine.creation import ones_like
    if train is not None and not train or p == 0:
        return input.clone(), ones_like(input, dtype=_bool())
    if p == 1:
        from .engine.creation import zeros_like
        return input * 0, zeros_like(input, dtype=_bool())
    from .nn.functional import _keep_mask
    scaled = _keep_mask(input, input.shape, p)
    mask = scaled != 0
    if train is None:
        return _ScaledDropout.apply(input, scaled, mask.to(input.dtype)), mask
    return input * scaled, mask


def _scaled_dropout():
    from .engine.function import Function

    class NativeDropout(Function):
        node_name = "NativeDropoutBackward0"

        @staticmethod
        def forward(ctx, x, scaled, mask):
            ctx.save_for_backward(mask)
            return x._data * scaled._data

        @staticmethod
        def backward(ctx, grad):
            (mask,) = ctx.saved_tensors
            return grad * mask, None, None
    return NativeDropout


_ScaledDropout = _scaled_dropout()


def _bool():
    from .engine.dtype import bool_
    return bool_


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(output, mean, rstd): F.layer_norm's output, and the mean and 1/sqrt(var + eps) of each
    normalised group, shaped input.shape[:-k] + (1,) * k (not differentiable)."""
    shape = tuple(normalized_shape)
    out = F.layer_norm(input, shape, weight, bias, eps)
    mean, rstd = _stats(input, tuple(range(input.dim() - len(shape), input.dim())), eps)
    return out, mean, rstd


def _stats(input, dims, eps, keepdim=True):
    from .engine.grad_mode import no_grad
    with no_grad():
        x = input.detach()
        acc = x if x.dtype.itemsize >= 4 else x.float()
        if x.numel() == 0:
            mean = acc.sum(dims, keepdim=keepdim)
            return mean, mean
        mean = acc.mean(dims, keepdim=keepdim)
        var = acc.var(dims, keepdim=keepdim, correction=0)
        return mean, (var + eps).rsqrt()


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(output, save_mean, save_invstd): F.batch_norm's output (running statistics updated in
    place when training), and the batch's per-channel mean and 1/sqrt(biased var + eps);
    both empty (shape (0,)) in evaluation, as torch gives them."""
    out = F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        from .engine.creation import empty
        return out, empty(0, dtype=input.dtype, device=input.device), \
            empty(0, dtype=input.dtype, device=input.device)
    dims = (0,) + tuple(range(2, input.dim()))
    mean, invstd = _stats(input, dims, eps, keepdim=False)
    return out, mean, invstd


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(output, mean, rstd): F.group_norm's output and each (example, group)'s mean and
    1/sqrt(var + eps), shaped (N, group)."""
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expected input to have {N * C * HxW} elements (N * C * HxW = "
                           f"{N} * {C} * {HxW}), but got {input.numel()}")
    out = F.group_norm(input, group, weight, bias, eps)
    g = input.reshape(N, group, -1)             # torch's mean and rstd are differentiable here
    mean = g.mean(2)
    return out, mean, (g.var(2, correction=0) + eps).rsqrt()


# --- norms, index_reduce, lu_solve ----------------------------------------------------------

_WARNED = set()


def _warn_once(name, message):
    """torch's TORCH_WARN_ONCE: the first call in the process warns."""
    if name not in _WARNED:
        _WARNED.add(name)
        warnings.warn(message, UserWarning, stacklevel=3)


def frobenius_norm(input, dim, keepdim=False):
    """sqrt of the sum of squares over dim (one or two dims): linalg.vector_norm(input, 2,
    dim, keepdim), torch's deprecated name for it (it warns, as torch does)."""
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions "
                           f"instead.")
    _warn_once("frobenius_norm", "at::frobenius_norm is deprecated and it is just left for JIT "
               "compatibility. It will be removed in a future PyTorch release. Please use "
               "`linalg.vector_norm(A, 2., dim, keepdim)` instead")
    from . import linalg
    return linalg.vector_norm(input, 2, dims, keepdim)


def nuclear_norm(input, dim=None, keepdim=False):
    """The sum of the singular values (of each matrix in the last two dims, or in dim):
    linalg.matrix_norm(input, 'nuc', dim, keepdim), torch's deprecated name for it (it warns
    once, as torch does)."""
    if isinstance(dim, bool):           # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    _warn_once("nuclear_norm", "at::nuclear_norm is deprecated and it is just left for JIT "
               "compatibility. It will be removed in a future PyTorch release. Please use "
               "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    from . import linalg
    return linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    _tensor("index_reduce", input)
    return input.index_reduce(dim, index, source, reduce, include_self=include_self)


def lu_solve(input, LU_data, LU_pivots):
    _tensor("lu_solve", input)
    return input.lu_solve(LU_data, LU_pivots)


# --- global switches ---------------------------------------------------------------------------

def set_anomaly_enabled(enabled, check_nan=True):
    """Turn anomaly detection on or off for good (torch.autograd.set_detect_anomaly's
    switch without the context)."""
    from .engine.autograd import set_detect_anomaly
    set_detect_anomaly(enabled, check_nan)


def is_anomaly_check_nan_enabled():
    from .engine import autograd
    return autograd.is_anomaly_check_nan_enabled()


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """0 / "default": nondeterministic algorithms allowed; 1 / "warn": they warn; 2 / "error":
    they raise (use_deterministic_algorithms(True, warn_only=...))."""
    from ._runtime import use_deterministic_algorithms
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode == 0:
        use_deterministic_algorithms(False)
    elif debug_mode == 1:
        use_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        use_deterministic_algorithms(True)
    else:
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")


def get_deterministic_debug_mode():
    from ._runtime import (are_deterministic_algorithms_enabled,
                           is_deterministic_algorithms_warn_only_enabled)
    if are_deterministic_algorithms_enabled():
        return 1 if is_deterministic_algorithms_warn_only_enabled() else 2
    return 0


from .engine.memory import OutOfMemoryError  # noqa: E402,F401  (torch.OutOfMemoryError)
__all__ = ([n + "_copy" for n in _VIEWS] + [
    "empty_strided", "empty_permuted", "i0", "i0_", "adjoint", "resolve_neg", "is_inference",
    "dropout_", "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout",
    "feature_alpha_dropout_", "feature_dropout", "feature_dropout_", "celu_", "selu_", "rrelu",
    "rrelu_", "channel_shuffle", "native_channel_shuffle", "conv_transpose1d", "max_pool3d",
    "max_pool1d_with_indices", "adaptive_max_pool1d", "ctc_loss", "native_dropout",
    "native_layer_norm", "native_batch_norm", "native_group_norm", "frobenius_norm",
    "nuclear_norm", "index_reduce", "lu_solve", "set_anomaly_enabled",
    "is_anomaly_check_nan_enabled", "set_deterministic_debug_mode",
    "get_deterministic_debug_mode", "OutOfMemoryError"])
