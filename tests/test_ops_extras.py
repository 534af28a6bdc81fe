"""Trig, diagonals, finding, fused multiply-add forms and statistics against torch: values,
dtypes, gradients, second derivatives, views, edge cases, errors."""
import numpy as np
import pytest

import labkit
from op_checks import arr, check_second, run

torch = pytest.importorskip("torch")

DIFF = {
    "tan": (lambda M, x: M.tan(x), [(3, 4)], 0.5),
    "asin": (lambda M, x: M.asin(x), [(3, 4)], 0.9),
    "acos": (lambda M, x: x.acos(), [(3, 4)], 0.9),
    "atan": (lambda M, x: M.arctan(x), [(3, 4)], 2.0),
    "diagonal": (lambda M, x: x.diagonal(), [(3, 4)], 2.0),
    "diagonal_offset": (lambda M, x: M.diagonal(x, 1, -1, 0), [(2, 3, 4)], 2.0),
    "diagonal_neg_offset": (lambda M, x: x.diagonal(-2), [(4, 3)], 2.0),
    "diag_vec": (lambda M, x: M.diag(x), [(3,)], 2.0),
    "diag_vec_offset": (lambda M, x: M.diag(x, -1), [(3,)], 2.0),
    "diag_mat": (lambda M, x: x.diag(1), [(3, 4)], 2.0),
    "diag_embed": (lambda M, x: M.diag_embed(x), [(2, 3)], 2.0),
    "trace": (lambda M, x: M.trace(x), [(3, 4)], 2.0),
    "masked_select": (lambda M, x: M.masked_select(x, x > 0), [(3, 4)], 2.0),
    "masked_select_broadcast": (lambda M, x: x.masked_select(x[0] > 0), [(3, 4)], 2.0),
    "addcmul": (lambda M, a, b, c: M.addcmul(a, b, c, value=0.5), [(3, 4), (4,), (3, 1)], 2.0),
    "addcdiv": (lambda M, a, b, c: a.addcdiv(b, c.exp(), value=-2), [(3, 4), (3, 4), (3, 4)], 2.0),
    "index_add": (lambda M, a, s: a.index_add(0, M.tensor([2, 0, 2]) if M is torch else
                                              labkit.tensor([2, 0, 2], device=a.device), s,
                                              alpha=2.0), [(3, 4), (3, 4)], 2.0),
    "clamp_min": (lambda M, x: M.clamp_min(x, 0.3), [(3, 4)], 2.0),
    "clamp_max": (lambda M, x: x.clamp_max(-0.3), [(3, 4)], 2.0),
    "median": (lambda M, x: x.median(), [(3, 5)], 2.0),
    "median_dim": (lambda M, x: tuple(M.median(x, 1)), [(3, 4)], 2.0),
    "median_keepdim": (lambda M, x: tuple(x.median(0, keepdim=True)), [(3, 4)], 2.0),
    "var_mean": (lambda M, x: M.var_mean(x, 1), [(3, 4)], 2.0),
    "std_mean": (lambda M, x: M.std_mean(x, (0, 1), keepdim=True), [(3, 4)], 2.0),
    "std_mean_all": (lambda M, x: M.std_mean(x), [(3, 4)], 2.0),
}


@pytest.mark.parametrize("name", sorted(DIFF))
def test_differentiable_extras(device, name):
    f, shapes, r = DIFF[name]
    run(device, f, *[arr(s, i, -r, r) for i, s in enumerate(shapes)])


@pytest.mark.parametrize("name", sorted(n for n in DIFF if "median" not in n))
def test_differentiable_extras_second_derivative(device, name):
    f, shapes, r = DIFF[name]

    def g(M, *xs):
        out = f(M, *xs)
        out = M.cat([o.reshape(-1) for o in out]) if isinstance(out, tuple) else out
        return out ** 2
    check_second(device, g, *[arr(s, i + 5, -r, r) for i, s in enumerate(shapes)])


def test_diagonal_is_a_view_like_torch():
    for M in (labkit, torch):
        x = M.zeros(3, 3)
        x.diagonal().fill_(2.0)
        x.diagonal(1).add_(1.0)
        assert x.tolist() == [[2, 1, 0], [0, 2, 1], [0, 0, 2]]


def test_inplace_through_diagonal_records_the_graph(device):
    def f(M, a):
        y = a * 2
        y.diagonal().mul_(3)
        return y
    run(device, f, arr((3, 3)))


@pytest.mark.parametrize("data", [[[0, 1.5], [2, 0]], [0.0, 0.0], [], 3.0, 0.0, [[True, False]]],
                         ids=str)
