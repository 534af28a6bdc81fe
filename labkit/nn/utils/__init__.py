"""labkit.nn.utils: helpers around training (torch.nn.utils)."""
from . import rnn  # noqa: F401
from .clip_grad import clip_grad_norm_, clip_grad_value_
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters", "rnn"]
from .grad_norm import clip_grad_norm, clip_grads_with_norm_, get_total_norm  # noqa: E402
__all__ += ["clip_grad_norm", "clip_grads_with_norm_", "get_total_norm"]
from . import parametrizations, parametrize  # noqa: E402
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402
__all__ += ["parametrizations", "parametrize", "remove_weight_norm", "weight_norm"]

# a torch API that labkit lacks is named as such in the AttributeError
from ...engine.unsupported import module_getattr  # noqa: E402
__getattr__ = module_getattr(__name__, "torch.nn.utils")
