"""In-place shape changes: unsqueeze_, squeeze_, t_, transpose_, swapdims_ / swapaxes_. The
tensor keeps its identity and memory and takes the new shape (target.unsqueeze_(-1) in the
char-RNN tutorial). On a tensor in a graph, the tensor's grad_fn becomes the view op's node,
as torch records UnsqueezeBackward1; a leaf that requires grad refuses, as in torch."""
from ..grad_mode import mode
from ..tensor import Tensor, tensor_method


def _reshape_in_place(name, x, view):
    if not (mode.enabled and x._rg):
        x._data = view(x.detach())._data        # a view of the same memory
        x._view_of = None                       # its old write-back recipe no longer fits
        x._bump_version()
        return x
    if x.grad_fn is None:
        raise RuntimeError(f"{name}: a leaf tensor that requires grad is being changed in place. "
                           f"Use the out-of-place form (x = x.{name[:-1]}(...)), or do it under "
                           "`with labkit.no_grad():`.")
    if x._base is None:
        out = view(x)
    else:       # x stays a view of its base, one view op further (as torch re-links it): a
        out = view(_as_it_was(x))   # later write through x still reaches the base
        x._view_of, x._hist_v = out._view_of, out._hist_v
    x._data, x.grad_fn, x._out_idx = out._data, out.grad_fn, out._out_idx
    x._bump_version()
    return x


def _as_it_was(x):
    """A second handle on view x as it is now (its memory, history and write-back recipe)."""
    twin = Tensor._make(x._data, x.device, x._rg)
    for attr in ("_base", "_vc", "_view_of", "grad_fn", "_out_idx", "_hist_v", "_no_grad_view"):
        setattr(twin, attr, getattr(x, attr))
    return twin


@tensor_method("unsqueeze_")
def unsqueeze_(x, dim):
    return _reshape_in_place("unsqueeze_", x, lambda t: t.unsqueeze(dim))


@tensor_method("squeeze_")
def squeeze_(x, dim=None):
    return _reshape_in_place("squeeze_", x, lambda t: t.squeeze() if dim is None else t.squeeze(dim))


@tensor_method("t_")
def t_(x):
    return _reshape_in_place("t_", x, lambda t: t.t())


@tensor_method("transpose_", "swapdims_", "swapaxes_")
def transpose_(x, dim0, dim1):
    return _reshape_in_place("transpose_", x, lambda t: t.transpose(dim0, dim1))
