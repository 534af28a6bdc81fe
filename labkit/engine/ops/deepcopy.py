"""copy.deepcopy of tensors, as torch: `best_model = copy.deepcopy(model)` after training, or of
a state_dict. A leaf is copied with requires_grad and its .grad; tensors sharing memory in the
copied object still share it in the copy (one memo entry per array); a tensor made by an op
refuses, as in torch. Nothing of the graph (grad_fn, AccumulateGrad, hooks) is copied."""
import copy

from ..tensor import Tensor, tensor_method

_OWN = ("_data", "device", "_rg", "grad", "grad_fn")


def _root(a):
    while getattr(a, "base", None) is not None and type(a.base) is type(a):
        a = a.base
    return a


def _ptr(a):
    return a.__array_interface__["data"][0] if hasattr(a, "__array_interface__") else a.data.ptr


def _copy_array(a, xp, memo):
    """A copy of a; views of one array copied in one deepcopy call share the copied array."""
    root = _root(a)
    if not root.flags.c_contiguous or a.size == 0:
        return a.copy()
    new_root = memo.get(id(root))
    if new_root is None:
        new_root = memo[id(root)] = root.copy()
        memo.setdefault(id(memo), []).append(root)      # keep root (its id) alive with memo
    if a is root:
        return new_root
    start = new_root.reshape(-1).view(xp.uint8)[_ptr(a) - _ptr(root):].view(a.dtype)
    return xp.lib.stride_tricks.as_strided(start, a.shape, a.strides)


@tensor_method("__deepcopy__")
def __deepcopy__(self, memo):
    if self.grad_fn is not None:
        raise RuntimeError("deepcopy: only tensors created explicitly by the user (graph leaves) "
                           "support the deepcopy protocol; this one was made by "
                           f"{type(self.grad_fn).__name__}. Copy x.detach() instead.")
    if id(self) in memo:
        return memo[id(self)]
    new = Tensor.__new__(type(self))
    new._data, new.device = _copy_array(self._data, self.device.xp, memo), self.device
    new._rg = self._rg
    memo[id(self)] = new
    if self.grad is not None:
        new.grad = copy.deepcopy(self.grad, memo)
    for k, v in vars(self).items():                      # a subclass's own attributes
        if k not in _OWN and not k.startswith("_"):
            setattr(new, k, copy.deepcopy(v, memo))
    return new
