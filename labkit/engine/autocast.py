"""Autocast's cast at an op's entry point: what labkit.autocast turns on (labkit/amp).

torch decides per op and per device what an op computes in while autocast is on:
  lower  -> the autocast dtype (float16 / bfloat16): matmul, linear, conv ... (tensor cores)
  fp32   -> float32: losses, and on cuda exp/log, softmax, norms (range and accuracy matter)
  promote-> the widest floating dtype among the inputs (cat, stack ...: mixed inputs agree)
Only floating tensors on the autocast device that are not float64 are cast, as torch's
`is_eligible`. The policies below are torch 2.x's lists (aten/src/ATen/autocast_mode.cpp) for
the ops labkit has; an op not listed runs in whatever dtype its inputs have.
"""
import functools
import threading

from .tensor import Tensor

L, F32, P, BAN = "lower", "fp32", "promote", "banned"

# op: (cpu policy, cuda policy); None means "not in that device's list"
POLICIES = {
    "matmul": (L, L), "mm": (L, L), "bmm": (L, L), "addmm": (L, L), "baddbmm": (L, L),
    "linear": (L, L), "conv1d": (L, L), "conv2d": (L, L), "conv_transpose2d": (L, L),
    "prelu": (L, L), "scaled_dot_product_attention": (L, L), "einsum": (L, L),
    "dot": (None, P), "cat": (P, None), "stack": (P, None),
    "mse_loss": (F32, F32), "l1_loss": (F32, F32), "smooth_l1_loss": (F32, F32),
    "huber_loss": (F32, F32), "nll_loss": (F32, F32), "cross_entropy": (F32, F32),
    "kl_div": (F32, F32), "binary_cross_entropy_with_logits": (F32, F32),
    "binary_cross_entropy": (F32, BAN), "cdist": (F32, F32), "prod": (F32, F32),
    "softmax": (None, F32), "log_softmax": (None, F32), "logsumexp": (None, F32),
    "layer_norm": (None, F32), "group_norm": (None, F32),
}


class _State(threading.local):
    """Per thread, as torch's: {device type: numpy dtype} for each enabled autocast region."""

    def __init__(self):
        self.dtypes = {}


state = _State()


def _eligible(x, device_type):
    return (isinstance(x, Tensor) and x.device.type == device_type
            and x._data.dtype.kind in "fV" and x._data.dtype.itemsize != 8)


def _device_type(args):
    for a in args:
        if isinstance(a, Tensor):
            return a.device.type
        if isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, Tensor):
                    return b.device.type
    return None


def _flat(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from a
        else:
            yield a


def _cast_args(name, args, kwargs):
    device_type = _device_type(tuple(args) + tuple(kwargs.values()))
    target = state.dtypes.get(device_type)
    if target is None:
        return args, kwargs
    policy = POLICIES[name][device_type == "cuda"]
    if policy is None:
        return args, kwargs
    if policy == BAN:
        raise RuntimeError(
            f"{name} is unsafe to autocast on cuda (as in torch): its float16 result can "
            "underflow to exactly 0 or 1 and the log then gives -inf. Use "
            "binary_cross_entropy_with_logits (nn.BCEWithLogitsLoss), which is safe, or run "
            "this op outside autocast on float32 inputs.")
    if policy == F32:
        import numpy as np
        target = np.dtype("float32")
    elif policy == P:
        from .promotion import PROMOTE
        dts = [a._data.dtype for a in _flat(args) if _eligible(a, device_type)]
        if not dts:
            return args, kwargs
        if any(d.itemsize == 2 and d != target for d in dts):
            raise RuntimeError(
                f"{name} under autocast({device_type}, {target.name}): an input is "
                f"{[d for d in dts if d.itemsize == 2 and d != target][0].name}, which autocast "
                "cannot promote with it (as in torch). Convert that input to float32 or to the "
                "autocast dtype first.")
        target = functools.reduce(lambda x, y: PROMOTE[x, y], dts)

    def cast(a):
        if isinstance(a, (list, tuple)):
            return type(a)(cast(b) for b in a)
        if _eligible(a, device_type) and a._data.dtype != target:
            return a.to(target)
        return a
    return tuple(cast(a) for a in args), {k: cast(v) for k, v in kwargs.items()}


def autocast_op(name):
    """Decorate an op's entry point: while an autocast region is on, its tensor arguments are
    cast by the op's policy for their device first. Off, the cost is one dict test."""
    if name not in POLICIES:
        raise KeyError(f"autocast_op: {name!r} has no policy in labkit.engine.autocast.POLICIES")

    def deco(fn):
        @functools.wraps(fn)
        def op(*args, **kwargs):
            if state.dtypes:
                args, kwargs = _cast_args(name, args, kwargs)
            return fn(*args, **kwargs)
        return op
    return deco
