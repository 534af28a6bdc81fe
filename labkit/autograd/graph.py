"""labkit.autograd.graph: saved_tensors_hooks (as torch's), and a meter built on it.

Every op that records a Node keeps what its backward needs (ctx.save_for_backward). Inside
`saved_tensors_hooks(pack, unpack)` each such tensor is handed to pack(tensor) when it is saved,
and the Node keeps whatever pack returns; backward calls unpack(that) to get the tensor back.
That is the hook activation checkpointing uses (pack keeps nothing, unpack recomputes), and
what lets us *count* the memory held for backward (SavedTensorMeter below).

The engine calls two things here (labkit/engine/function.py): `pack_entries` when a Node
saves, and `_Packed.unpack` when backward reads ctx.saved_tensors. Entries packed by a hook
are not version-checked (pack may return anything, as in torch's hooks).
"""
import weakref

from ..engine.grad_mode import mode
from ..engine.tensor import Tensor


class _Packed:
    """One saved tensor as a hook packed it (the engine's saved-entry kind 4)."""
    __slots__ = ("value", "unpack_fn", "out_idx")

    def __init__(self, value, unpack_fn, out_idx):
        self.value, self.unpack_fn, self.out_idx = value, unpack_fn, out_idx

    def unpack(self, node):
        t = self.unpack_fn(self.value)
        if not isinstance(t, Tensor):
            raise TypeError(f"saved_tensors_hooks: unpack_hook returned a "
                            f"{type(t).__name__} for {type(node).__name__}; it must return "
                            "a Tensor (the one pack_hook was given, or an equal one).")
        if self.out_idx is not None:   # one of the node's own outputs: re-attach it to node
            t = Tensor._make(t._data, t.device, True)
            t.grad_fn, t._out_idx = node, self.out_idx
        return t


class saved_tensors_hooks:
    """with saved_tensors_hooks(pack_hook, unpack_hook): every tensor saved for backward in
    the block goes through pack_hook(tensor) -> anything; backward calls unpack_hook(anything)
    -> tensor. Blocks nest; the innermost one packs."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if not isinstance(mode.saved_hooks, list):
            mode.saved_hooks = []
        mode.saved_hooks.append(self)
        return self

    def __exit__(self, *exc):
        mode.saved_hooks.pop()
        return False

    def pack_entries(self, entries, outputs):
        """Called by the engine for each recorded Node: pack its saved tensors (inputs and
        outputs alike; arrays and Python values stay as they are)."""
        packed = []
        for entry in entries:
            kind, obj = entry[0], entry[1]
            if kind == 0:
                packed.append((4, _Packed(self.pack_hook(obj), self.unpack_hook, None), None, 0))
            elif kind == 1:
                out = outputs[obj[1]]                   # given as a plain tensor: no cycle
                t = Tensor._make(obj[0], out.device)
                packed.append((4, _Packed(self.pack_hook(t), self.unpack_hook, obj[1]), None, 0))
            else:
                packed.append(entry)
        return tuple(packed)


def _root(arr):
    while getattr(arr, "base", None) is not None:
        arr = arr.base
    return arr


class SavedTensorMeter:
    """Bytes held for backward, now and at the peak: `with SavedTensorMeter() as m:` around
    forward *and* backward, then m.peak_bytes. A tensor saved by several ops (or a view of
    one) counts once; parameters are left out unless include_parameters=True (they are held
    anyway, saved or not). A saved tensor is let go when backward frees its Node."""

    def __init__(self, include_parameters=False):
        self.include_parameters = include_parameters
        self.current_bytes = 0
        self.peak_bytes = 0
        self.saved_count = 0
        self._held = {}        # id(root array) -> [root array, references]
        self._hooks = saved_tensors_hooks(self._pack, self._unpack)

    def _pack(self, t):
        if not self.include_parameters and t.grad_fn is None and t.requires_grad:
            return t
        root = _root(t._data)
        key = id(root)
        entry = self._held.get(key)
        if entry is None:
            entry = self._held[key] = [root, 0]
            self.current_bytes += root.nbytes
            self.peak_bytes = max(self.peak_bytes, self.current_bytes)
        entry[1] += 1
        self.saved_count += 1
        box = _Box(t)
        weakref.finalize(box, self._release, key)
        return box

    def _release(self, key):
        entry = self._held.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            self.current_bytes -= entry[0].nbytes
            del self._held[key]

    @staticmethod
    def _unpack(box):
        return box.tensor if isinstance(box, _Box) else box

    def __enter__(self):
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        return self._hooks.__exit__(*exc)

    def __repr__(self):
        return (f"SavedTensorMeter(peak={self.peak_bytes} bytes, now={self.current_bytes} bytes, "
                f"{self.saved_count} tensors saved)")


class _Box:
    __slots__ = ("tensor", "__weakref__")

    def __init__(self, tensor):
        self.tensor = tensor
