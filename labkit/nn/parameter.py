"""Parameter: a tensor that a Module registers as one of its learnable weights."""
from ..engine.creation import empty
from ..engine.tensor import Tensor


class Parameter(Tensor):
    """A Tensor that requires grad by default and that a Module collects into parameters()
    when it is assigned as an attribute (self.weight = Parameter(...)). It shares memory with
    the tensor it wraps. Ops on a Parameter give plain Tensors."""

    def __init__(self, data=None, requires_grad=True):
        super().__init__(empty(0) if data is None else data, requires_grad=requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        """As torch: a fresh Parameter holding a copy of the values; no .grad, no sharing."""
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.detach().clone(), self.requires_grad)
        return memo[id(self)]


class _BufferMeta(type):
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor marked to become a buffer when assigned to a Module attribute
    (`self.mask = nn.Buffer(t, persistent=False)`), as register_buffer does. As in torch, the
    object made is a plain Tensor (a detached view of data) carrying the mark."""

    def __new__(cls, data=None, *, persistent=True):
        data = empty(0) if data is None else data
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


from .uninitialized import UninitializedBuffer, UninitializedParameter  # noqa: E402,F401  torch.nn.parameter's names
