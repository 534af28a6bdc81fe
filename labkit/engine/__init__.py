"""The autograd engine: tensors, Functions, the backward engine, and the primitive ops."""
from . import ops  # noqa: F401  (attaches the op methods to Tensor)
from .autograd import (backward, detect_anomaly, execution_order, grad, is_anomaly_enabled,
                       set_detect_anomaly, sum_to)
from .device import Device
from .function import Function, Node
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .gradcheck import GradcheckError, gradcheck
from .tensor import Size, Tensor
from .unsupported import name_missing

name_missing(Tensor, "torch.Tensor")   # after every op method is attached

__all__ = ["Tensor", "Size", "Device", "Function", "Node", "backward", "grad", "sum_to",
           "detect_anomaly", "set_detect_anomaly", "execution_order", "no_grad", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "inference_mode", "gradcheck", "GradcheckError",
           "is_anomaly_enabled", "is_inference_mode_enabled"]
