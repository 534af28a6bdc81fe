"""torch.autograd.gradcheck with torch's options: besides backward (reverse mode), it can check
forward mode (check_forward_ad=True: each Jacobian column from a jvp, against the same central
differences), or only forward mode (check_backward_ad=False, for a Function with jvp but no
backward, as in the forward-mode tutorial)."""
import numpy as np

from ..engine.creation import zeros_like
from ..engine.gradcheck import GradcheckError, _outputs, numerical_jacobian
from ..engine.gradcheck import gradcheck as _backward_check
from ..engine.tensor import Tensor


def gradcheck(func, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, *,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """True when the derivatives match central differences (float64 inputs). labkit's ops are
    deterministic (nondet_tol has nothing to allow for), always hand backward zeros for unused
    outputs (check_undefined_grad holds by construction) and checks every entry (fast_mode
    checks a random projection in torch: the full check is stricter)."""
    if check_batched_grad or check_batched_forward_grad:
        raise NotImplementedError("gradcheck: labkit does not check batched gradients "
                                  "(check_batched_grad / check_batched_forward_grad); check "
                                  "vmap over autograd.grad separately with labkit.func.vmap.")
    if masked:
        raise NotImplementedError("gradcheck: masked=True is for sparse inputs, which labkit "
                                  "does not have.")
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if check_backward_ad and not _backward_check(func, inputs, eps, atol, rtol, raise_exception):
        return False
    if check_forward_ad:
        return _forward_check(func, inputs, eps, atol, rtol, raise_exception)
    return True


def _forward_check(func, inputs, eps, atol, rtol, raise_exception):
    for n, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and x._data.dtype != np.float64:
            raise GradcheckError(
                f"gradcheck: input {n} is {x.dtype}; use float64 (x.double()), since float32 "
                "rounding errors are larger than the differences being measured.")
    n_out = len(_outputs(func, inputs))
    for i, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x.requires_grad):
            continue
        for o in range(n_out):
            num = numerical_jacobian(func, inputs, i, o, eps)
            ana = forward_jacobian(func, inputs, i, o)
            bad = ~np.isclose(ana, num, rtol=rtol, atol=atol)
            if bad.any():
                err = np.abs(ana - num)
                r, c = np.unravel_index(np.argmax(np.where(bad, err, -1)), err.shape)
                msg = (f"gradcheck: forward-mode (jvp) mismatch for input {i} (shape "
                       f"{tuple(x.shape)}), output {o}: worst at input element {int(c)} (flat), "
                       f"output element {int(r)}: forward AD gave {ana[r, c]:.6g}, central "
                       f"differences gave {num[r, c]:.6g} ({int(bad.sum())} of {bad.size} "
                       f"entries differ beyond atol={atol}, rtol={rtol}).")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def forward_jacobian(func, inputs, i, out_index=0):
    """d out / d inputs[i] from forward mode, one input element (a jvp) at a time."""
    from ..func import jvp
    x = inputs[i].detach()

    def f(xi):
        args = list(inputs)
        args[i] = xi
        return _outputs(func, args)[out_index]

    cols = []
    for k in range(x.numel()):
        t = zeros_like(x)
        t.view(-1)[k] = 1
        _, tangent = jvp(f, (x,), (t,))
        cols.append(np.asarray(tangent._host(), dtype=np.float64).reshape(-1))
    if not cols:
        return np.zeros((_outputs(func, inputs)[out_index].numel(), 0))
    return np.stack(cols, axis=1)
