"""cov and corrcoef of the rows of a matrix (variables) over its columns (observations), with
torch's correction, fweights and aweights; dist, the p-norm of a difference."""
from ..tensor import Tensor, tensor_method


@tensor_method("cov")
def cov(input, *, correction=1, fweights=None, aweights=None):
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                         f"input with {input.dim()} dimensions")
    from .complex_guard import refuse_complex
    refuse_complex("cov", input, torch_has=True)
    x = input.reshape(1, -1) if input.dim() < 2 else input
    if not x.dtype.is_floating_point:
        x = x.float()
    n = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.dtype.is_floating_point:
            raise RuntimeError("cov(): expected fweights to have integral dtype")
        if fweights.dim() > 1 or fweights.shape[0] != n:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are "
                               f"observations in the input but got {fweights.numel()} != {n}")
        if bool((fweights < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        if not aweights.dtype.is_floating_point:
            raise RuntimeError("cov(): expected aweights to have floating point dtype")
        if aweights.dim() > 1 or aweights.shape[0] != n:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are "
                               f"observations in the input but got {aweights.numel()} != {n}")
        if bool((aweights < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    if w is None:
        total = float(n)
        avg = x.mean(1) if n else x.sum(1) * float("nan")
        norm = total - correction
    else:
        w = w.to(x.dtype)
        total = w.sum()
        avg = (x * w).sum(1) / total
        if correction == 0:
            norm = total
        elif aweights is None:
            norm = total - correction
        else:
            norm = total - correction * (w * aweights.to(x.dtype)).sum() / total
    if not isinstance(norm, Tensor) and norm <= 0:
        import warnings
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm = 0.0
    elif isinstance(norm, Tensor):
        norm = norm.clamp_min(0)
    xm = x - avg.unsqueeze(1)
    c = (xm * w if w is not None else xm).matmul(xm.t()) / norm
    return c.squeeze()


@tensor_method("corrcoef")
def corrcoef(input):
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got "
                         f"an input with {input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    s = d.sqrt()
    c = c / s.unsqueeze(1)
    c = c / s.unsqueeze(0)
    return c.clamp(-1, 1)


@tensor_method("dist")
def dist(input, other, p=2):
    """||input - other||_p (broadcasting), a 0-d tensor."""
    return (input - other).norm(p=p)
