"""labkit.linalg, as torch.linalg: norms (vector_norm, matrix_norm, norm) and, with gradients,
inv, solve, det, slogdet, cholesky, eigh, eigvalsh, solve_triangular, and the _ex forms."""
from .engine.ops.norm import linalg_norm as norm, matrix_norm, vector_norm  # noqa: F401
from .engine.ops.linalg_solve import (cholesky, det, eigh, eigvalsh, inv, slogdet,  # noqa: F401
                                      solve)
from .engine.ops.linalg_triangular import cholesky_ex, inv_ex, solve_triangular  # noqa: F401

__all__ = ["norm", "vector_norm", "matrix_norm", "inv", "solve", "det", "slogdet", "cholesky",
           "eigh", "eigvalsh", "solve_triangular", "cholesky_ex", "inv_ex"]
