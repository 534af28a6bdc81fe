"""Reverse mode as function transforms: grad, grad_and_value, vjp, jacrev, and the Jacobians
built from vmap (jacrev: one vjp per output element, batched; jacfwd: one jvp per input
element, batched), hessian = jacfwd(jacrev(f))."""
from ..engine import autograd
from ..engine.creation import eye
from ..engine.function import AccumulateGrad
from ..engine.grad_mode import enable_grad
from ..engine.hooks import current_tracer
from ..engine.ops import rules
from ..engine.tensor import Tensor
from . import _tree
from ._alias import leaf
from .batching import vmap
from ._level import _Running, running
from .forward import jvp


def _outer_needs_graph(out, xs, primals):
    """Whether an enclosing grad (or ordinary autograd) may differentiate the result again:
    an input is already in a graph, or the output depends on other tensors that require grad."""
    if current_tracer() is not None or _Running.depth > 1 or any(p.requires_grad for p in primals):
        return True
    for node in autograd.execution_order(out):
        if type(node) is AccumulateGrad and not getattr(node.variable, "_func_input", False):
            return True
    return False


def finish(result, inputs):
    """At the outermost transform, results leave no graph behind (as torch.func's do), unless
    something outside may still differentiate them."""
    if _Running.depth > 1 or current_tracer() is not None or any(isinstance(x, Tensor) and x.requires_grad
                                      for x in _tree.flatten(inputs)[0]):
        return result
    return _tree.tree_map(lambda t: t.detach() if isinstance(t, Tensor) and t.requires_grad
                          and not _outer_needs_graph(t, (), ()) else t, result)


def _grads(outs, xs, cts, keep):
    """d(outs)/d(xs) against the cotangents, zeros where an input is not used."""
    live = [(o, c) for o, c in zip(outs, cts) if o.requires_grad]
    if not live:
        return [rules.zeros_like(x) for x in xs]
    with enable_grad():
        gs = autograd.grad([o for o, _ in live], xs, [c for _, c in live], retain_graph=True,
                           create_graph=keep, allow_unused=True)
    return [rules.zeros_like(x) if g is None else g for g, x in zip(gs, xs)]


def _split(args, argnums, name):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if not -len(args) <= n < len(args):
            raise RuntimeError(f"{name}: argnums {argnums} is out of range for a function called "
                               f"with {len(args)} positional argument(s).")
    return nums


def _check_float(leaves, name):
    for x in leaves:
        if not isinstance(x, Tensor) or x._data.dtype.kind != "f":
            raise RuntimeError(
                f"{name}: can only differentiate with respect to floating-point tensors, got "
                f"{x.dtype if isinstance(x, Tensor) else type(x).__name__}. Convert it "
                "(x.float()) or leave it out of argnums.")


