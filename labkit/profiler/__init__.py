"""labkit.profiler (torch.profiler): profile, record_function, schedule, ProfilerActivity."""
from .profiler import ProfilerAction, ProfilerActivity, profile, schedule  # noqa: F401
from .record import record_function  # noqa: F401
