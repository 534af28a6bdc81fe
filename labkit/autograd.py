"""labkit.autograd: Function, backward, grad, gradcheck and anomaly detection (torch.autograd)."""
from .engine import (Function, GradcheckError, backward, detect_anomaly, gradcheck, grad,  # noqa
                     set_detect_anomaly)
from .engine.function import Node  # noqa: F401
from .engine.grad_mode import no_grad, enable_grad, set_grad_enabled  # noqa: F401

# a torch API that labkit lacks is named as such in the AttributeError
from .engine.unsupported import module_getattr  # noqa: E402
__getattr__ = module_getattr(__name__, "torch.autograd")
