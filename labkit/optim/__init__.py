"""labkit.optim: optimizers and learning-rate schedules (torch.optim).

    optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    loss.backward(); optimizer.step(); optimizer.zero_grad()
"""
from . import lr_scheduler  # noqa: F401
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler",
           "Adadelta", "Adamax", "NAdam", "RAdam", "LBFGS"]
from .asgd import ASGD  # noqa: E402
from .rprop import Rprop  # noqa: E402
__all__ += ["ASGD", "Rprop"]
from . import swa_utils  # noqa: E402,F401  (AveragedModel, SWALR, update_bn)

# a torch API that labkit lacks is named as such in the AttributeError
from ..engine.unsupported import module_getattr  # noqa: E402
__getattr__ = module_getattr(__name__, "torch.optim")
