"""embedding: rows of a weight table picked by integer indices (a lookup, differentiable in
the table). Backward adds each output's gradient into the row it came from."""
from ..function import Function
from ..tensor import Tensor
from .index import IndexAdd, IndexPut


class Embedding(Function):
    node_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx, indices, weight, padding_idx):
        idx = indices._data
        if idx.dtype.kind not in "iu":
            raise RuntimeError(f"embedding: indices must be integers (int64), got "
                               f"{indices.dtype}. Use indices.long().")
        n = weight._data.shape[0]
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n):
            raise IndexError(f"embedding: indices must lie in [0, {n - 1}] for a table of "
                             f"{n} rows (num_embeddings), got values from {int(idx.min())} to "
                             f"{int(idx.max())}.")
        ctx.idx, ctx.shape, ctx.padding_idx = idx, weight._data.shape, padding_idx
        ctx.save_for_backward(indices)    # backward reads them: an in-place change is caught
        return weight._data[idx]

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors
        g = IndexAdd.apply(grad, ctx.idx, ctx.shape)
        if ctx.padding_idx is not None:            # the padding row never learns
            g = IndexPut.apply(g, ctx.padding_idx, 0.0)
        return None, g, None


def embedding(input, weight, padding_idx=None):
    """weight[input]: one row of weight (num_embeddings, embedding_dim) per index in input."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("embedding: expected tensors for input (indices) and weight.")
    if weight.ndim != 2:
        raise RuntimeError(f"embedding: weight must be 2-D (num_embeddings, embedding_dim), got "
                           f"shape {tuple(weight.shape)}.")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    return Embedding.apply(input, weight, padding_idx)
