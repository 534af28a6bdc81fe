"""labkit.Generator: torch's CPU random stream, number for number.

torch's CPU generator is the 32-bit Mersenne Twister (mt19937) seeded with the low 32 bits
of the seed, plus two cached normal samples (Box-Muller makes two at a time). numpy ships the
same twister (numpy.random.MT19937), so the raw stream is numpy's, one C call per block of
draws; this module only seeds it torch's way and keeps torch's state layout, so
`get_state()` is the same 5056 bytes as `torch.get_rng_state()`. How each distribution turns
raw draws into numbers is in distributions.py.
"""
import os

import numpy as np

from .device import Device

_N = 624                                   # mt19937's state words
_DEFAULT_SEED = 67280421310721             # torch's default_rng_seed_val
_STATE_BYTES = 5056                        # sizeof(CPUGeneratorImplState)
_LAYOUT = np.dtype([("seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"), ("next", "<u8"),
                    ("state", "<u8", (_N,)), ("normal_x", "<f8"), ("normal_y", "<f8"),
                    ("normal_rho", "<f8"), ("normal_is_valid", "<i4"), ("pad", "<i4"),
                    ("next_float", "<f4"), ("float_valid", "u1"), ("pad2", "u1", (3,))])
assert _LAYOUT.itemsize == _STATE_BYTES


def _init_key(seed):
    """mt19937's standard initialisation (init_genrand) from a 32-bit seed."""
    key = [seed & 0xFFFFFFFF]
    for j in range(1, _N):
        x = key[-1]
        key.append((1812433253 * (x ^ (x >> 30)) + j) & 0xFFFFFFFF)
    return np.array(key, dtype=np.uint32)


class Generator:
    """A random stream; labkit.manual_seed(s) reseeds the default one. On the CPU it draws
    the numbers torch's CPU generator draws after the same seed; tensors for a GPU are drawn
    on the host and moved (so they equal the CPU numbers, not torch's cuda stream)."""

    def __init__(self, device="cpu"):
        self.device = Device(device)
        self._bits = np.random.MT19937()
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        seed = int(seed)
        if not -2 ** 63 <= seed < 2 ** 64:
            raise RuntimeError(f"manual_seed: the seed must fit in 64 bits (between -2**63 and "
                               f"2**64 - 1), got {seed}.")
        self._seed = seed & 0xFFFFFFFFFFFFFFFF             # torch keeps it as a uint64
        self._set_key(_init_key(self._seed), _N, fresh=True)
        self.next_double_normal = self.next_float_normal = None
        return self

    def _set_key(self, key, pos, fresh=False):
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self._fresh = fresh            # torch's `next` is 0 before the first draw, not 624

    def initial_seed(self):
        return self._seed

    def seed(self):
        """Reseed from the operating system's entropy; return the new seed."""
        return self.manual_seed(int.from_bytes(os.urandom(8), "little") >> 1)._seed

    # raw draws: torch's random() and random64()
    def _random(self, n):
        """n 32-bit draws (as uint64)."""
        if n:
            self._fresh = False
        return self._bits.random_raw(int(n))

    def _random64(self, n):
        """n 64-bit draws, each from two 32-bit ones (the first is the high half)."""
        r = self._random(2 * int(n))
        return (r[0::2] << np.uint64(32)) | r[1::2]

    # state, in torch's byte layout
    def get_state(self):
        """The generator's state as a uint8 tensor of 5056 bytes, laid out as torch's
        (torch.get_rng_state() after the same draws holds the same bytes)."""
        from .tensor import Tensor
        from .device import cpu
        st = self._bits.state["state"]
        rec = np.zeros((), _LAYOUT)
        rec["seed"], rec["seeded"] = self._seed, 1
        pos = int(st["pos"])
        rec["left"] = _N + 1 - pos
        rec["next"] = 0 if self._fresh else pos
        rec["state"] = st["key"].astype(np.uint64)
        if self.next_double_normal is not None:
            rec["normal_is_valid"], rec["normal_y"] = 1, self.next_double_normal
        if self.next_float_normal is not None:
            rec["float_valid"], rec["next_float"] = 1, self.next_float_normal
        return Tensor._make(np.frombuffer(rec.tobytes(), np.uint8).copy(), cpu)

    def set_state(self, new_state):
        """Restore a state from get_state() (labkit's or torch's: same layout)."""
        from .tensor import Tensor
        arr = new_state._host() if isinstance(new_state, Tensor) else np.asarray(new_state)
        if arr.dtype != np.uint8 or arr.size != _STATE_BYTES:
            raise RuntimeError(f"set_state: expected a uint8 tensor of {_STATE_BYTES} bytes "
                               f"(from get_state()), got {arr.dtype} with {arr.size} "
                               "elements.")
        rec = np.frombuffer(np.ascontiguousarray(arr).tobytes(), _LAYOUT)[0]
        left, nxt = int(rec["left"]), int(rec["next"])
        if not 1 <= left <= _N or nxt > _N:
            raise RuntimeError("set_state: the state is corrupted (its position in the "
                               "Mersenne Twister block is out of range).")
        self._seed = int(rec["seed"])
        self._set_key(rec["state"].astype(np.uint32), _N + 1 - left,
                      fresh=(left == 1 and nxt == 0))
        self.next_double_normal = float(rec["normal_y"]) if rec["normal_is_valid"] else None
        self.next_float_normal = float(rec["next_float"]) if rec["float_valid"] else None
        return self

    def __repr__(self):
        return f"<labkit.Generator device={self.device}>"


default_generator = Generator()


def manual_seed(seed):
    """Make every random draw after this reproducible (and equal to torch's after
    torch.manual_seed(seed))."""
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)
