"""Config modules with a fixed set of flags (torch._dynamo.config, torch._inductor.config).

LM training scripts set compiler knobs at the top (`torch._inductor.config.
coordinate_descent_tuning = True`). labkit's torch.compile runs eagerly (see _compile.py), so the
flags change nothing; they exist, hold torch's defaults, read back what was set, and, as torch's,
refuse names that are not flags, so a typo is still an error."""
import sys
import types


class ConfigModule(types.ModuleType):
    def __getattr__(self, name):
        raise AttributeError(f"{self._torch_name}.{name} does not exist")

    def __setattr__(self, name, value):
        if name.startswith("_") or name in self._flags:
            return super().__setattr__(name, value)
        raise AttributeError(f"{self._torch_name}.{name} does not exist")


class _Namespace:
    """A nested group of flags (torch._inductor.config.triton)."""

    def __init__(self, torch_name, **flags):
        object.__setattr__(self, "_torch_name", torch_name)
        object.__setattr__(self, "_flags", set(flags))
        for k, v in flags.items():
            object.__setattr__(self, k, v)

    def __getattr__(self, name):
        raise AttributeError(f"{self._torch_name}.{name} does not exist")

    def __setattr__(self, name, value):
        if name not in self._flags:
            raise AttributeError(f"{self._torch_name}.{name} does not exist")
        object.__setattr__(self, name, value)


def install(module_name, torch_name, flags):
    """Turn module `module_name` into a config module holding `flags` (name -> default)."""
    module = sys.modules[module_name]
    module._torch_name = torch_name
    module._flags = set(flags)
    for k, v in flags.items():
        setattr(module, k, _Namespace(f"{torch_name}.{k}", **v) if isinstance(v, dict) else v)
    module.__class__ = ConfigModule
