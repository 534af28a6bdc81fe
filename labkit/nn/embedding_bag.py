"""EmbeddingBag / F.embedding_bag: the sum, mean or max of each bag of embeddings, without
materialising the (tokens, dim) rows per bag (the text-classification tutorial's model).

A bag is a row of a 2-D input, or, for a flat 1-D input, the run from one offset to the next.
Built on F.embedding and index_add, so the weight (and per_sample_weights) get gradients;
padding_idx entries are left out of their bag (and of its count for "mean"); an empty bag is 0.
"""
from ..engine.creation import empty, tensor, zeros
from ..engine.ops.fused import index_add
from ..engine.ops.join import stack
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding_bag: max_norm, scale_grad_by_freq and sparse "
                                  "gradients are not supported by labkit")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a "
                             "mini-batch of fixed length sequences. However, found offsets of type "
                             f"{type(offsets)}")
        rows, length = input.shape
        starts = list(range(0, rows * length, length)) if length else [0] * rows
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = [int(o) for o in offsets.tolist()]
        if include_last_offset:
            starts = starts[:-1]
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported "
            f"for mode='sum' (got mode='{mode}'). Please open a feature request on GitHub.")
    if starts and starts[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has "
                           f"to start from position 0. However, got {starts[0]}")
    n, bags = input.numel(), len(starts)
    ends = starts[1:] + [n]
    ids = input.tolist()
    if padding_idx is not None:
        padding_idx %= weight.shape[0]
    members = [[i for i in range(s, min(e, n)) if ids[i] != padding_idx]
               for s, e in zip(starts, ends)]
    rows = F.embedding(input, weight)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1).to(rows.dtype)
    dim = weight.shape[1]
    if mode == "max":
        return stack([rows[tensor(m)].amax(0) if m else zeros(dim, dtype=weight.dtype,
                                                                device=weight.device)
                      for m in members]) if bags else zeros(0, dim, dtype=weight.dtype)
    flat = [i for m in members for i in m]
    bag_of = [b for b, m in enumerate(members) for _ in m]
    out = index_add(zeros(bags, dim, dtype=weight.dtype, device=weight.device), 0,
                    tensor(bag_of, dtype=input.dtype, device=weight.device),
                    rows[tensor(flat, dtype=input.dtype, device=weight.device)])
    if mode == "mean":
        counts = tensor([max(len(m), 1) for m in members], dtype=weight.dtype, device=weight.device)
        out = out / counts.unsqueeze(1)
    return out


class EmbeddingBag(Module):
    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        if max_norm is not None or scale_grad_by_freq or sparse:
            raise NotImplementedError("EmbeddingBag: max_norm, scale_grad_by_freq and sparse "
                                      "gradients are not supported by labkit")
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, False
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, device=device, dtype=dtype))
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            init.zeros_(self.weight[self.padding_idx])

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, mode=self.mode,
                             per_sample_weights=per_sample_weights,
                             include_last_offset=self.include_last_offset,
                             padding_idx=self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse, embeddings,
                  include_last_offset, padding_idx)
        bag.weight.requires_grad = not freeze
        return bag

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}, mode='{self.mode}'"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s
