"""torch.nn.attention's kernel chooser: SDPBackend and the sdpa_kernel context manager.

torch picks among several fused kernels (flash, memory-efficient, cuDNN, plain math) for
F.scaled_dot_product_attention; programs pin one with `with sdpa_kernel(SDPBackend.MATH):`.
labkit has exactly one kernel, the math one (matmul, softmax, matmul), so any choice gives the
same numbers and the context changes nothing; it still checks its argument as torch does.
"""
import contextlib
import enum


class SDPBackend(enum.IntEnum):
    """torch's backend names, with torch's values."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Run the block with only these attention backends allowed (labkit: always math)."""
    listed = backends if isinstance(backends, list) else [backends]
    if not all(isinstance(b, SDPBackend) for b in listed):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend "
                             f"instances, got {type(backends).__name__}")
    yield
