"""labkit.autograd.graph: saved_tensors_hooks (as torch's), and a meter built on it.

Every op that records a Node keeps what its backward needs (ctx.save_for_backward). Inside
`saved_tensors_hooks(pack, unpack)` each such tensor is handed to pack(tensor) when it is saved,
and the Node keeps whatever pack returns; backward calls unpack(that) to get the tensor back.
That is the hook activation checkpointing uses (pack keeps nothing, unpack recomputes), and
what lets us *count* the memory held for backward (SavedTensorMeter below).

The engine does the packing (labkit/engine/function.py reads `mode.saved_hooks`, a
(pack, unpack) pair per thread); blocks nest, the innermost one packs.
"""
import weakref

from ..engine.grad_mode import mode
from ..engine.hooks import set_saved_hooks
from ..engine.tensor import Tensor


class saved_tensors_hooks:
    """with saved_tensors_hooks(pack_hook, unpack_hook): every tensor saved for backward in
    the block is stored as pack_hook(tensor); backward calls unpack_hook(that) -> tensor."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook
        self._prev = []

    def __enter__(self):
        self._prev.append(mode.saved_hooks)
        set_saved_hooks((self.pack_hook, self._checked_unpack))
        return self

    def __exit__(self, *exc):
        set_saved_hooks(self._prev.pop(), installed=False)
        return False

    def _checked_unpack(self, packed):
        t = self.unpack_hook(packed)
        if not isinstance(t, Tensor):
            raise TypeError(f"saved_tensors_hooks: unpack_hook returned a {type(t).__name__}; "
                            "it must return a Tensor (the one pack_hook was given, or an "
                            "equal one).")
        return t


class save_on_cpu(saved_tensors_hooks):
    """with save_on_cpu(pin_memory=False): tensors saved for backward are kept on the cpu and
    moved back to their device when backward unpacks them (GPU memory traded for transfers).
    pin_memory=True packs a separate cpu copy, as torch does."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            return (tensor.device, tensor.detach().cpu().clone())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


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
