"""x.renorm(p, dim, maxnorm): every slice along dim whose p-norm exceeds maxnorm is scaled down
to norm maxnorm (the max-norm constraint on each unit's weights, from the dropout paper);
slices within the bound stay as they are. Written with differentiable ops, so its gradient
(through the norm as well) is torch's."""
from ..tensor import tensor_method


def _check(input, p, dim, maxnorm):
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported (p = {p})")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} "
                           "dimensions")
    if not -input.dim() <= dim < input.dim():
        raise IndexError(f"renorm: Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {dim})")
    if not input.is_floating_point():
        raise RuntimeError(f"renorm: expected a floating point tensor, got {input.dtype}")


@tensor_method("renorm")
def renorm(input, p, dim, maxnorm):
    _check(input, p, dim, maxnorm)
    dim = dim % input.dim()
    others = tuple(d for d in range(input.dim()) if d != dim)
    norm = input.norm(p, dim=others, keepdim=True)
    scale = (maxnorm / (norm + 1e-7)).where(norm > maxnorm, norm.new_ones(()))
    return input * scale


@tensor_method("renorm_")
def renorm_(input, p, dim, maxnorm):
    return input.copy_(renorm(input.clone(), p, dim, maxnorm))
