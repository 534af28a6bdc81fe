"""torch.backends: the switches programs flip in their seeding preamble
(`torch.backends.cudnn.deterministic = True`, `benchmark = False`) and the checks of
device-agnostic code (`torch.backends.mps.is_available()`).

labkit has no cuDNN, no MPS and no oneDNN: the flags are plain attributes a program may set and
read back, and they change nothing, because labkit's kernels are numpy's (CuPy's on a GPU), which
already give the same numbers run after run.
"""
from . import cpu, cuda, cudnn, mkldnn, mps  # noqa: F401
