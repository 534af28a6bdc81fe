"""torch.autograd.gradcheck as a module, for `from torch.autograd.gradcheck import gradcheck`
(the package attribute `labkit.autograd.gradcheck` stays the function, as in torch)."""
from ..engine import GradcheckError  # noqa: F401
from .gradcheck_ad import gradcheck  # noqa: F401
from .gradgradcheck import gradgradcheck  # noqa: F401
