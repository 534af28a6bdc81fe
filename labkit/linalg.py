"""labkit.linalg, as torch.linalg: norms (vector_norm, matrix_norm, norm) and, with gradients,
inv, solve, det, slogdet, cholesky, eigh, eigvalsh."""
from .engine.ops.norm import linalg_norm as norm, matrix_norm, vector_norm  # noqa: F401
from .engine.ops.linalg_solve import (cholesky, det, eigh, eigvalsh, inv, slogdet,  # noqa: F401
                                      solve)
from .engine.ops.matrix_exp import matrix_exp  # noqa: F401

__all__ = ["norm", "vector_norm", "matrix_norm", "inv", "solve", "det", "slogdet", "cholesky",
           "eigh", "eigvalsh", "matrix_exp"]
