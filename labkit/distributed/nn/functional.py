"""Collectives inside a model's forward pass, with gradients (torch.distributed.nn.functional).
dist.all_reduce changes a tensor in place and autograd cannot see it; all_reduce here returns
a new tensor and records a node whose backward all-reduces the incoming gradient: each rank's
input influenced every rank's output, so its gradient gathers from all of them. SyncBatchNorm
sums its batch statistics this way."""
from ...engine.function import Function
from .. import collectives
from ..reduce_op import ReduceOp


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, tensor, op, group):
        ctx.op, ctx.group = op, group
        out = tensor.detach().clone()
        collectives.all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        return _AllReduce.apply(grad.contiguous(), ctx.op, ctx.group), None, None


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """tensor combined across ranks (a new tensor; every rank gets the result), differentiable:
    the gradient is the all-reduce, with the same op, of every rank's gradient (as torch's)."""
    return _AllReduce.apply(tensor, op, group)
