"""Function transforms with torch.func's names and JAX's ideas: a transform takes a function and
returns a new one, so transforms compose (vmap(grad(f)), jacfwd(jacrev(f))).

    grad, grad_and_value, vjp, jacrev   reverse mode (labkit's autograd)
    jvp, jacfwd                          forward mode (each op's tangent rule)
    hessian                              jacfwd(jacrev(f))
    vmap                                 batching (each op's batching rule)
    functional_call                      a module as a pure function of its parameters
"""
from .batching import vmap  # noqa: F401
from .forward import jvp  # noqa: F401
from .functional_call import functional_call  # noqa: F401
from .reverse import grad, grad_and_value, hessian, jacfwd, jacrev, vjp  # noqa: F401
from .stack_module_state import stack_module_state  # noqa: F401
