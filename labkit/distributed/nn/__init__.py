"""labkit.distributed.nn: collectives that autograd differentiates (torch.distributed.nn)."""
from . import functional  # noqa: F401  (labkit.distributed.nn.functional.all_reduce)
