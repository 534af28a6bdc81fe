"""torch.autograd.profiler: the older profiler API (profile(use_cuda=...), record_function),
as the autograd tutorials use it. It is labkit.profiler underneath: the same probes, events and
key_averages().table()."""
from ..profiler.profiler import ProfilerActivity, profile as _profile
from ..profiler.record import record_function  # noqa: F401


class profile(_profile):
    """with torch.autograd.profiler.profile() as prof: ... ; prof.key_averages().table().
    enabled=False makes the block a no-op (a flag to switch profiling off in place)."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        cuda = use_cuda or (use_device is not None and str(use_device).startswith("cuda"))
        super().__init__(activities=[ProfilerActivity.CPU] + ([ProfilerActivity.CUDA]
                                                              if cuda else []),
                         record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules)
        self.enabled = enabled

    def __enter__(self):
        if not self.enabled:
            return None                   # as torch: `as prof` is None when disabled
        return super().__enter__()

    def __exit__(self, *exc):
        if self.enabled:
            super().__exit__(*exc)
        return False

    @property
    def function_events(self):
        """Every recorded event, in start order."""
        return self.events_list()

    @property
    def self_cpu_time_total(self):
        """The total of the events' self times, in microseconds."""
        return sum(e.self_ns for e in self.events_list()) / 1e3
