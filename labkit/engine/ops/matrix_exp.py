"""The matrix exponential exp(A) = sum_k A^k / k! (torch.matrix_exp / linalg.matrix_exp).

Scaling and squaring: exp(A) = exp(A / 2^s)^(2^s), with s chosen so that ||A / 2^s||_1 <= 1/2,
where a degree-18 Taylor polynomial is exact to float64 rounding (1/2^19 / 19! ~ 1e-23). Written
with matmuls, so autograd differentiates it (to any order) without a formula of its own; s is
picked from the values, a step the gradient does not see (as torch's choice of Pade degree).
"""
import math

from ..tensor import Tensor, tensor_method

_DEGREE = 18
_DTYPE_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "int64": "Long", "int32": "Int",
                "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


@tensor_method("matrix_exp")
def matrix_exp(A):
    """exp of each square matrix in A (..., n, n)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"matrix_exp(): argument 'input' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 "
                           "dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they "
                           f"are {A.shape[-2]} by {A.shape[-1]} matrices")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as "
                           f"input. Got {_DTYPE_NAMES.get(A.dtype.name, A.dtype.name)}")
    n = A.shape[-1]
    if A.numel() == 0:
        return A.clone()
    norm = float(A.detach().abs().sum(-2).amax())          # the largest 1-norm in the batch
    s = max(0, math.ceil(math.log2(norm)) + 1) if norm > 0 and math.isfinite(norm) else 0
    X = A / 2.0 ** s
    eye = A.new_zeros(n, n)
    eye.fill_diagonal_(1)
    result, term = eye, eye
    for k in range(1, _DEGREE + 1):
        term = (term @ X) / k
        result = result + term
    for _ in range(s):
        result = result @ result
    return result
