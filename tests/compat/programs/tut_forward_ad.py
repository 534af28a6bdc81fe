"""PyTorch tutorial "Forward-mode Automatic Differentiation" (intermediate_source/
forward_ad_usage.py): fwAD.dual_level(), make_dual(primal, tangent), unpack_dual(...).tangent,
the tangent of a Module via delattr/setattr of dual parameters and via
torch.func.functional_call, a custom autograd Function with a jvp(ctx, gI) staticmethod checked
with gradcheck(check_forward_ad=True, check_backward_ad=False, ...), and torch.func.jvp on a
function of two inputs and on a model's parameters; each tangent compared with reverse mode."""
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn
from torch.func import functional_call, jvp

torch.manual_seed(0)
primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)


def fn(x, y):
    return x ** 2 + y ** 2


with fwAD.dual_level():
    # To create a dual tensor we associate a tensor, which we call the
    # primal with another tensor of the same size, which we call the tangent.
    dual_input = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual_input).tangent is tangent

    # Tensors that do not have an associated tangent are automatically
    # considered to have a zero-filled tangent of the same shape.
    plain_tensor = torch.randn(10, 10)
    dual_output = fn(dual_input, plain_tensor)

    # Unpacking the dual returns a ``namedtuple`` with ``primal`` and ``tangent``
    # as attributes
    jvp_out = fwAD.unpack_dual(dual_output).tangent
    assert fwAD.unpack_dual(plain_tensor).tangent is None
    primal_out = fwAD.unpack_dual(dual_output).primal
assert fwAD.unpack_dual(dual_output).tangent is None
assert torch.allclose(jvp_out, 2 * primal * tangent)
assert torch.allclose(primal_out, fn(primal, plain_tensor))

# usage with modules
model = nn.Linear(5, 5)
input = torch.randn(16, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(input)
    jvp_mod = fwAD.unpack_dual(out).tangent
assert torch.allclose(jvp_mod, input @ tangents["weight"].T + tangents["bias"], atol=1e-6)

# using the functional Module API
model = nn.Linear(5, 5)
dual_params = {}
with fwAD.dual_level():
    for name, p in params.items():
        # Using the same ``tangents`` from the above section
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, input)
    jvp_fc = fwAD.unpack_dual(out).tangent
assert torch.allclose(jvp_fc, jvp_mod)


# custom autograd Function
class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        # Tensors stored in ``ctx`` can be used in the subsequent forward grad
        # computation.
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        # If the tensor stored in ``ctx`` will not also be used in the backward pass,
        # one can manually free it using ``del``
        del ctx.result
        return gO


fn_apply = Fn.apply
primal = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
tangent = torch.randn(10, 10)
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn_apply(dual_input)
    jvp_fn = fwAD.unpack_dual(dual_output).tangent
assert torch.allclose(jvp_fn, tangent.double() * primal.exp())
assert torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True,
                                check_backward_ad=False, check_undefined_grad=False,
                                check_batched_grad=False)

# functional API (torch.func.jvp)
primal0, tangent0 = torch.randn(10, 10), torch.randn(10, 10)
primal1, tangent1 = torch.randn(10, 10), torch.randn(10, 10)
primal_out, tangent_out = jvp(fn, (primal0, primal1), (tangent0, tangent1))
assert torch.allclose(tangent_out, 2 * primal0 * tangent0 + 2 * primal1 * tangent1)

model = nn.Linear(5, 5)
input = torch.randn(16, 5)
params = {name: p.detach() for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}


def func(params):
    return functional_call(model, params, input)


_, jvp_out = jvp(func, (params,), (tangents,))
assert torch.allclose(jvp_out, input @ tangents["weight"].T + tangents["bias"], atol=1e-6)

# a deeper net: forward mode agrees with a reverse-mode Jacobian-vector product
net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3), nn.Softplus())
x, v = torch.randn(4), torch.randn(4)
with fwAD.dual_level():
    forward_tangent = fwAD.unpack_dual(net(fwAD.make_dual(x, v))).tangent
J = torch.autograd.functional.jacobian(net, x)
assert torch.allclose(forward_tangent, J @ v, atol=1e-6)
