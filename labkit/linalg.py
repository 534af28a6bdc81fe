"""labkit.linalg, as torch.linalg: norms, solvers, decompositions (cholesky, eigh, svd, qr),
least squares and rank (lstsq, pinv, matrix_rank, cond), matrix functions (matrix_exp,
matrix_power), products (cross, vecdot, multi_dot, matmul) -- each with torch's gradient."""
from .engine.ops.linalg import matmul  # noqa: F401
from .engine.ops.complex_linalg import eig, eigvals  # noqa: F401
from .engine.ops.linalg_decomp import qr, svd, svdvals  # noqa: F401
from .engine.ops.linalg_lu import lu, lu_factor, lu_factor_ex, lu_solve  # noqa: F401
from .engine.ops.linalg_matrix_fn import matrix_exp, matrix_power  # noqa: F401
from .engine.ops.linalg_pinv import cond, lstsq, matrix_rank, pinv  # noqa: F401
from .engine.ops.linalg_products import (cross, diagonal, householder_product, multi_dot, solve_ex, tensorinv,  # noqa: F401
                                         tensorsolve, vander, vecdot)
from .engine.ops.linalg_solve import (cholesky, det, eigh, eigvalsh, inv, slogdet,  # noqa: F401
                                      solve)
from .engine.ops.linalg_triangular import cholesky_ex, inv_ex, solve_triangular  # noqa: F401
from .engine.ops.norm import linalg_norm as norm, matrix_norm, vector_norm  # noqa: F401
from .engine.ops.linalg_solve import LinAlgError  # noqa: F401


__all__ = ["norm", "vector_norm", "matrix_norm", "inv", "inv_ex", "solve", "solve_ex", "det",
           "slogdet", "cholesky", "cholesky_ex", "eig", "eigvals", "eigh", "eigvalsh", "solve_triangular", "svd",
           "svdvals", "qr", "matrix_exp", "matrix_power", "pinv", "lstsq", "matrix_rank", "cond",
           "cross", "vecdot", "multi_dot", "tensorinv", "tensorsolve", "vander", "diagonal",
           "matmul", "LinAlgError", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
           "householder_product"]
