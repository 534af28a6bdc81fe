"""The linear-algebra names torch keeps at top level (torch.svd with some=, torch.qr,
torch.pinverse, torch.matrix_exp, torch.cholesky_inverse, ...), beside torch.linalg's."""
from .engine.ops.linalg_decomp import qr_legacy as qr, svd_legacy as svd  # noqa: F401
from .engine.ops.linalg_lu import lu_legacy as lu, lu_unpack  # noqa: F401
from .engine.ops.linalg_matrix_fn import matrix_exp, matrix_power  # noqa: F401
from .engine.ops.linalg_pinv import pinverse  # noqa: F401
from .engine.ops.linalg_products import cholesky, cholesky_solve, triangular_solve  # noqa: F401
from .engine.ops.linalg_triangular import cholesky_inverse  # noqa: F401

__all__ = ["qr", "svd", "matrix_exp", "matrix_power", "pinverse", "cholesky", "cholesky_solve",
           "triangular_solve", "cholesky_inverse", "lu", "lu_unpack"]
