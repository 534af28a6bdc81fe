"""Parameter: a tensor that a Module registers as one of its learnable weights."""
from ..engine.creation import empty
from ..engine.tensor import Tensor


class Parameter(Tensor):
    """A Tensor that requires grad by default and that a Module collects into parameters()
    when it is assigned as an attribute (self.weight = Parameter(...)). It shares memory with
    the tensor it wraps. Ops on a Parameter give plain Tensors."""

    def __init__(self, data=None, requires_grad=True):
        super().__init__(empty(0) if data is None else data, requires_grad=requires_grad)
        if isinstance(data, Tensor):
            self.device = data.device     # a 'meta' tensor's array is a numpy one too

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        """As torch: a fresh Parameter holding a copy of the values; no .grad, no sharing."""
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.detach().clone(), self.requires_grad)
        return memo[id(self)]


from .uninitialized import UninitializedBuffer, UninitializedParameter  # noqa: E402,F401  torch.nn.parameter's names
