"""x.detach_(): cut x itself from the graph, in place (torch.detach_ too). Optimizers written by
hand call p.grad.detach_() before p.grad.zero_(), as torch.optim once did, so that a gradient
made with create_graph=True stops holding its graph. A view cannot be detached in place: its
values belong to its base, whose graph still reaches them; detach() it instead."""
from ..tensor import tensor_method


@tensor_method("detach_")
def detach_(x):
    if x._base is not None:
        raise RuntimeError(
            "detach_: can't detach views in-place (this tensor is a view of another one, "
            f"shape {tuple(x._base.shape)}). Use detach() instead: y = x.detach().")
    x.grad_fn, x._out_idx, x._rg, x._retains = None, 0, False, False
    return x
