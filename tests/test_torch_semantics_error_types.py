"""The mistakes students make most (shape mismatches in matmul/Linear/conv/cat, wrong target
dtypes and batch sizes in losses, out-of-range indices and dims, in-place on leaves, numpy() of
a tensor that requires grad, ...) raise torch's exception type, so `except ValueError` code and
what a student looks up behave the same; labkit's own words teach the fix."""
import pytest

from snippets import check

pytest.importorskip("torch")

PRE = "nn = L.nn; F = nn.functional; x = L.ones(3, 4); "
CASES = [
    'L.ones(3, 4) @ L.ones(3, 4)',
    'L.mm(L.ones(3, 4), L.ones(3, 4))',
    'nn.Linear(5, 2)(x)',
    'L.ones(3) + L.ones(4)',
    'x.view(5, -1)',
    'L.cat([x, L.ones(3, 5)], 0)',
    'L.stack([x, L.ones(3, 5)])',
    'F.cross_entropy(x, L.tensor([0., 1., 2.]))',
    'F.cross_entropy(x, L.tensor([0, 1, 4]))',
    'F.cross_entropy(x, L.tensor([0, 1]))',
    'F.mse_loss(x, L.ones(3))',
    'F.nll_loss(x, L.tensor([0, 1, 2]).float())',
    'x[3]',
    'x[:, 4]',
    'x.sum(2)',
    'nn.Conv2d(3, 8, 3)(L.ones(1, 1, 8, 8))',
    'nn.Conv2d(3, 8, 3)(L.ones(3, 2, 2))',
    'nn.Embedding(5, 2)(L.tensor([5]))',
    'nn.Embedding(5, 2)(L.tensor([1.]))',
    'L.ones(2, dtype=L.long).requires_grad_()',
    'L.ones(2, requires_grad=True).add_(1)',
    'nn.LSTM(4, 8)(L.ones(3, 5))',
    'nn.BatchNorm1d(4)(L.ones(1, 4))',
    'F.binary_cross_entropy(x * 2, x)',
    'L.ones(2, 3).view(3, 2).T.view(6)',
    'L.tensor([1, 2]) / L.tensor([0, 0])',
    'L.ones(3).item()',
    'nn.Linear(4, 2)(L.ones(3, 4, dtype=L.float64))',
    'nn.Linear(4, 2)(L.ones(3, 4, dtype=L.long))',
    'L.ones(2, 2).expand(3, 3)',
    'L.ones(2, 2).reshape(3)',
    'L.randint(0, 5, (3,)).float().argmax(dim=2)',
    'L.gather(x, 1, L.tensor([[0], [1]]).float())',
    'L.ones(2).backward()',
    'F.softmax(L.tensor([1, 2]), 0)',
    'L.ones(2, 3).squeeze(3)',
    'L.zeros(2).new_zeros((2,)).index_select(0, L.tensor([2]))',
]


@pytest.mark.parametrize("case", CASES)
def test_a_mistake_raises_torchs_exception_type(case):
    check(PRE + "out = " + case, grads=False)
