"""torch.memory_format and torch.layout. A memory format says in which order a tensor's
elements lie in memory, not what they are: channels_last keeps an image batch (N, C, H, W)
but stores it as N, H, W, C (each pixel's channels side by side, what convolution kernels on
GPUs prefer). Values, shapes and gradients do not change; strides and is_contiguous do.
labkit tensors are all strided (dense); the sparse layouts exist so code can ask."""


class memory_format:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"labkit.{self.name}"


class layout(memory_format):
    __slots__ = ()


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, jagged = (
    layout(n) for n in ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
                        "sparse_bsc", "jagged"))

# dims in memory order: channels_last stores (N, C, H, W) as N, H, W, C
_ORDER = {channels_last: (0, 2, 3, 1), channels_last_3d: (0, 2, 3, 4, 1)}


def memory_order(fmt, shape, op):
    """The order a copy in format fmt keeps its dims in memory: "K" (as they are: preserve),
    "C" (row-major) or a permutation of the dims."""
    if fmt is None or fmt is preserve_format:
        return "K"
    if fmt is contiguous_format:
        return "C"
    if fmt in _ORDER:
        order = _ORDER[fmt]
        if len(shape) != len(order):
            raise RuntimeError(f"{op}: required rank {len(order)} tensor to use {fmt.name} "
                               f"format (got shape {tuple(shape)}). channels_last is for "
                               f"(N, C, H, W) batches, channels_last_3d for (N, C, D, H, W).")
        return order
    raise TypeError(f"{op}: memory_format must be a labkit.memory_format (contiguous_format, "
                    f"channels_last, channels_last_3d, preserve_format), got {fmt!r}.")


def is_dense_in(shape, strides, order):
    """Whether elements lie densely with order's last dim fastest (size-1 dims, whose stride
    never matters, are skipped, as torch does)."""
    expected = 1
    for d in reversed(order):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True
