"""broadcast_shapes / broadcast_to / broadcast_tensors: torch's broadcasting rule, explicitly
(the result shape of an elementwise op; tensors expanded to it, as views)."""
from ..tensor import Size, Tensor, tensor_method


def broadcast_shapes(*shapes):
    """The shape that tensors of these shapes broadcast to (ints count as 1-d shapes)."""
    result = []
    for k, s in enumerate(shapes):
        s = (s,) if isinstance(s, int) else tuple(s)
        if any(n < 0 for n in s):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
        if len(s) > len(result):
            result = [1] * (len(s) - len(result)) + result
        for d in range(1, len(s) + 1):
            a, b = result[-d], s[-d]
            if b == 1:
                continue
            if a == 1:
                result[-d] = b
            elif a != b:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {b} at -{d}! "
                                   f"Mismatching argument at index {k} had {s}; but expected "
                                   f"shape should be broadcastable to {result}")
    return Size(result)


@tensor_method("broadcast_to")
def broadcast_to(input, size):
    return input.expand(*size) if not isinstance(size, int) else input.expand(size)


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = Size(())
    for i, t in enumerate(tensors):
        a, b = tuple(shape), tuple(t.shape)
        n = max(len(a), len(b))
        a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
        for d in range(n):
            if a[d] != b[d] and 1 not in (a[d], b[d]):
                raise RuntimeError(f"The size of tensor a ({a[d]}) must match the size of tensor "
                                   f"b ({b[d]}) at non-singleton dimension {d}")
        shape = Size(y if x == 1 else x for x, y in zip(a, b))
    return tuple(t.expand(*shape) if isinstance(t, Tensor) else t for t in tensors)


@tensor_method("sum_to_size")
def sum_to_size(x, *size):
    """x summed down to size (size must broadcast to x's shape): the reduction that undoes a
    broadcast, what autograd applies to the gradient of a broadcast operand."""
    from ..autograd import sum_to
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    have = tuple(x.shape)
    lead = len(have) - len(shape)
    if lead < 0 or any(s != 1 and s != h for s, h in zip(shape, have[lead:])):
        raise RuntimeError(f"sum_to_size: size {list(shape)} is not expandable to size "
                           f"{list(have)} (each of its dims must be 1 or equal x's, aligned "
                           "from the right).")
    return sum_to(x, shape)

