"""`value in x` and reversed(x), as torch defines them: without them Python falls back to
iterating x's rows, which asks bool() of a whole row (an error) or compares row by row."""
from ..tensor import Tensor, tensor_method


@tensor_method("__contains__")
def __contains__(self, element):
    """`value in x`: whether any element equals value (a tensor value: anywhere it broadcasts
    equal), as torch; Python's fallback would iterate rows and ask bool() of each."""
    if not isinstance(element, (Tensor, int, float, bool, complex)):
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {type(element)}.")
    return bool((element == self).any().item())


@tensor_method("__reversed__")
def __reversed__(self):
    """reversed(x): x flipped along dim 0 (a 0-d tensor is returned as is), as torch."""
    return self if self.dim() == 0 else self.flip(0)
