"""UninitializedParameter and UninitializedBuffer: placeholders with a dtype and a device but
no shape yet, which a lazy module fills in (materialize) once its first input shows the sizes.

Using one before that is a mistake, so reading its values (any op) or its shape raises, as in
torch, instead of computing on an empty array."""
from ..engine.creation import empty
from ..engine.tensor import Tensor
from .parameter import Parameter

_USE = ("Attempted to use an uninitialized parameter. This error happens when you are using a "
        "`LazyModule` or explicitly manipulating `torch.nn.parameter.UninitializedParameter` "
        "objects. When using LazyModules Call `forward` with a dummy batch to initialize the "
        "parameters before calling torch functions")
_SHAPE = ("Can't access the shape of an uninitialized parameter or buffer. This error usually "
          "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
          "initialized one. Call `forward` to initialize the parameters before accessing their "
          "attributes.")


class _UninitializedMixin:
    cls_to_become = None

    def _setup(self, requires_grad, device, dtype):
        probe = empty(0, device=device, dtype=dtype)   # the defaults fill in what is None
        self._udtype, self.device = probe.dtype, probe.device
        self._rg = bool(requires_grad)

    @property
    def _data(self):
        raise ValueError(_USE)

    @property
    def shape(self):
        raise RuntimeError(_SHAPE)

    @property
    def dtype(self):
        return self._udtype

    def size(self, dim=None):
        raise RuntimeError(_SHAPE)

    def requires_grad_(self, requires_grad=True):
        self._rg = bool(requires_grad)
        return self

    def materialize(self, shape, device=None, dtype=None):
        """Become an ordinary Parameter (or Tensor) of this shape, uninitialised memory, the
        same object (so whatever holds it, e.g. an optimizer, sees the real tensor)."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        data = empty(*shape, device=device or self.device, dtype=dtype or self._udtype)
        self.__class__ = self.cls_to_become
        self._data, self.device = data._data, data.device

    def _retarget(self, fn):
        """Where fn (a Module.to conversion) would send a tensor of this dtype and device."""
        probe = fn(empty(0, dtype=self._udtype, device=self.device))
        self._udtype, self.device = probe.dtype, probe.device

    def __repr__(self):
        return f"<{type(self).__name__}>"


class UninitializedParameter(_UninitializedMixin, Parameter):
    """A Parameter whose shape is not known yet (lazy modules' weights)."""
    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        self._setup(requires_grad, device, dtype)


class UninitializedBuffer(_UninitializedMixin, Tensor):
    """A buffer whose shape is not known yet (lazy BatchNorm's running statistics)."""
    cls_to_become = Tensor

    def __init__(self, requires_grad=False, device=None, dtype=None):
        self._setup(requires_grad, device, dtype)


def is_lazy(t):
    """True for a parameter or buffer that is still waiting for its shape."""
    return isinstance(t, _UninitializedMixin)
