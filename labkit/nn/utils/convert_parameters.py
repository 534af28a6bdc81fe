"""parameters_to_vector / vector_to_parameters: all parameters as one flat vector and back
(line searches, evolution strategies, second-order methods work on the flat vector)."""
from ...engine.ops.join import cat
from ...engine.tensor import Tensor


def parameters_to_vector(parameters):
    """One new 1-D tensor: every parameter flattened, in order (differentiable)."""
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Give each parameter its slice of `vec`, in order (replaces p.data: no gradient flows)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
