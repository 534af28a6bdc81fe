"""Embedding: a learned table of vectors, one row per token id (a lookup, not a product)."""
from ..engine.creation import empty
from ..engine.grad_mode import no_grad
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class Embedding(Module):
    """input of integer ids (any shape) -> their rows of weight (num_embeddings, embedding_dim).
    Same as one_hot(ids) @ weight, without building the one-hot matrix. The padding_idx row
    starts at zero and gets no gradient. With max_norm, each looked-up row longer than
    max_norm is first scaled down to that length, in place (as torch does)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        if scale_grad_by_freq or sparse:
            raise NotImplementedError("Embedding: scale_grad_by_freq and sparse gradients are "
                                      "not supported by labkit (dense gradients only).")
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"Embedding: padding_idx {padding_idx} must be within "
                                 f"[-{num_embeddings}, {num_embeddings - 1}].")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, device=device,
                                          dtype=dtype), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError(f"Embedding: Shape of weight {tuple(_weight.shape)} does not "
                                 f"match num_embeddings and embedding_dim "
                                 f"({num_embeddings}, {embedding_dim}).")
            self.weight = Parameter(_weight.detach(), requires_grad=not _freeze)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """An Embedding holding the given (rows, dim) table (shared, not copied); frozen
        (no gradient) unless freeze=False. The padding_idx row is kept as given."""
        if embeddings.ndim != 2:
            raise ValueError(f"Embeddings parameter is expected to be 2-dimensional (2-D), got "
                             f"shape {tuple(embeddings.shape)}.")
        rows, dim = embeddings.shape
        return cls(rows, dim, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            init.zeros_(self.weight[self.padding_idx])

    def forward(self, input):
        if self.max_norm is not None:
            self._renorm(input)
        return F.embedding(input, self.weight, self.padding_idx)

    def _renorm(self, input):
        """Scale each looked-up row whose norm exceeds max_norm to max_norm (torch's
        embedding_renorm_, including its 1e-7)."""
        ids = input.reshape(-1).tolist()
        with no_grad():
            w = self.weight
            for i in sorted(set(ids)):
                norm = float((w[i].abs() ** self.norm_type).sum() ** (1.0 / self.norm_type))
                if norm > self.max_norm:
                    w[i].mul_(self.max_norm / (norm + 1e-7))

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        return s
