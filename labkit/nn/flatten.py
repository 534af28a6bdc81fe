"""Flatten: (N, C, H, W) -> (N, C*H*W), the bridge from convolutional to linear layers; and
Unflatten, its inverse for one dim."""
from .module import Module


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim into unflattened_size: Unflatten(1, (C, H, W)) turns (N, C*H*W) into images."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        dim = self.dim % input.ndim if input.ndim else 0
        return input.reshape(tuple(input.shape[:dim]) + self.unflattened_size
                             + tuple(input.shape[dim + 1:]))

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
