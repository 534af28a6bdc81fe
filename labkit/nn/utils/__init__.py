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
from . import prune  # noqa: E402
__all__ += ["prune"]
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,  # noqa: E402
                     fuse_linear_bn_weights)
from .init_helpers import (convert_conv2d_weight_memory_format,  # noqa: E402
                           convert_conv3d_weight_memory_format, skip_init)
from ... import func as stateless  # noqa: E402  (stateless.functional_call)
__all__ += ["remove_spectral_norm", "spectral_norm", "fuse_conv_bn_eval", "fuse_conv_bn_weights",
            "fuse_linear_bn_eval", "fuse_linear_bn_weights", "convert_conv2d_weight_memory_format",
            "convert_conv3d_weight_memory_format", "skip_init", "stateless"]

# a torch API that labkit lacks is named as such in the AttributeError
from ...engine.unsupported import module_getattr  # noqa: E402
__getattr__ = module_getattr(__name__, "torch.nn.utils")
