"""labkit.utils.benchmark: torch.utils.benchmark's Timer, Measurement and Compare, built on
labkit.bench (one timing core: warm-up, device synchronization, per-call seconds).

    t = Timer("x @ x", globals={"x": x}, label="matmul", description="n=512")
    m = t.blocked_autorange(min_run_time=0.2)    # Measurement: median, mean, iqr
    Compare([m, ...]).print()                     # one table per label
"""
from .common import Measurement, TaskSpec, select_unit
from .compare import Compare, Colorize
from .timer import Timer

__all__ = ["Colorize", "Compare", "Measurement", "TaskSpec", "Timer", "select_unit"]
