"""torch.autograd.functional: derivatives of a whole function at a point, from backward.

    jacobian(f, x)    d f(x) / d x, shape f(x).shape + x.shape (one backward per output element)
    hessian(f, x)     the jacobian of the gradient of a scalar f
    vjp(f, x, v)      v^T J (one backward);  jvp(f, x, v)  J v (backward of a backward)
    hvp / vhp         H v and v^T H

Inputs may be a tensor or a tuple of tensors, and so may outputs; the results nest the same
way ([output][input] for jacobian). Gradients are taken at detached copies of the inputs, so
the caller's graph is untouched; create_graph=True keeps the results differentiable.
"""
from ..engine.autograd import grad
from ..engine.creation import zeros, zeros_like
from ..engine.grad_mode import enable_grad
from ..engine.ops.join import stack
from ..engine.tensor import Tensor

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"]


def _as_tuple(x, what, fn_name):
    single = isinstance(x, Tensor)
    xs = (x,) if single else tuple(x) if isinstance(x, (tuple, list)) else None
    if xs is None or not all(isinstance(t, Tensor) for t in xs):
        raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of "
                        f"Tensors but one of the elements is {type(x).__name__}.")
    return single, xs


def _prepare(inputs, create_graph):
    """Fresh leaves requiring grad (or, with create_graph, views that keep the caller's graph)."""
    return tuple(x.view(x.shape) if create_graph and x.requires_grad
                 else x.detach().requires_grad_(True) for x in inputs)


def _grads(outputs, inputs, grad_outputs, create_graph, strict, fn_name, what="output"):
    """grad of sum(outputs * grad_outputs) w.r.t. inputs; zeros where independent."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if pairs:
        res = grad([o for o, _ in pairs], inputs, [g for _, g in pairs],
                   retain_graph=True, create_graph=create_graph, allow_unused=True)
    else:
        res = (None,) * len(inputs)
    out = []
    for i, (r, x) in enumerate(zip(res, inputs)):
        if r is None:
            if strict:
                raise RuntimeError(f"{fn_name}: the {what} of the user-provided function is "
                                   f"independent of input {i}. This is not allowed in strict "
                                   "mode.")
            r = zeros_like(x)
        out.append(r)
    return tuple(out)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of func at inputs: for output i and input j, a tensor of shape
    outputs[i].shape + inputs[j].shape."""
    if strategy != "reverse-mode":
        raise NotImplementedError("jacobian: labkit computes it in reverse mode only "
                                  "(strategy='reverse-mode').")
    single_in, inputs = _as_tuple(inputs, "inputs", "jacobian")
    with enable_grad():
        xs = _prepare(inputs, create_graph)
        outs = func(*xs)
        single_out, outs = _as_tuple(outs, "outputs of the user-provided function", "jacobian")
        jac = []
        for o in outs:
            flat = o.reshape(-1)
            rows = [[] for _ in xs]
            for k in range(flat.shape[0]):
                seed = zeros(flat.shape[0], dtype=o.dtype, device=o.device)
                seed[k] = 1.0
                if o.requires_grad:
                    gs = grad([flat], xs, [seed], retain_graph=True, create_graph=create_graph,
                              allow_unused=True)
                else:
                    gs = (None,) * len(xs)
                for j, (g, x) in enumerate(zip(gs, xs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"jacobian: output {len(jac)} of the "
                                               f"user-provided function is independent of "
                                               f"input {j}. This is not allowed in strict mode.")
                        g = zeros_like(x)
                    rows[j].append(g)
            jac.append(tuple(
                (stack(r) if r else zeros(0, *x.shape, dtype=o.dtype, device=o.device))
                .reshape(tuple(o.shape) + tuple(x.shape)) for r, x in zip(rows, xs)))
    if not create_graph:
        jac = [tuple(j.detach() for j in row) for row in jac]
    if single_out:
        return jac[0][0] if single_in else jac[0]
    return tuple(row[0] for row in jac) if single_in else tuple(jac)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar func: for inputs j, k a tensor of shape
    inputs[j].shape + inputs[k].shape."""
    single_in, inputs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs):
        out = func(*xs)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError("hessian: the function given to hessian should return a single "
                               "element Tensor, got "
                               + (f"shape {tuple(out.shape)}" if isinstance(out, Tensor)
                                  else type(out).__name__) + ".")
        out = out.reshape(())
        return _grads((out,), xs, (None,), True, strict, "hessian")
    res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict)
    return res[0][0] if single_in else res


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): one backward with v as the upstream gradient."""
    single_in, inputs = _as_tuple(inputs, "inputs", "vjp")
    with enable_grad():
        xs = _prepare(inputs, create_graph)
        outs = func(*xs)
        single_out, outs = _as_tuple(outs, "outputs of the user-provided function", "vjp")
        vs = _check_v(v, outs, "vjp")
        res = _grads(outs, xs, vs, create_graph, strict, "vjp")
    outs = outs if create_graph else tuple(o.detach() for o in outs)
    res = res if create_graph else tuple(r.detach() for r in res)
    return (outs[0] if single_out else outs), (res[0] if single_in else res)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v), by the double-backward trick: u -> u^T J is linear in u, so its
    vjp with v is J v."""
    single_in, inputs = _as_tuple(inputs, "inputs", "jvp")
    vs = _check_v(v, inputs, "jvp")
    with enable_grad():
        xs = _prepare(inputs, create_graph)
        outs = func(*xs)
        single_out, outs = _as_tuple(outs, "outputs of the user-provided function", "jvp")
        us = tuple(zeros_like(o).requires_grad_(True) for o in outs)
        g = _grads(outs, xs, us, True, strict, "jvp")
        res = _grads(g, us, vs, create_graph, strict, "jvp", "gradient")
    outs = outs if create_graph else tuple(o.detach() for o in outs)
    res = res if create_graph else tuple(r.detach() for r in res)
    return (outs[0] if single_out else outs), (res[0] if single_out else res)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar func."""
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar func (H is symmetric, so the same as vhp)."""
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


def _hessian_product(func, inputs, v, create_graph, strict, name):
    single_in, inputs = _as_tuple(inputs, "inputs", name)
    vs = _check_v(v, inputs, name)
    with enable_grad():
        xs = _prepare(inputs, create_graph)
        out = func(*xs)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError(f"{name}: The Tensor returned by the function given to {name} "
                               "should contain a single element")
        g = _grads((out.reshape(()),), xs, (None,), True, strict, name)
        res = _grads(g, xs, vs, create_graph, strict, name, "gradient")
    out = out if create_graph else out.detach()
    res = res if create_graph else tuple(r.detach() for r in res)
    return out, (res[0] if single_in else res)


def _check_v(v, like, name):
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(f"{name}: The vector v can only be None if the input to the "
                               "user-provided function is a single Tensor with a single "
                               "element.")
        return (None,)
    _, vs = _as_tuple(v, "v", name)
    if len(vs) != len(like):
        raise RuntimeError(f"{name}: v has {len(vs)} tensor(s), but {len(like)} were expected.")
    for i, (a, b) in enumerate(zip(vs, like)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"{name}: Mismatch in size for v[{i}]: got {tuple(a.shape)} but "
                               f"expected {tuple(b.shape)}.")
    return vs
