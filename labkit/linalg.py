"""labkit.linalg, as torch.linalg: norms (vector_norm, matrix_norm, norm)."""
from .engine.ops.norm import linalg_norm as norm, matrix_norm, vector_norm  # noqa: F401

__all__ = ["norm", "vector_norm", "matrix_norm"]
