"""Numerical gradient checking: central differences in float64 against backward()."""
import numpy as np

from .autograd import grad as autograd_grad
from .grad_mode import no_grad
from .tensor import Tensor


class GradcheckError(RuntimeError):
    """Analytical and numerical gradients disagree."""


def _outputs(fn, inputs):
    out = fn(*inputs)
    return (out,) if isinstance(out, Tensor) else tuple(out)


def numerical_jacobian(fn, inputs, i, out_index=0, eps=1e-6):
    """d out / d inputs[i] by central differences, shape (out.numel(), inputs[i].numel()).
    A host (numpy) array, whatever the device: it is compared with analytical_jacobian's."""
    x = inputs[i]
    if not x._data.flags.c_contiguous:
        x._data = x._data.copy()
    flat = x._data.reshape(-1)
    cols = []
    with no_grad():
        for k in range(flat.size):
            orig = flat[k].item()
            flat[k] = orig + eps
            plus = _outputs(fn, inputs)[out_index]._host().astype(np.float64).reshape(-1)
            flat[k] = orig - eps
            minus = _outputs(fn, inputs)[out_index]._host().astype(np.float64).reshape(-1)
            flat[k] = orig
            cols.append((plus - minus) / (2 * eps))
    return np.stack(cols, axis=1) if cols else np.zeros((0, 0))


def analytical_jacobian(fn, inputs, i, out_index=0):
    """d out / d inputs[i] from backward, one output element at a time."""
    out = _outputs(fn, inputs)[out_index]
    rows = []
    for k in range(out._data.size):
        seed = np.zeros(out._data.size, dtype=out._data.dtype)
        seed[k] = 1
        g_out = Tensor._make(out.device.xp.asarray(seed.reshape(out._data.shape)), out.device)
        (g,) = autograd_grad(out, inputs[i], g_out, retain_graph=True, allow_unused=True)
        rows.append(np.zeros(inputs[i]._data.size) if g is None
                    else np.asarray(g._host(), dtype=np.float64).reshape(-1))
    return np.stack(rows, axis=0) if rows else np.zeros((0, inputs[i]._data.size))


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True when backward's gradients match central differences for every input requiring grad.

    Use float64 inputs: float32 rounding (1e-7) swamps a difference quotient with eps = 1e-6.
    """
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    for n, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and x._data.dtype != np.float64:
            raise GradcheckError(
                f"gradcheck: input {n} is {x.dtype}; use float64 (x.double()), since float32 "
                "rounding errors are larger than the differences being measured.")
    n_out = len(_outputs(fn, inputs))
    for i, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x.requires_grad):
            continue
        for o in range(n_out):
            num = numerical_jacobian(fn, inputs, i, o, eps)
            ana = analytical_jacobian(fn, inputs, i, o)
            bad = ~np.isclose(ana, num, rtol=rtol, atol=atol)
            if bad.any():
                err = np.abs(ana - num)
                r, c = np.unravel_index(np.argmax(np.where(bad, err, -1)), err.shape)
                elem = np.unravel_index(c, x._data.shape) if x._data.ndim else ()
                msg = (f"gradcheck: gradient mismatch for input {i} (shape {tuple(x.shape)}), "
                       f"output {o}: worst at input element {tuple(int(e) for e in elem)}, output "
                       f"element {int(r)}: backward gave {ana[r, c]:.6g}, central differences "
                       f"gave {num[r, c]:.6g} ({int(bad.sum())} of {bad.size} entries differ "
                       f"beyond atol={atol}, rtol={rtol}).")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True
