"""embedding: rows of a weight table picked by integer indices (a lookup, differentiable in
the table). Backward adds each output's gradient into the row it came from."""
from ..function import Function
from ..tensor import Tensor
from .index import IndexAdd, IndexPut


def _checked(indices, weight):
    idx = indices._data
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"embedding: indices must be integers (int64), got "
                           f"{indices.dtype}. Use indices.long().")
    n = weight._data.shape[0]
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n):
        raise IndexError(f"embedding: indices must lie in [0, {n - 1}] for a table of "
                         f"{n} rows (num_embeddings), got values from {int(idx.min())} to "
                         f"{int(idx.max())}.")
    return idx


class Embedding(Function):
    node_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx, indices, weight, padding_idx, scale_grad_by_freq=False):
        idx = _checked(indices, weight)
        n = weight._data.shape[0]
        ctx.idx, ctx.shape, ctx.padding_idx = idx, weight._data.shape, padding_idx
        ctx.freq = None
        if scale_grad_by_freq:       # each row's gradient divided by how often it was looked up
            xp = weight.device.xp
            counts = xp.bincount(idx.reshape(-1), minlength=n).astype(weight._data.dtype)
            ctx.freq = Tensor._make(1 / xp.maximum(counts, 1)[:, None], weight.device)
        ctx.save_for_backward(indices)    # backward reads them: an in-place change is caught
        return weight._data[idx]

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors
        g = IndexAdd.apply(grad, ctx.idx, ctx.shape)
        if ctx.freq is not None:
            g = g * ctx.freq
        if ctx.padding_idx is not None:            # the padding row never learns
            g = IndexPut.apply(g, ctx.padding_idx, 0.0)
        return None, g, None, None


def _renorm_(weight, idx, max_norm, norm_type):
    """torch's embedding_renorm_: each looked-up row whose norm exceeds max_norm is scaled in
    place (without autograd) to max_norm / (norm + 1e-7) of itself."""
    xp = weight.device.xp
    rows = xp.unique(_checked(idx, weight).reshape(-1))
    w = weight._data
    if not rows.size:
        return
    norms = (xp.abs(w[rows]) ** norm_type).sum(1) ** (1.0 / norm_type)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(w.dtype)
    w[rows] = w[rows] * scale[:, None]
    weight._bump_version()


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """weight[input]: one row of weight (num_embeddings, embedding_dim) per index in input.
    max_norm renormalises the looked-up rows of weight in place first (as torch: the weight
    changes); scale_grad_by_freq divides each row's gradient by its count in input."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("embedding: expected tensors for input (indices) and weight.")
    if weight.ndim != 2:
        raise RuntimeError(f"embedding: weight must be 2-D (num_embeddings, embedding_dim), got "
                           f"shape {tuple(weight.shape)}.")
    if padding_idx is not None:
        if not -weight.shape[0] <= padding_idx < weight.shape[0]:
            raise AssertionError(f"embedding: padding_idx must be within num_embeddings "
                                 f"[-{weight.shape[0]}, {weight.shape[0] - 1}], got "
                                 f"{padding_idx}.")
        padding_idx %= weight.shape[0]
    if max_norm is not None:
        _renorm_(weight, input, max_norm, norm_type)
    return Embedding.apply(input, weight, padding_idx, scale_grad_by_freq)
