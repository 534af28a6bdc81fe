"""torch's questions about dtypes: is_floating_point, is_complex, promote_types, result_type,
can_cast (torch's casting rule: never to a lower category, bool < integer < floating)."""
from .engine import Tensor
from .engine.promotion import category, promote_types, result_type  # noqa: F401


def is_floating_point(input):
    if not isinstance(input, Tensor):
        raise TypeError(f"is_floating_point(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.dtype.is_floating_point


def is_complex(input):
    if not isinstance(input, Tensor):
        raise TypeError(f"is_complex(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input._data.dtype.kind == "c"


def can_cast(from_, to):
    return category(from_.np) <= category(to.np)
