"""torch.random: the seeding functions (also at top level) and fork_rng, which lets a block draw
random numbers and then puts the generator back as it was."""
import contextlib

from .engine.generator import (default_generator, get_rng_state, initial_seed,  # noqa: F401
                               manual_seed, seed, set_rng_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, device_type="cuda"):
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
