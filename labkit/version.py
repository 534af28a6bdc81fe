"""torch.version: what build this is. labkit has no CUDA or ROCm build of its own (a GPU, when
there is one, is CuPy's)."""
__version__ = "0.1.0"
cuda = None
hip = None
debug = False
git_version = "unknown"
