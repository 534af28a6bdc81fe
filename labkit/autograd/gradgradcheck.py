"""gradgradcheck: gradcheck of the gradient itself, i.e. of second derivatives."""
from ..engine.autograd import grad
from ..engine.creation import randn
from ..engine.grad_mode import enable_grad
from ..engine.gradcheck import gradcheck
from ..engine.tensor import Tensor


def gradgradcheck(func, inputs, grad_outputs=None, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True):
    """Check that backward's own backward (create_graph=True) matches central differences
    of backward. The upstream gradients grad_outputs (random when not given) are inputs too,
    since the gradient is linear in them. Use float64."""
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    outs = func(*inputs)
    outs = (outs,) if isinstance(outs, Tensor) else tuple(outs)
    if grad_outputs is None:
        grad_outputs = tuple(randn(*o.shape, dtype=o.dtype, device=o.device,
                                   requires_grad=True) for o in outs if o.requires_grad)
    else:
        grad_outputs = (grad_outputs,) if isinstance(grad_outputs, Tensor) else \
            tuple(grad_outputs)
    n = len(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_derivative(*args):
        xs, gs = args[:n], args[n:]
        with enable_grad():      # (gradcheck's central differences run under no_grad)
            outs = func(*xs)
            outs = (outs,) if isinstance(outs, Tensor) else tuple(outs)
            outs = [o for o in outs if o.requires_grad]
            grads = grad(outs, [xs[i] for i in diff], gs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)
    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