def test_nonzero_and_argwhere(device, data):
    x, t = labkit.tensor(data, device=device), torch.tensor(data)
    for f in (lambda M, x: M.nonzero(x), lambda M, x: x.argwhere()):
        got, want = f(labkit, x), f(torch, t)
        assert got.dtype == labkit.int64 and tuple(got.shape) == tuple(want.shape)
        assert got.tolist() == want.tolist()
    got, want = x.nonzero(as_tuple=True), t.nonzero(as_tuple=True)
    assert [g.tolist() for g in got] == [w.tolist() for w in want]


@pytest.mark.parametrize("kw", [{}, {"return_inverse": True}, {"return_counts": True},
                                {"return_inverse": True, "return_counts": True}, {"dim": 0}],
                         ids=str)
def test_unique(device, kw):
    data = np.array([[3, 1, 3], [1, 1, 2], [3, 1, 3]])
    got = labkit.unique(labkit.tensor(data, device=device), **kw)
    want = torch.unique(torch.tensor(data), **kw)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.dtype == labkit.int64 and g.tolist() == w.tolist()


def test_count_nonzero_and_isclose():
    data = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 1e-9]])
    x, t = labkit.tensor(data), torch.tensor(data)
    assert labkit.count_nonzero(x).item() == torch.count_nonzero(t).item()
    assert x.count_nonzero(dim=0).tolist() == t.count_nonzero(dim=0).tolist()
    got = labkit.isclose(x, labkit.zeros(2, 3, dtype=labkit.float64))
    want = torch.isclose(t, torch.zeros(2, 3, dtype=torch.float64))
    assert got.tolist() == want.tolist() and got.dtype == labkit.bool
    nan = labkit.tensor([float("nan")])
    assert nan.isclose(nan, equal_nan=True).item() and not nan.isclose(nan).item()


def test_fused_inplace_forms_match_torch(device):
    """Adam's update written by hand, as textbooks do, on labkit and torch."""
    rng = np.random.default_rng(0)
    p, g = rng.standard_normal(5), rng.standard_normal(5)
    out = []
    for M, dev in ((labkit, device), (torch, "cpu")):
        P, G = M.tensor(p, device=dev), M.tensor(g, device=dev)
        m, v = M.zeros(5, dtype=M.float64, device=dev), M.zeros(5, dtype=M.float64, device=dev)
        for _ in range(3):
            m.mul_(0.9).add_(G, alpha=0.1)
            v.mul_(0.999).addcmul_(G, G, value=0.001)
            P.addcdiv_(m, v.sqrt().add_(1e-8), value=-0.01)
            m.lerp_(G, 0.5)
            P.index_add_(0, M.tensor([1, 1], device=dev), G[:2].clone(), alpha=0.1)
        out.append(P.cpu().numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-12)


@pytest.mark.parametrize("call,kind", [
    (lambda M: M.diagonal(M.zeros(3)), IndexError),
    (lambda M: M.zeros(3, 3).diagonal(0, 1, 1), RuntimeError),
    (lambda M: M.trace(M.zeros(3)), RuntimeError),
    (lambda M: M.diag(M.zeros(2, 2, 2)), RuntimeError),
    (lambda M: M.masked_select(M.zeros(3), M.tensor([True, False])), RuntimeError),
    (lambda M: M.zeros(3).index_add(0, M.tensor([3]), M.ones(1)), IndexError),
    (lambda M: M.zeros(3, 2).index_add(0, M.tensor([0]), M.ones(2)), RuntimeError),
    (lambda M: M.addcdiv(M.zeros(2), M.tensor([1, 2]), M.tensor([1, 2])), RuntimeError),
    (lambda M: M.zeros(2, 0).median(1), IndexError),
])
def test_errors_like_torch(call, kind):
    with pytest.raises(kind):
        call(torch)
    with pytest.raises(kind):
        call(labkit)


def test_median_of_even_count_is_the_lower_middle_and_of_ints():
    x = [[4, 1, 3, 2], [0, 0, 5, 5]]
    v, i = labkit.tensor(x).median(1)
    tv, ti = torch.tensor(x).median(1)
    assert v.tolist() == tv.tolist() and v.dtype == labkit.int64
    assert labkit.tensor(x).median().item() == torch.tensor(x).median().item()


def test_where_with_only_a_condition_is_nonzero_as_tuple():
    data = [[0.0, 1.0], [2.0, 0.0]]
    got = labkit.where(labkit.tensor(data) > 0)
    want = torch.where(torch.tensor(data) > 0)
    assert [g.tolist() for g in got] == [w.tolist() for w in want]
    x = labkit.tensor(data)
    assert labkit.where(x > 0, x, -x).tolist() == torch.where(torch.tensor(data) > 0,
                                                              torch.tensor(data),
                                                              -torch.tensor(data)).tolist()
