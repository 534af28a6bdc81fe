"""Distribution: the shapes (batch_shape, event_shape) and argument checks every one shares."""
from ..engine import Size, Tensor
from ..engine.grad_mode import no_grad


class Distribution:
    _validate_default = True     # torch's default (__debug__): check parameters and values
    arg_constraints = {}

    @staticmethod
    def set_default_validate_args(value):
        if value not in (True, False):
            raise ValueError("set_default_validate_args expects True or False")
        Distribution._validate_default = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        self._validate_args = self._validate_default if validate_args is None else validate_args
        if self._validate_args:
            for name, check in self.arg_constraints.items():
                if name not in self.__dict__ and name in type(self).__dict__:
                    continue                        # a lazily computed parameter: not given
                value = getattr(self, name)
                ok, constraint = check(value)
                if not bool(ok.all()):
                    raise ValueError(
                        f"Expected parameter {name} (Tensor of shape {tuple(value.shape)}) of "
                        f"distribution {self!r} to satisfy the constraint {constraint}, but found "
                        f"invalid values:\n{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=Size()):
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape=Size()):
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError(f"{type(self).__name__} has no reparameterized sample (rsample); "
                                  "use sample(), which carries no gradient")

    def sample_n(self, n):
        return self.sample(Size((n,)))

    @property
    def stddev(self):
        return self.variance.sqrt()

    def perplexity(self):
        return self.entropy().exp()

    def _validate_sample(self, value, support):
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        if not self._validate_args:
            return
        event_dim = len(self._event_shape)
        actual = tuple(value.shape)
        expected = tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{Size(actual)} vs {Size(expected)}.")
        ok, name = support(value)
        if event_dim and ok.dim() > value.dim() - event_dim:
            ok = ok.reshape(tuple(ok.shape[:value.dim() - event_dim]) + (-1,)).all(-1)
        if not bool(ok.all()):
            raise ValueError(f"Expected value argument (Tensor of shape {tuple(value.shape)}) to be "
                             f"within the support ({name}) of the distribution {self!r}, but found "
                             f"invalid values:\n{value}")

    def __repr__(self):
        parts = []
        for name in self.arg_constraints:
            if name in self.__dict__:
                v = self.__dict__[name]
                parts.append(f"{name}: {v if v.numel() == 1 else v.size()}")
        return f"{type(self).__name__}({', '.join(parts)})"
