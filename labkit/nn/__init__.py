"""labkit.nn: modules, parameters, layers, containers and losses (torch.nn).

    model = nn.Sequential(nn.Linear(2, 100), nn.ReLU(), nn.Linear(100, 3))
    loss = nn.CrossEntropyLoss()(model(x), y)
"""
from . import functional, init, utils  # noqa: F401
from .activation import GELU, LeakyReLU, ReLU, Sigmoid, Softmax, Tanh
from .batchnorm import BatchNorm1d
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv2d
from .dropout import Dropout
from .embedding import Embedding
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .parameter import Parameter
from .pooling import MaxPool2d

__all__ = ["Module", "Parameter", "Linear", "Identity", "Conv2d", "MaxPool2d", "Flatten",
           "Dropout", "BatchNorm1d", "Embedding", "ReLU", "LeakyReLU", "Sigmoid", "Tanh", "GELU",
           "Softmax", "Sequential", "ModuleList", "ModuleDict", "MSELoss", "L1Loss",
           "CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss", "functional", "init", "utils"]

# a torch API that labkit lacks is named as such in the AttributeError
from ..engine.unsupported import module_getattr  # noqa: E402
__getattr__ = module_getattr(__name__, "torch.nn")
