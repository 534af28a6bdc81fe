"""What a traced or scripted module shows of the module it came from: its submodules,
parameters, buffers and attributes read through (traced.linear, traced.parameters(),
traced.state_dict(), traced.eval()), as torch's ScriptModule exposes them. The graph reads the
parameters by reference, so an optimizer stepping traced.parameters() changes what it computes.
"""


class ModuleView:
    module = None

    def __getattr__(self, name):
        # only called when normal lookup fails
        module = self.__dict__.get("module")
        if module is None or name.startswith("__"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'"
                                 + ("" if module is None else
                                    f" (nor has its module {type(module).__name__})"))
        return getattr(module, name)

    def __dir__(self):
        own = set(super().__dir__())
        return sorted(own | set(dir(self.module)) if self.module is not None else own)

    def forward(self, *args):
        """Same as calling it (torch's ScriptModule.forward)."""
        return self(*args)
