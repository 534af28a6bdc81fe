"""labkit.autograd.gradcheck: central differences in float64 against backward()."""
import numpy as np
import pytest

import labkit
from labkit.autograd import GradcheckError, gradcheck
from labkit.engine import functional as F


def x64(*shape, seed=0, positive=False, requires_grad=True):
    rng = np.random.default_rng(seed)
    arr = rng.uniform(0.5, 2.0, shape) if positive else rng.uniform(-2.0, 2.0, shape)
    return labkit.tensor(arr, dtype=labkit.float64, requires_grad=requires_grad)


CORRECT = {
    "mul": (lambda a, b: a * b, [(3, 4), (4,)]),
    "div": (lambda a, b: a / b, [(3, 4), "pos(3, 1)"]),
    "pow": (lambda a, b: a ** b, ["pos(2, 3)", (2, 3)]),
    "matmul": (lambda a, b: a @ b, [(2, 3, 4), (4, 5)]),
    "tanh_exp": (lambda a: (a.tanh() * a.exp()).sum(1), [(3, 4)]),
    "log_sqrt": (lambda a: a.log() + a.sqrt(), ["pos(5,)"]),
    "softmax": (lambda a: a.softmax(dim=1), [(3, 4)]),
    "log_softmax": (lambda a: a.log_softmax(dim=0), [(3, 4)]),
    "var_std": (lambda a: a.var(0) + a.std(1, keepdim=True), [(3, 4)]),
    "reductions": (lambda a: a.amax(1) + a.mean(1) - a.max(dim=1).values * a.min(), [(3, 4)]),
    "shape": (lambda a: a.permute(1, 0).reshape(2, 6)[:, ::2].unsqueeze(0).expand(3, 2, 3),
              [(3, 4)]),
    "index": (lambda a: a[labkit.tensor([0, 2, 0])] * a[1:, None], [(3, 4)]),
    "cat_split": (lambda a, b: labkit.cat([a, b], 1).split([2, 5], 1)[1], [(3, 2), (3, 5)]),
    "cross_entropy": (lambda a: F.cross_entropy(a, labkit.tensor([0, 3, 1])), [(3, 4)]),
    "bce": (lambda a: F.binary_cross_entropy_with_logits(a, labkit.tensor(
        [[0.0, 1.0, 0.3, 1.0]] * 3, dtype=labkit.float64)), [(3, 4)]),
    "linear": (lambda x, w, b: F.linear(x, w, b).sigmoid(), [(5, 3), (2, 3), (2,)]),
    "multi_output": (lambda a: (a.max(1).values, a.sum(0)), [(3, 4)]),
}


def _inputs(specs):
    out = []
    for i, s in enumerate(specs):
        if isinstance(s, str):
            out.append(x64(*eval(s[3:]), seed=i, positive=True))  # noqa: S307 (test data)
        else:
            out.append(x64(*s, seed=i))
    return out


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_gradcheck_passes_on_correct_ops(name):
    fn, specs = CORRECT[name]
    assert gradcheck(fn, _inputs(specs)) is True


def test_gradcheck_accepts_a_single_tensor_and_skips_inputs_without_grad():
    assert gradcheck(lambda a: a.exp(), x64(4))
    assert gradcheck(lambda a, c: a * c, (x64(3), x64(3, requires_grad=False)))


class WrongSin(labkit.autograd.Function):
    """sin whose backward uses sin instead of cos."""
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.sin()


class WrongSecondInput(labkit.autograd.Function):
    """a * b whose gradient for b is off by one at element (1, 2) only."""
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        bump = np.zeros(tuple(b.shape))
        bump[1, 2] = 1.0
        return grad * b, grad * a + labkit.tensor(bump) * grad


def test_gradcheck_raises_for_a_wrong_backward():
    with pytest.raises(GradcheckError) as e:
        gradcheck(WrongSin.apply, (x64(2, 3),))
    msg = str(e.value)
    assert "input 0" in msg and "(2, 3)" in msg and "worst" in msg


def test_gradcheck_names_the_input_and_the_worst_element():
    a, b = x64(2, 3, seed=1), x64(2, 3, seed=2)
    with pytest.raises(GradcheckError) as e:
        gradcheck(WrongSecondInput.apply, (a, b))
    msg = str(e.value)
    assert "input 1" in msg and "(1, 2)" in msg
    assert "1 of 36" in msg  # one wrong entry of the 6x6 Jacobian


def test_gradcheck_returns_false_without_raising():
    assert gradcheck(WrongSin.apply, (x64(3),), raise_exception=False) is False


def test_gradcheck_error_is_a_runtime_error():
    assert issubclass(GradcheckError, RuntimeError)


def test_gradcheck_refuses_float32():
    x = labkit.randn(3, requires_grad=True)
    with pytest.raises(GradcheckError, match="float64"):
        gradcheck(lambda a: a * 2, (x,))


def test_gradcheck_leaves_inputs_unchanged():
    a = x64(3, 4)
    before = a.detach().numpy().copy()
    gradcheck(lambda t: t.tanh(), (a,))
    np.testing.assert_array_equal(a.detach().numpy(), before)
    assert a.grad is None


def test_gradcheck_with_a_non_contiguous_input():
    a = x64(4, 3).detach().t().requires_grad_()
    assert gradcheck(lambda t: (t * t).sum(0), (a,))


def test_gradcheck_catches_a_gradient_that_is_wrong_only_through_broadcasting():
    class ForgetsToSum(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, grad):
            return grad, grad[0]  # b of shape (3,) should get grad.sum(0)

    with pytest.raises(GradcheckError, match="input 1"):
        gradcheck(ForgetsToSum.apply, (x64(4, 3), x64(3)))


def test_gradcheck_on_the_device(device):
    """Central differences on the device's arrays, compared on the host."""
    a = x64(3, 4).to(device).detach().requires_grad_()
    b = x64(4, seed=1).to(device).detach().requires_grad_()
    assert gradcheck(lambda a, b: (a * b).tanh().sum(1), (a, b))
    with pytest.raises(GradcheckError):
        gradcheck(WrongSin.apply, (a,))
