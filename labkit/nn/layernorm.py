"""LayerNorm: normalise each example over its last dims (the transformer's normaliser)."""
from ..engine.creation import ones, zeros
from .module import Module
from .parameter import Parameter


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """(x - mean) / sqrt(var + eps) over the last len(normalized_shape) dims (biased var, as
    torch), then * weight + bias. Unlike batch norm it needs no batch and no running stats."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"layer_norm: normalized_shape {list(shape)} does not match the last "
                           f"dims of the input, shape {tuple(input.shape)}.")
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    mean = input.mean(dims, keepdim=True)
    var = input.var(dims, keepdim=True, correction=0)
    out = (input - mean) / (var + eps).sqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


class LayerNorm(Module):
    """layer_norm with learnable weight (ones) and bias (zeros) of normalized_shape."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
            tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ones(*shape, device=device, dtype=dtype))
            self.bias = Parameter(zeros(*shape, device=device, dtype=dtype)) if bias else None
        else:
            self.weight = self.bias = None

    def forward(self, input):
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")
