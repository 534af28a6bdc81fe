"""torch.nn.modules's path to the Module machinery, so that code written for torch, such as
torch.nn.modules.module.register_module_forward_hook(hook), runs unchanged."""
import sys

from .. import module

sys.modules[__name__ + ".module"] = module

__all__ = ["module"]
