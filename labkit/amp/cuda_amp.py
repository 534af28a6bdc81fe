"""labkit.cuda.amp: torch.cuda.amp's spellings (autocast and GradScaler for device 'cuda')."""
from ..engine import dtype as _dt
from .autocast_mode import autocast as _autocast
from .grad_scaler import GradScaler as _GradScaler


class autocast(_autocast):
    """torch.cuda.amp.autocast(enabled=True, dtype=float16, cache_enabled=True)."""

    def __init__(self, enabled=True, dtype=_dt.float16, cache_enabled=True):
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """torch.cuda.amp.GradScaler(init_scale=2.**16, ...) for device 'cuda'."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)
