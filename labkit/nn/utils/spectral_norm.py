"""The deprecated hook form of spectral normalisation, nn.utils.spectral_norm (still what most
GAN code calls): `weight` becomes `weight_orig` (the parameter) divided by sigma, its largest
singular value, estimated by power iteration with the vectors `weight_u` and `weight_v`
(buffers, saved in the state_dict). A forward pre-hook recomputes weight before each call and,
in training, runs one more power-iteration step (v first, then u, as torch). The current form
is parametrizations.spectral_norm."""
from ..functional import normalize
from ..parameter import Parameter
from ...engine.grad_mode import no_grad


def _matrix(weight, dim):
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.dim()) if d != dim))
    return weight.reshape(weight.shape[0], -1)


class SpectralNorm:
    """The forward pre-hook nn.utils.spectral_norm registers."""

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.dim, self.eps = name, dim, eps
        self.n_power_iterations = n_power_iterations

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        mat = _matrix(weight, self.dim)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(normalize(mat.t() @ u, dim=0, eps=self.eps))
                    u.copy_(normalize(mat @ v, dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()     # the graph keeps these, not the buffers
        return weight / u.dot(mat @ v)

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with no_grad():
            h, w = _matrix(weight, dim).shape
            u = normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=eps)
            v = normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.detach())
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """module with its `name` parameter spectrally normalised; returns module. dim: the output
    dim of the weight (1 for transposed convolutions, else 0)."""
    if dim is None:
        transposed = any(c.__name__.startswith("ConvTranspose") for c in type(module).__mro__)
        dim = 1 if transposed else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo spectral_norm: `name` becomes a plain parameter holding the normalised weight."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
