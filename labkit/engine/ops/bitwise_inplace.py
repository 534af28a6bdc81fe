"""mask &= other, flags |= bit, x <<= 1 and their methods (bitwise_and_ ...): in place, as in
torch. Without __iand__ Python would rebind `mask = mask & other` to a new tensor, leaving
every view and alias of mask unchanged, and a bool mask could silently become int64. The
result is computed out of place in torch's result dtype, then stored in x's dtype: a result
of a higher category (int into a bool mask, float into ints) is refused, as torch does."""
from ..dtype import to_np
from ..promotion import category
from ..tensor import tensor_method
from . import compare


def store_inplace(name, x, result):
    """x.copy_(result), refusing a result x cannot hold (a higher dtype category, a larger
    broadcast shape), as torch's in-place ops do."""
    if category(to_np(result.dtype)) > category(to_np(x.dtype)):
        theirs, ours = (str(d).split(".")[-1] for d in (result.dtype, x.dtype))
        raise RuntimeError(f"{name}: result type {theirs} can't be cast to the desired output "
                           f"type {ours} (x's dtype; in-place ops keep it). Use the "
                           f"out-of-place form, or convert the other operand first, e.g. "
                           f"other.to({ours}).")
    if tuple(result.shape) != tuple(x.shape):
        raise RuntimeError(f"{name}: output with shape {list(x.shape)} doesn't match the "
                           f"broadcast shape {list(result.shape)} (in place, x cannot grow).")
    return x.copy_(result)


def _bitwise_inplace(name, fn, dunder):
    def op(x, other):
        return store_inplace(name, x, fn(x, other))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"In-place {fn.__name__}: x.{name}(other) changes x and returns it."
    return tensor_method(name, dunder)(op)


bitwise_and_ = _bitwise_inplace("bitwise_and_", compare.bitwise_and, "__iand__")
bitwise_or_ = _bitwise_inplace("bitwise_or_", compare.bitwise_or, "__ior__")
bitwise_xor_ = _bitwise_inplace("bitwise_xor_", compare.bitwise_xor, "__ixor__")
bitwise_left_shift_ = _bitwise_inplace("bitwise_left_shift_", compare.bitwise_left_shift,
                                       "__ilshift__")
bitwise_right_shift_ = _bitwise_inplace("bitwise_right_shift_", compare.bitwise_right_shift,
                                        "__irshift__")


@tensor_method("bitwise_not_")
def bitwise_not_(x):
    """x = ~x in place."""
    return store_inplace("bitwise_not_", x, compare.bitwise_not(x))