def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning (gradient of func at argnums, func's value) (torch.func)."""
    def wrapper(*args, **kwargs):
        with running:
            return _grad_and_value(func, argnums, has_aux, args, kwargs)
    return wrapper


def _grad_and_value(func, argnums, has_aux, args, kwargs):
    nums = _split(args, argnums, "grad")
    chosen = tuple(args[n] for n in nums)
    leaves, rebuild = _tree.flatten(chosen)
    _check_float(leaves, "grad")
    xs = [leaf(x) for x in leaves]
    new = list(args)
    for n, v in zip(nums, rebuild(xs)):
        new[n] = v
    with enable_grad():
        out = func(*new, **kwargs)
    aux = None
    if has_aux:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise RuntimeError("grad(f, has_aux=True): f must return a pair (output, aux).")
        out, aux = out
    if not isinstance(out, Tensor) or out.numel() != 1:
        got = (f"a tensor of shape {tuple(out.shape)}" if isinstance(out, Tensor)
               else type(out).__name__)
        raise RuntimeError(
            f"grad(f)(*args): expected f(*args) to return a scalar tensor, got {got}. "
            "Reduce it first (.sum(), .mean()), or use vjp / jacrev for non-scalar outputs.")
    keep = out.requires_grad and _outer_needs_graph(out, xs, leaves)
    gs = _grads([out], xs, [rules.zeros_like(out) + 1], keep)
    g = rebuild(gs)
    g = g[0] if isinstance(argnums, int) else g
    if not keep:
        out = out.detach() if current_tracer() is None else out
    return (g, (out, aux)) if has_aux else (g, out)


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar function, as a new function (torch.func.grad, jax.grad)."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn): vjp_fn(cotangents) gives cotangents @ J for each primal."""
    leaves, rebuild = _tree.flatten(primals)
    _check_float(leaves, "vjp")
    xs = [leaf(x) for x in leaves]
    with running, enable_grad():
        out = func(*rebuild(xs))
    aux = None
    if has_aux:
        out, aux = out
    o_leaves, _ = _tree.flatten(out)

    def vjp_fn(cotangents):
        c_leaves, _ = _tree.flatten(cotangents)
        if len(c_leaves) != len(o_leaves):
            raise RuntimeError(f"vjp_fn: expected {len(o_leaves)} cotangent(s), one per output, "
                               f"got {len(c_leaves)}.")
        for o, c in zip(o_leaves, c_leaves):
            if tuple(o.shape) != tuple(c.shape):
                raise RuntimeError(f"vjp_fn: a cotangent of shape {tuple(c.shape)} for an output "
                                   f"of shape {tuple(o.shape)}; they must match.")
        keep = any(o.requires_grad and _outer_needs_graph(o, xs, leaves) for o in o_leaves)
        return tuple(rebuild(_grads(o_leaves, xs, c_leaves, keep)))
    result = (out, vjp_fn)
    return result + (aux,) if has_aux else result


def _basis(t):
    """The standard basis of t's space, stacked: shape (t.numel(), *t.shape)."""
    n = t.numel()
    return eye(n, dtype=t.dtype, device=t.device).reshape(n, *t.shape)


def jacrev(func, argnums=0, *, has_aux=False):
    """The Jacobian by reverse mode: one vjp per output element, batched by vmap."""
    def wrapper(*args):
        with running:
            return impl(*args)

    def impl(*args):
        nums = _split(args, argnums, "jacrev")
        diff = tuple(args[n] for n in nums)

        def f(*d):
            new = list(args)
            for n, v in zip(nums, d):
                new[n] = v
            return func(*new)
        res = vjp(f, *diff, has_aux=has_aux)
        out, fn = res[0], res[1]
        if not isinstance(out, Tensor):
            raise RuntimeError("jacrev: f must return one tensor.")
        rows = vmap(lambda ct: fn(ct.reshape(out.shape)))(_basis(out).reshape(out.numel(), -1))
        jac = tuple(_rows_to_jacobian(r, d, out) for r, d in zip(rows, diff))
        jac = finish(jac[0] if isinstance(argnums, int) else jac, args)
        return (jac, res[2]) if has_aux else jac
    return wrapper


def _rows_to_jacobian(rows, primal, out):
    """Rows (out.numel(), ...) as a Jacobian (*out.shape, *x.shape) for each tensor x in the
    primal (a tensor, or a dict/tuple of them such as a model's parameters)."""
    r_leaves, rebuild = _tree.flatten(rows)
    p_leaves, _ = _tree.flatten(primal)
    return rebuild([r.reshape(*out.shape, *p.shape) for r, p in zip(r_leaves, p_leaves)])


def jacfwd(func, argnums=0, *, has_aux=False):
    """The Jacobian by forward mode: one jvp per input element, batched by vmap."""
    def wrapper(*args):
        with running:
            return impl(*args)

    def impl(*args):
        nums = _split(args, argnums, "jacfwd")
        diff = tuple(args[n] for n in nums)

        def f(*d):
            new = list(args)
            for n, v in zip(nums, d):
                new[n] = v
            return func(*new)
        cols, aux = [], None
        for i, d in enumerate(diff):
            def push(t, i=i):
                tangents = tuple(t.reshape(d.shape) if j == i else rules.zeros_like(x)
                                 for j, x in enumerate(diff))
                res = jvp(f, diff, tangents, has_aux=has_aux)
                return res[1]
            out = jvp(f, diff, tuple(rules.zeros_like(x) for x in diff), has_aux=has_aux)
            if has_aux:
                aux = out[2]
            out = out[0]
            if not isinstance(out, Tensor):
                raise RuntimeError("jacfwd: f must return one tensor.")
            c = vmap(push)(_basis(d).reshape(d.numel(), -1))      # (n_in, *out.shape)
            c = c.reshape(d.numel(), out.numel()).transpose(0, 1)
            cols.append(c.reshape(*out.shape, *d.shape))
        jac = finish(cols[0] if isinstance(argnums, int) else tuple(cols), args)
        return (jac, aux) if has_aux else jac
    return wrapper


def hessian(func, argnums=0):
    """Second derivatives: forward over reverse, jacfwd(jacrev(f))."""
    return jacfwd(jacrev(func, argnums), argnums)
