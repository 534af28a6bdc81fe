"""Dim: a dimension whose size may change between calls of an exported program."""
import math


class Dim:
    """A named dynamic dimension with bounds (torch.export.Dim): Dim("batch", min=1, max=64)."""

    def __init__(self, name, *, min=None, max=None):
        if not str(name).isidentifier():
            raise ValueError(f"Dim: the name {name!r} must be a Python identifier (it is "
                             "printed in shapes, e.g. f32[batch, 4]).")
        self.name = name
        self.min = 0 if min is None else int(min)
        self.max = math.inf if max is None else int(max)
        if self.min > self.max:
            raise ValueError(f"Dim {name!r}: min={self.min} is larger than max={self.max}.")

    def __repr__(self):
        hi = "inf" if self.max == math.inf else self.max
        return f"Dim({self.name!r}, min={self.min}, max={hi})"

    def range_text(self):
        return f"VR[{self.min}, {'int_oo' if self.max == math.inf else self.max}]"
