"""A `torch` that is labkit: put tests/compat/shim first on sys.path and `import torch` gives
labkit, `import torch.nn.functional as F` gives labkit.nn.functional, and so on.

Each `torch.X` submodule is the same module object as `labkit.X` (never a second copy, so
classes and module state are shared); a submodule labkit lacks fails the import saying so.
"""
import importlib
import importlib.abc
import importlib.util
import sys

import labkit


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `torch.X` as `labkit.X`."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("torch."):
            return None
        real = "labkit" + fullname[len("torch"):]
        try:
            importlib.import_module(real)
        except ModuleNotFoundError as e:
            if e.name != real:
                raise
            raise ModuleNotFoundError(f"labkit does not implement {fullname}; see docs/compat.md",
                                      name=fullname) from None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        module = sys.modules["labkit" + spec.name[len("torch"):]]
        self._spec = module.__spec__    # the import system overwrites it: put it back below
        return module

    def exec_module(self, module):
        module.__spec__ = self._spec


sys.meta_path.insert(0, _Alias())
for _name, _module in list(sys.modules.items()):
    if _name.startswith("labkit."):
        sys.modules["torch" + _name[len("labkit"):]] = _module
sys.modules[__name__] = labkit
