"""nn.DataParallel on one device: the wrapper that older training scripts and checkpoints use
(state_dict keys start with "module."). torch splits the batch over several GPUs; with one
device, as here, it runs the module as it is -- which is also what torch does then."""
from .module import Module


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = [] if device_ids is None else list(device_ids)
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
