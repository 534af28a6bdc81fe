"""The step counter of the newer optimizers: a 0-d float32 tensor in state["step"], as torch
keeps it (so state_dicts look alike); formulas read it as a Python number."""
from ..engine.creation import tensor
from ..engine.dtype import float32


def new_step():
    return tensor(0.0, dtype=float32)


def advance(state):
    """Count one more step; return the new count as a float."""
    state["step"].add_(1)
    return float(state["step"])
