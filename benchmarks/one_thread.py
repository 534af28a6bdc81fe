"""Imported first by benchmarks that compare one thread with one thread: this machine's 2 cores
are shared, and more BLAS or torch threads only wait on each other (up to 100x slower)."""
import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")   # before numpy loads

try:
    import torch as _torch
    _torch.set_num_threads(1)
except ImportError:
    pass
