"""GradScaler: loss scaling, so that float16 gradients do not underflow to zero.

Multiply the loss by a large scale S before backward (every gradient is then S times larger,
lifted out of float16's underflow range), divide the gradients by S before the optimizer step,
and adapt S: when a gradient overflowed (inf/nan), skip that step and halve S; after
`growth_interval` clean steps in a row, double it. The parameters the optimizer updates stay
float32 (autocast casts a copy per op): they are the float32 master weights, as in torch,
which is why unscale_ refuses float16 gradients (a float16 parameter has no master copy).
The arithmetic is torch's: the scale is a float32 value updated in double precision
(float32(S * factor)), and inv_scale = float32(1 / double(S)).
"""
import enum
import warnings

import numpy as np

from ..engine.creation import tensor
from ..engine.grad_mode import no_grad
from ..engine.tensor import Tensor


class _Stage(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


class GradScaler:
    """GradScaler(device="cuda", init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True), with torch.amp.GradScaler's methods."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = str(device)
        if enabled and self._device.startswith("cuda"):
            from .. import cuda
            if not cuda.is_available():
                warnings.warn("GradScaler is enabled, but CUDA is not available: disabling "
                              "(as torch). Pass device='cpu' to scale losses on the CPU.")
                enabled = False
        if growth_factor <= 1.0:
            raise ValueError(f"GradScaler: growth_factor must be > 1, got {growth_factor}.")
        if not 0.0 < backoff_factor < 1.0:
            raise ValueError(f"GradScaler: backoff_factor must be in (0, 1), got {backoff_factor}.")
        if not isinstance(growth_interval, int) or growth_interval <= 0:
            raise ValueError(f"GradScaler: growth_interval must be a positive int, got "
                             f"{growth_interval!r}.")
        self._enabled = enabled
        self._init_scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._scale = None             # np.float32, created on first scale()
        self._growth_tracker = 0
        self._per_optimizer = {}       # id(optimizer) -> {"stage": _Stage, "found_inf": bool}

    def is_enabled(self):
        return self._enabled

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer),
                                              {"stage": _Stage.READY, "found_inf": None})

    def _need_scale(self, fn):
        if self._scale is None:
            raise RuntimeError(f"GradScaler.{fn}: no scale yet. Call scaler.scale(loss)"
                               ".backward() first, then unscale_/step/update.")

    def scale(self, outputs):
        """outputs * scale (a tensor, or a list/tuple/dict of tensors)."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = np.float32(self._init_scale)

        def apply(o):
            if isinstance(o, Tensor):
                return o * tensor(self._scale, device=o.device)   # 0-d: keeps o's dtype
            if isinstance(o, (list, tuple)):
                return type(o)(apply(v) for v in o)
            if isinstance(o, dict):
                return {k: apply(v) for k, v in o.items()}
            raise ValueError(f"GradScaler.scale: outputs must be a Tensor or an iterable of "
                             f"Tensors, got {type(o).__name__}.")
        return apply(outputs)

    def unscale_(self, optimizer):
        """Divide this optimizer's gradients by the scale in place (e.g. before clipping them),
        and note whether any is inf or nan."""
        if not self._enabled:
            return
        self._need_scale("unscale_")
        st = self._state(optimizer)
        if st["stage"] is _Stage.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if st["stage"] is _Stage.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = np.float32(1.0 / np.float64(self._scale))
        found = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if g._data.dtype == np.float16:
                        raise ValueError(
                            "Attempting to unscale FP16 gradients. The parameter is float16, "
                            "so there is no float32 master copy for the optimizer to update "
                            "(small updates would round away). Keep the model float32 and let "
                            "autocast run the ops in float16: model.float().")
                    xp = g.device.xp
                    if not bool(xp.isfinite(g._data).all()):
                        found = True
                    g.mul_(float(inv))
        st["found_inf"] = found
        st["stage"] = _Stage.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """unscale_ (if not done yet), then optimizer.step() unless a gradient was inf/nan."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._need_scale("step")
        st = self._state(optimizer)
        if st["stage"] is _Stage.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if st["stage"] is _Stage.READY:
            self.unscale_(optimizer)
        retval = None
        if not st["found_inf"]:
            retval = optimizer.step(*args, **kwargs)
        st["stage"] = _Stage.STEPPED
        return retval

    def update(self, new_scale=None):
        """Back the scale off (any inf/nan since the last update) or grow it (after
        growth_interval clean steps); or set it to new_scale."""
        if not self._enabled:
            return
        self._need_scale("update")
        if new_scale is not None:
            if isinstance(new_scale, Tensor):
                if new_scale.numel() != 1 or not new_scale.is_floating_point():
                    raise ValueError("GradScaler.update: new_scale must be a float or a "
                                     "1-element floating-point tensor.")
                new_scale = new_scale.item()
            self._scale = np.float32(new_scale)
        else:
            found = [s["found_inf"] for s in self._per_optimizer.values()
                     if s["found_inf"] is not None]
            if not found:
                raise RuntimeError("No inf checks were recorded prior to update(): call "
                                   "scaler.step(optimizer) (or unscale_) before update().")
            if any(found):
                self._scale = np.float32(float(self._scale) * self._backoff_factor)
                self._growth_tracker = 0
            else:
                successful = self._growth_tracker + 1
                if successful == self._growth_interval:
                    with np.errstate(over="ignore"):
                        grown = np.float32(float(self._scale) * self._growth_factor)
                    if np.isfinite(grown):
                        self._scale = grown
                    self._growth_tracker = 0
                else:
                    self._growth_tracker = successful
        self._per_optimizer = {}

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return float(self._init_scale if self._scale is None else self._scale)

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        missing = {"scale", "growth_factor", "backoff_factor", "growth_interval",
                   "_growth_tracker"} - set(state_dict)
        if missing:
            raise KeyError(f"GradScaler.load_state_dict: missing {sorted(missing)}")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale = np.float32(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]
