"""torch._inductor: only its config flags (labkit's torch.compile runs eagerly)."""
from . import config  # noqa: F401
