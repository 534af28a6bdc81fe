"""torch.utils.swap_tensors: two Python tensor objects exchange everything they are (class,
data, autograd state), so every reference to either now sees the other's contents."""
import weakref

from ..engine.tensor import Tensor


def swap_tensors(t1, t2):
    """Swap t1 and t2 in place: afterwards t1 holds what t2 held and the other way round."""
    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"swap_tensors: {name} must be a Tensor, got {type(t).__name__}.")
        if weakref.getweakrefs(t):     # as torch: someone tracks this object (a view's base
            raise RuntimeError(        # list, a cache): swapping would mislead them
                f"Cannot swap {name} because it has weakref associated with it")
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
