"""labkit.utils: helpers around the engine, as in torch.utils (data loading)."""
from . import checkpoint, data  # noqa: F401
from .swap import swap_tensors  # noqa: F401
