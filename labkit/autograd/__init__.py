"""labkit.autograd: Function, backward, grad, gradcheck and anomaly detection (torch.autograd);
functional (jacobian, hessian, vjp, jvp, hvp, vhp) and function (once_differentiable)."""
from ..engine import (Function, GradcheckError, backward, detect_anomaly, gradcheck, grad,  # noqa
                      is_anomaly_enabled, set_detect_anomaly)
from ..engine.function import Node  # noqa: F401
from ..engine.grad_mode import no_grad, enable_grad, set_grad_enabled  # noqa: F401
from . import forward_ad, function, functional, profiler  # noqa: F401
from .function import once_differentiable  # noqa: F401
from .gradgradcheck import gradgradcheck  # noqa: F401
from .gradcheck import GradcheckError  # noqa: F401,E402,F811  (loads the submodule first)
from .gradcheck_ad import gradcheck  # noqa: F401,E402  (with check_forward_ad=...)
from ..legacy import Variable  # noqa: F401,E402  (deprecated alias, as torch.autograd.Variable)
from . import grad_mode, variable  # noqa: F401,E402
from .grad_mode import inference_mode, set_multithreading_enabled  # noqa: F401,E402

# a torch API that labkit lacks is named as such in the AttributeError
from ..engine.unsupported import module_getattr  # noqa: E402
__getattr__ = module_getattr(__name__, "torch.autograd")
