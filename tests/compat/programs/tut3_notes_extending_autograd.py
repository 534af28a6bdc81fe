"""PyTorch docs "Extending PyTorch" (docs/source/notes/extending.rst) and "Extending torch.func
with autograd.Function" (notes/extending.func.rst): LinearFunction with a separate setup_context
and ctx.needs_input_grad deciding which gradients to compute, MulConstant returning None for its
non-tensor argument, MyCube returning dx as a second output so that double backward works
(grad_dx * 6 * x), the Linear module with register_parameter('bias', None) and extra_repr,
torch.autograd.gradcheck / gradgradcheck in double precision, and the torch.func side:
generate_vmap_rule = True so torch.func.vmap and torch.func.grad compose with MyCube."""
import torch
import torch.nn as nn
from torch.autograd import Function, gradcheck, gradgradcheck

needs_seen = []


# Inherit from Function
class LinearFunction(Function):

    # Note that forward, setup_context, and backward are @staticmethods
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    # inputs is a Tuple of all of the inputs passed to forward.
    # output is the output of the forward().
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    # This function has only a single output, so it gets only one gradient
    @staticmethod
    def backward(ctx, grad_output):
        # This is a pattern that is very convenient - at the top of backward
        # unpack saved_tensors and initialize all gradients w.r.t. inputs to
        # None. Thanks to the fact that additional trailing Nones are
        # ignored, the return statement is simple even when the function has
        # optional inputs.
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        needs_seen.append(tuple(ctx.needs_input_grad))

        # These needs_input_grad checks are optional and there only to
        # improve efficiency. If you want to make your code simpler, you can
        # skip them. Returning gradients for inputs that don't require it is
        # not an error.
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)

        return grad_input, grad_weight, grad_bias


class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        # ctx is a context object that can be used to stash information
        # for backward computation
        tensor, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        # We return as many input gradients as there were arguments.
        # Gradients of non-Tensor arguments to forward must be None.
        return grad_output * ctx.constant, None


class MyCube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        # We wish to save dx for backward. In order to do so, it must
        # be returned as an output.
        dx = 3 * x ** 2
        result = x ** 3
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        # In order for the autograd.Function to work with higher-order
        # gradients, we must add the gradient contribution of `dx`,
        # which is grad_dx * 6 * x.
        result = grad_output * dx + grad_dx * 6 * x
        return result


# Wrap MyCube in a function so that it is clearer what the output is
def my_cube(x):
    result, dx = MyCube.apply(x)
    return result


linear = LinearFunction.apply


class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features

        # nn.Parameter is a special kind of Tensor, that will get
        # automatically registered as Module's parameter once it's assigned
        # as an attribute. Parameters and buffers need to be registered, or
        # they won't appear in .parameters() (doesn't apply to buffers), and
        # won't be converted when e.g. .cuda() is called. You can use
        # .register_buffer() to register buffers.
        # nn.Parameters require gradients by default.
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            # You should always register all possible parameters, but the
            # optional ones can be None if you want.
            self.register_parameter('bias', None)

        # Not a very smart way to initialize weights
        nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, input):
        # See the autograd section for explanation of what happens here.
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        # (Optional)Set the extra information about this module. You can test
        # it by printing an object of this class.
        return 'input_features={}, output_features={}, bias={}'.format(
            self.input_features, self.output_features, self.bias is not None
        )


torch.manual_seed(0)
# gradcheck takes a tuple of tensors as input, check if your gradient
# evaluated with these tensors are close enough to numerical
# approximations and returns True if they all verify this condition.
input = (torch.randn(20, 20, dtype=torch.double, requires_grad=True),
         torch.randn(30, 20, dtype=torch.double, requires_grad=True))
test = gradcheck(linear, input + (None,), eps=1e-6, atol=1e-4)
print(test)
assert test

bias = torch.randn(30, dtype=torch.double, requires_grad=True)
assert gradcheck(linear, input + (bias,), eps=1e-6, atol=1e-4)

# needs_input_grad follows requires_grad: a frozen input gets no gradient computed
needs_seen.clear()
x = torch.randn(4, 20)
w = torch.randn(30, 20, requires_grad=True)
linear(x, w, None).sum().backward()
assert needs_seen == [(False, True, False)]
assert torch.allclose(w.grad, torch.ones(4, 30).t().mm(x))

m = Linear(20, 30)
print(m)
assert "input_features=20, output_features=30, bias=True" in repr(m)
m_nobias = Linear(20, 30, bias=False)
assert m_nobias.bias is None and [n for n, _ in m_nobias.named_parameters()] == ["weight"]
out = m(x)
ref = nn.functional.linear(x, m.weight, m.bias)
assert torch.allclose(out, ref)
out.pow(2).sum().backward()
g_w = m.weight.grad.clone()
m.zero_grad()
ref.pow(2).sum().backward()
assert torch.allclose(g_w, m.weight.grad)

a = torch.randn(5, requires_grad=True)
MulConstant.apply(a, 2.5).sum().backward()
assert torch.allclose(a.grad, torch.full((5,), 2.5))
assert gradcheck(MulConstant.apply, (torch.randn(5, dtype=torch.double, requires_grad=True), 3.0))

xc = torch.tensor([0.5, -1.0, 2.0], dtype=torch.double, requires_grad=True)
assert gradcheck(my_cube, (xc,)) and gradgradcheck(my_cube, (xc,))
(g,) = torch.autograd.grad(my_cube(xc).sum(), xc, create_graph=True)
assert torch.allclose(g, 3 * xc ** 2)
(gg,) = torch.autograd.grad(g.sum(), xc)
assert torch.allclose(gg, 6 * xc)

# torch.func: vmap over a Function with generate_vmap_rule, and grad of grad
batched = torch.func.vmap(my_cube)(torch.arange(6.).view(3, 2))
assert torch.equal(batched, torch.arange(6.).view(3, 2) ** 3)
x0 = torch.tensor(1.5)
assert torch.allclose(torch.func.grad(my_cube)(x0), torch.tensor(3 * 1.5 ** 2))
assert torch.allclose(torch.func.grad(torch.func.grad(my_cube))(x0), torch.tensor(6 * 1.5))
