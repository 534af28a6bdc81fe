"""max_unpool1d/2d/3d: the partial inverse of max pooling (SegNet's decoder, unpooling in
autoencoders). Each pooled value goes back to the position its window's maximum came from
(the indices max_pool returned with return_indices=True); every other position is 0. It is
a scatter into zeros, so its gradient gathers from those positions."""
import math


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _output_size(input, kernel, stride, padding, output_size, n):
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                         f"elements, but it has a length of '{len(output_size)}'")
    for d in range(n):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError(f'invalid output_size "{tuple(output_size)}" (dim {d} must be '
                             f"between {low} and {high})")
    return output_size


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n):
    kernel = _tuple(kernel_size, n)
    stride = kernel if stride is None else _tuple(stride, n)
    padding = _tuple(padding, n)
    if str(indices.dtype) != "labkit.int64":
        raise RuntimeError(f"max_unpool{n}d: elements in indices should be type int64 but "
                           f"got: {indices.dtype} (pass the indices max_pool{n}d returned "
                           "with return_indices=True).")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"max_unpool{n}d: expected shape of indices to be same as that of "
                           f"the input tensor ({tuple(input.shape)}) but got indices tensor "
                           f"with shape: {tuple(indices.shape)}")
    size = _output_size(input, kernel, stride, padding, output_size, n)
    lead = tuple(input.shape[:-n])
    plane = math.prod(size)
    flat_idx = indices.reshape(lead + (-1,))
    if flat_idx.numel() and (int(flat_idx.max()) >= plane or int(flat_idx.min()) < 0):
        bad = int(flat_idx.max()) if int(flat_idx.max()) >= plane else int(flat_idx.min())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(map(str, size))})")
    out = input.new_zeros(lead + (plane,))
    out = out.scatter(-1, flat_idx, input.reshape(lead + (-1,)))
    return out.reshape(lead + tuple(size))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)
