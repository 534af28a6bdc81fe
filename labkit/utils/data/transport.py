"""How labkit tensors cross between processes (importing this module registers it).

multiprocessing pickles what goes through its queues and, with 'spawn', the dataset itself.
A tensor travels as its host array, device and requires_grad flag and is rebuilt on arrival;
a tensor inside an autograd graph is refused, as in PyTorch, because its history cannot come
along.
"""
from multiprocessing.reduction import ForkingPickler

from ...engine.device import Device, to_device_array
from ...engine.tensor import Tensor


def _rebuild_tensor(array, device, requires_grad):
    dev = Device(device)
    t = Tensor._make(to_device_array(array, dev), dev)
    return t.requires_grad_(True) if requires_grad else t


def _reduce_tensor(t):
    if t.grad_fn is not None:
        raise RuntimeError(
            f"a tensor made by {type(t.grad_fn).__name__} (part of an autograd graph) cannot be "
            "sent to or from a DataLoader worker: its history cannot come along. Send "
            "t.detach() instead, or build samples without requires_grad.")
    return _rebuild_tensor, (t._host(), str(t.device), t.requires_grad)


def _reduce_device(d):
    return Device, (str(d),)


ForkingPickler.register(Tensor, _reduce_tensor)
ForkingPickler.register(Device, _reduce_device)
