"""Building modules without the cost of their default initialisation, and reordering
convolution weights in memory (torch.nn.utils.skip_init, convert_conv2d_weight_memory_format,
convert_conv3d_weight_memory_format)."""


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) with its parameters left uninitialised (built on the meta
    device, then given empty memory): for code that overwrites them right away (a checkpoint
    load), saving the random draws."""
    if "device" not in module_cls.__init__.__code__.co_varnames:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)


def _convert_weights(module, memory_format, kinds):
    from ..conv import Conv2d, ConvTranspose2d      # (the nn layer sits above nn.utils)
    from .. import conv3d
    classes = {"2d": (Conv2d, ConvTranspose2d), "3d": (conv3d.Conv3d,)}[kinds]
    if isinstance(module, classes):
        module.weight.data = module.weight.detach().contiguous(memory_format=memory_format)
    for child in module.children():
        _convert_weights(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Every Conv2d/ConvTranspose2d weight in module stored in memory_format (e.g.
    labkit.channels_last), in place; returns module."""
    return _convert_weights(module, memory_format, "2d")


def convert_conv3d_weight_memory_format(module, memory_format):
    return _convert_weights(module, memory_format, "3d")
