"""RMSNorm / F.rms_norm: x / sqrt(mean(x**2) + eps) over the last dims, times a learned weight
(Llama's normalisation: LayerNorm without the centring and without a bias). As torch, half
precision inputs are computed in float32 and cast back; eps=None means finfo(float32 or
float64).eps."""
from ..engine.typeinfo import finfo
from . import init
from .module import Module
from .parameter import Parameter
from ..engine.creation import empty
from ..engine.ops.scalar_ops import add_scalar


def rms_norm(input, normalized_shape, weight=None, eps=None):
    if isinstance(normalized_shape, int):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple of "
                        "ints, not int")
    shape = tuple(normalized_shape)
    k = len(shape)
    if tuple(input.shape[input.dim() - k:]) != shape or input.dim() < k:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(shape)}")
    x = input.float() if input.dtype.name in ("float16", "bfloat16") else input
    if eps is None:             # of the computing dtype: float32's for half inputs, as torch
        eps = finfo(x.dtype).eps
    dims = tuple(range(x.dim() - k, x.dim()))
    out = x * add_scalar(x.pow(2).mean(dims, keepdim=True), eps).rsqrt()   # torch: AddBackward1
    if weight is not None:
        out = out * weight
    return out.to(input.dtype)


class RMSNorm(Module):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
        self.normalized_shape = tuple(shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.register_parameter("weight", Parameter(empty(self.normalized_shape, device=device,
                                                          dtype=dtype))
                                if elementwise_affine else None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x):
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
