"""Every differentiable op against PyTorch: values and gradients in float64, with a random
upstream gradient (not just .sum()), on every device. Broadcasting shapes come from hypothesis."""
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import labkit
from labkit.engine import functional as LF

torch = pytest.importorskip("torch")
TF = torch.nn.functional

H = settings(max_examples=30, deadline=None)


def run(oracle, device, f, *arrays, **kw):
    """f(M, *tensors) on labkit (M=labkit) and torch (M=torch), compared by oracle.check_op."""
    return oracle.check_op(lambda *a: f(labkit, *a), lambda *a: f(torch, *a), list(arrays),
                           device=device, **kw)


def arr(oracle, shape, seed=0, **kw):
    return oracle.rand_array(shape, seed=seed, **kw)


# --- binary arithmetic with broadcasting ----------------------------------------------------

BINARY = {
    "add": lambda M, a, b: a + b,
    "add_fn_alpha": lambda M, a, b: M.add(a, b, alpha=2.5),
    "sub": lambda M, a, b: a - b,
    "sub_fn_alpha": lambda M, a, b: M.sub(a, b, alpha=-0.5),
    "mul": lambda M, a, b: a * b,
    "div": lambda M, a, b: a / b,
    "pow": lambda M, a, b: a ** b,
    "maximum": lambda M, a, b: M.maximum(a, b),
    "minimum": lambda M, a, b: M.minimum(a, b),
    "where": lambda M, a, b: M.where(a > 0, a, b),
}
# (a positive base keeps pow real; a divisor away from 0 keeps div tame)
_POSITIVE_A = {"pow"}
_POSITIVE_B = {"div"}

FIXED_SHAPES = [((3, 1, 4), (4,)), ((4,), (3, 1, 4)), ((2, 1), (1, 5)), ((), (2, 3)),
                ((2, 3), ()), ((2, 3), (2, 3)), ((5, 1, 1), (1, 2, 3))]


def _binary_case(oracle, device, name, sa, sb, seed=0):
    a = arr(oracle, sa, seed, positive=name in _POSITIVE_A)
    b = arr(oracle, sb, seed + 1, positive=name in _POSITIVE_B)
    run(oracle, device, BINARY[name], a, b)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("sa,sb", FIXED_SHAPES, ids=lambda s: str(s).replace(" ", ""))
def test_binary_fixed_broadcast(oracle, device, name, sa, sb):
    _binary_case(oracle, device, name, sa, sb)


@pytest.mark.parametrize("name", sorted(BINARY))
@H
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=3),
       seed=st.integers(0, 2 ** 16))
def test_binary_hypothesis_broadcast(oracle, device, name, shapes, seed):
    sa, sb = shapes.input_shapes
    _binary_case(oracle, device, name, sa, sb, seed)


@H
@given(shapes=mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3),
       seed=st.integers(0, 2 ** 16))
def test_where_three_way_broadcast(oracle, device, shapes, seed):
    sc, sa, sb = shapes.input_shapes
    c = arr(oracle, sc, seed)
    run(oracle, device, lambda M, c, a, b: M.where(c > 0, a, b), c, arr(oracle, sa, seed + 1),
        arr(oracle, sb, seed + 2))


SCALAR = {
    "t+2": lambda M, x: x + 2, "2+t": lambda M, x: 2 + x,
    "t-2": lambda M, x: x - 2, "2-t": lambda M, x: 2 - x,
    "t*3": lambda M, x: x * 3, "3*t": lambda M, x: 3 * x,
    "t/4": lambda M, x: x / 4, "4/t": lambda M, x: 4 / x,
    "t**2": lambda M, x: x ** 2, "t**3": lambda M, x: x ** 3, "t**0.5": lambda M, x: x ** 0.5,
    "t**-1.5": lambda M, x: x ** -1.5, "t**0": lambda M, x: x ** 0, "t**1": lambda M, x: x ** 1,
    "2**t": lambda M, x: 2 ** x, "0.5**t": lambda M, x: 0.5 ** x,
    "t.pow(2)": lambda M, x: x.pow(2), "pow(t,2.5)": lambda M, x: M.pow(x, 2.5),
    "neg": lambda M, x: -x, "neg()": lambda M, x: M.neg(x), "pos": lambda M, x: +x,
    "t+0.5*t": lambda M, x: x + 0.5 * x,  # the same tensor on both sides
    "t*t": lambda M, x: x * x, "t/t": lambda M, x: x / x, "t**t": lambda M, x: x ** x,
}


@pytest.mark.parametrize("name", sorted(SCALAR))
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_scalar_operands(oracle, device, name, shape):
    run(oracle, device, SCALAR[name], arr(oracle, shape, 3, positive=True))


def test_scalar_ops_on_negative_inputs(oracle, device):
    x = arr(oracle, (7,), 4, away_from=[0.0])
    for f in (lambda M, x: x ** 2, lambda M, x: x ** 3, lambda M, x: 1 / x, lambda M, x: 2 ** x,
              lambda M, x: x ** -2, lambda M, x: x * -3 - 1):
        run(oracle, device, f, x)


# --- unary ------------------------------------------------------------------------------------

UNARY = {
    "neg": (lambda M, x: M.neg(x), {}),
    "abs": (lambda M, x: M.abs(x), {"away_from": [0.0]}),
    "abs()": (lambda M, x: abs(x), {"away_from": [0.0]}),
    "exp": (lambda M, x: M.exp(x), {}),
    "log": (lambda M, x: M.log(x), {"positive": True}),
    "sqrt": (lambda M, x: M.sqrt(x), {"positive": True}),
    "sin": (lambda M, x: M.sin(x), {}),
    "cos": (lambda M, x: M.cos(x), {}),
    "tanh": (lambda M, x: M.tanh(x), {}),
    "sigmoid": (lambda M, x: M.sigmoid(x), {}),
    "relu": (lambda M, x: M.relu(x), {"away_from": [0.0]}),
    "clamp_min": (lambda M, x: M.clamp(x, min=-0.5), {"away_from": [-0.5]}),
    "clamp_max": (lambda M, x: x.clamp(max=0.7), {"away_from": [0.7]}),
    "clamp_both": (lambda M, x: x.clamp(-0.5, 0.7), {"away_from": [-0.5, 0.7]}),
    "clip": (lambda M, x: M.clip(x, -1.0, 1.0), {"away_from": [-1.0, 1.0]}),
    "clip_method": (lambda M, x: x.clip(min=-1.0), {"away_from": [-1.0]}),
    "sign": (lambda M, x: M.sign(x), {"away_from": [0.0]}),
    "exp.method": (lambda M, x: x.exp().log().sin().cos(), {}),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", [(), (6,), (3, 4), (2, 1, 3)])
def test_unary(oracle, device, name, shape):
    f, kw = UNARY[name]
    run(oracle, device, f, arr(oracle, shape, 5, **kw))


def test_clamp_gradient_at_the_boundary_matches_torch(oracle, device):
    # torch lets the gradient through where x == min or x == max
    x = np.array([-1.0, -0.5, 0.0, 0.7, 1.0])
    run(oracle, device, lambda M, x: x.clamp(-0.5, 0.7), x)
    run(oracle, device, lambda M, x: x.clamp(min=-0.5), x)
    run(oracle, device, lambda M, x: x.clamp(max=0.7), x)


def test_relu_and_abs_gradient_at_zero_match_torch(oracle, device):
    x = np.array([-1.0, 0.0, 2.0])
    run(oracle, device, lambda M, x: M.relu(x), x)
    run(oracle, device, lambda M, x: M.abs(x), x)


def test_maximum_minimum_ties_split_the_gradient(oracle, device):
    a = np.array([1.0, 2.0, 3.0])
    b = np.array([1.0, 5.0, 3.0])
    run(oracle, device, lambda M, a, b: M.maximum(a, b), a, b)
    run(oracle, device, lambda M, a, b: M.minimum(a, b), a, b)


def test_where_with_scalars(oracle, device):
    x = arr(oracle, (3, 4), 6)
    run(oracle, device, lambda M, x: M.where(x > 0, x, 0.0), x)
    run(oracle, device, lambda M, x: M.where(x > 0, 1.0, x), x)
    run(oracle, device, lambda M, x: x.where(x < 0.5, -x), x)


def test_sigmoid_is_stable_for_large_inputs(oracle, device):
    x = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0])
    run(oracle, device, lambda M, x: M.sigmoid(x), x)


# --- matmul -----------------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((4,), (4,)),            # dot
    ((3, 4), (4,)),          # mv
    ((4,), (4, 5)),          # vector @ matrix
    ((3, 4), (4, 5)),        # mm
    ((2, 3, 4), (2, 4, 5)),  # bmm
    ((2, 3, 4), (4, 5)),     # batch @ matrix
    ((3, 4), (2, 4, 5)),     # matrix @ batch
    ((2, 1, 3, 4), (5, 4, 2)),  # broadcasting batch dims
    ((4,), (2, 4, 5)),       # vector @ batch
    ((2, 3, 4), (4,)),       # batch @ vector
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=lambda s: str(s).replace(" ", ""))
def test_matmul(oracle, device, sa, sb):
    a, b = arr(oracle, sa, 7), arr(oracle, sb, 8)
    run(oracle, device, lambda M, a, b: a @ b, a, b)
    run(oracle, device, lambda M, a, b: M.matmul(a, b), a, b)
    run(oracle, device, lambda M, a, b: a.matmul(b), a, b, requires_grad=[False, True])
    run(oracle, device, lambda M, a, b: a @ b, a, b, requires_grad=[True, False])


def test_mm(oracle, device):
    a, b = arr(oracle, (3, 4), 9), arr(oracle, (4, 2), 10)
    run(oracle, device, lambda M, a, b: M.mm(a, b), a, b)
    run(oracle, device, lambda M, a, b: a.mm(b), a, b)
    run(oracle, device, lambda M, a, b: (a @ b) @ (b.t() @ a.t()), a, b)


def test_matmul_with_a_numpy_operand(oracle, device):
    # labkit.Tensor @ ndarray and ndarray @ labkit.Tensor (torch needs a tensor on both sides)
    a, b, c = arr(oracle, (3, 4), 11), arr(oracle, (4, 2), 12), arr(oracle, (2, 3), 13)
    if device == "cpu":
        run(oracle, device, lambda M, x: x @ (b if M is labkit else torch.tensor(b)), a)
        run(oracle, device, lambda M, x: (c if M is labkit else torch.tensor(c)) @ x, a)


# --- reductions -------------------------------------------------------------------------------

DIMS = [None, 0, 1, -1, (0, 2), (1, -1), (0, 1, 2)]


@pytest.mark.parametrize("op", ["sum", "mean", "var", "std", "amax", "amin"])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions(oracle, device, op, dim, keepdim):
    x = arr(oracle, (2, 3, 4), 13)
    if dim is None:
        if keepdim:
            pytest.skip("keepdim without dim is not an overload torch has for these ops")
        run(oracle, device, lambda M, x: getattr(x, op)(), x)
        run(oracle, device, lambda M, x: getattr(M, op)(x), x)
    else:
        run(oracle, device, lambda M, x: getattr(x, op)(dim, keepdim=keepdim), x)
        run(oracle, device, lambda M, x: getattr(M, op)(x, dim=dim, keepdim=keepdim), x)


@pytest.mark.parametrize("op", ["var", "std"])
def test_var_std_corrections(oracle, device, op):
    x = arr(oracle, (3, 5), 14)
    run(oracle, device, lambda M, x: getattr(x, op)(unbiased=False), x)
    run(oracle, device, lambda M, x: getattr(x, op)(1, unbiased=False), x)
    run(oracle, device, lambda M, x: getattr(x, op)(dim=0, correction=0), x)
    run(oracle, device, lambda M, x: getattr(x, op)(dim=1, correction=2, keepdim=True), x)


def test_sum_of_a_scalar_and_of_dtype(oracle, device):
    run(oracle, device, lambda M, x: x.sum(), np.array(3.0))
    run(oracle, device, lambda M, x: x.mean(), np.array(3.0))
    run(oracle, device, lambda M, x: x.sum(0), np.array(3.0))
    run(oracle, device, lambda M, x: x.sum(dtype=M.float32), arr(oracle, (3,), 1), rtol=1e-6)


def test_sum_of_bool_and_int_tensors_gives_int64():
    b = labkit.tensor([True, False, True])
    assert b.sum().item() == 2 and b.sum().dtype == labkit.int64
    i = labkit.tensor([[1, 2], [3, 4]])
    assert i.sum(0).tolist() == [4, 6] and i.sum().dtype == labkit.int64


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_all(oracle, device, op):
    run(oracle, device, lambda M, x: getattr(x, op)(), arr(oracle, (3, 4), 15))
    run(oracle, device, lambda M, x: getattr(M, op)(x), arr(oracle, (5,), 16))


@pytest.mark.parametrize("op", ["max", "min", "amax", "amin"])
def test_max_min_all_with_ties_share_the_gradient(oracle, device, op):
    x = np.array([[1.0, 3.0, -2.0], [3.0, -2.0, 0.0]])
    run(oracle, device, lambda M, x: getattr(x, op)(), x)


@pytest.mark.parametrize("op", ["amax", "amin"])
def test_amax_amin_dim_with_ties(oracle, device, op):
    x = np.array([[1.0, 3.0, 3.0], [-2.0, -2.0, 0.0]])
    run(oracle, device, lambda M, x: getattr(x, op)(1), x)
    run(oracle, device, lambda M, x: getattr(x, op)(dim=(0, 1)), x)


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_dim_values_and_indices(oracle, device, op, dim, keepdim):
    x = arr(oracle, (2, 3, 4), 17)
    lk, tt = run(oracle, device, lambda M, x: getattr(x, op)(dim, keepdim=keepdim), x)
    assert lk[1].dtype == labkit.int64
    lk_nt = getattr(labkit, op)(labkit.tensor(x), dim=dim, keepdim=keepdim)
    oracle.assert_close(lk_nt.values, tt[0])
    oracle.assert_close(lk_nt.indices, tt[1])


def test_max_dim_on_a_vector_and_with_ties(oracle, device):
    run(oracle, device, lambda M, x: x.max(0), arr(oracle, (5,), 18))
    run(oracle, device, lambda M, x: M.min(x, 0, keepdim=True), arr(oracle, (5,), 19))
    x = np.array([[1.0, 5.0, 5.0], [5.0, 1.0, 5.0]])
    run(oracle, device, lambda M, x: x.max(1), x)
    run(oracle, device, lambda M, x: x.min(0), x)


def test_argmax_argmin(oracle, device):
    x = arr(oracle, (3, 4), 20)
    for f in (lambda M, x: x.argmax(), lambda M, x: x.argmin(), lambda M, x: M.argmax(x, 1),
              lambda M, x: x.argmin(dim=0, keepdim=True), lambda M, x: x.argmax(-1, True)):
        run(oracle, device, f, x)


# --- softmax ----------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_softmax(oracle, device, op, dim):
    x = arr(oracle, (2, 3, 4), 21, low=-5, high=5)
    run(oracle, device, lambda M, x: getattr(M, op)(x, dim=dim), x)
    run(oracle, device, lambda M, x: getattr(x, op)(dim), x)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_is_stable_and_works_on_vectors_and_scalars(oracle, device, op):
    run(oracle, device, lambda M, x: getattr(M, op)(x, dim=0), np.array([1000.0, 0.0, -1000.0]))
    run(oracle, device, lambda M, x: getattr(M, op)(x, dim=-1), np.array([[1e4, 1e4 + 1.0]]))
    run(oracle, device, lambda M, x: getattr(M, op)(x, dim=0), np.array(0.3))


def test_functional_softmax_and_friends(oracle, device):
    x = arr(oracle, (3, 5), 22)
    run(oracle, device, lambda M, x: (LF if M is labkit else TF).softmax(x, dim=1), x)
    run(oracle, device, lambda M, x: (LF if M is labkit else TF).log_softmax(x, dim=0), x)
    run(oracle, device, lambda M, x: (LF if M is labkit else TF).relu(x), arr(oracle, (4,), 1,
                                                                             away_from=[0.0]))
    run(oracle, device, lambda M, x: (LF if M is labkit else torch).sigmoid(x), x)
    run(oracle, device, lambda M, x: (LF if M is labkit else torch).tanh(x), x)


# --- joining and splitting --------------------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat(oracle, device, dim):
    shapes = {0: [(1, 3), (2, 3), (4, 3)], 1: [(2, 1), (2, 4), (2, 2)], -1: [(2, 2)] * 3}[dim]
    a, b, c = (arr(oracle, s, i) for i, s in enumerate(shapes))
    run(oracle, device, lambda M, a, b, c: M.cat([a, b, c], dim=dim), a, b, c)
    run(oracle, device, lambda M, a, b, c: M.cat((a, b, c), dim), a, b, c,
        requires_grad=[True, False, True])
    run(oracle, device, lambda M, a, b, c: M.concat([a, a * b, c], dim=dim), a, b, c)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_stack(oracle, device, dim):
    a, b, c = (arr(oracle, (2, 3), i) for i in range(3))
    run(oracle, device, lambda M, a, b, c: M.stack([a, b, c], dim=dim), a, b, c)
    run(oracle, device, lambda M, a, b, c: M.stack([a, a, c], dim), a, b, c)


@pytest.mark.parametrize("size,dim", [(2, 0), (1, 1), (3, 1), ([1, 4], 1), ([2, 1, 2], 0),
                                      (4, -1), (10, 0)])
def test_split(oracle, device, size, dim):
    x = arr(oracle, (5, 5), 30)
    run(oracle, device, lambda M, x: x.split(size, dim), x)
    run(oracle, device, lambda M, x: M.split(x, size, dim=dim), x)


def test_split_using_only_some_pieces(oracle, device):
    x = arr(oracle, (6, 2), 31)
    run(oracle, device, lambda M, x: x.split(2)[1] * 3, x)
    run(oracle, device, lambda M, x: x.split([1, 5])[0].sum() + x.split(3)[1].mean(), x)


@pytest.mark.parametrize("chunks,dim", [(2, 0), (3, 0), (5, 1), (4, 1), (1, 0), (7, 1)])
def test_chunk(oracle, device, chunks, dim):
    x = arr(oracle, (5, 5), 32)
    run(oracle, device, lambda M, x: x.chunk(chunks, dim), x)
    run(oracle, device, lambda M, x: M.chunk(x, chunks, dim=dim), x)


def test_chunk_sizes_like_torch():
    for n in range(1, 9):
        for chunks in range(1, 7):
            mine = [c.shape[0] for c in labkit.arange(n).chunk(chunks)]
            ref = [c.shape[0] for c in torch.arange(n).chunk(chunks)]
            assert mine == ref, (n, chunks)


# --- shape ops --------------------------------------------------------------------------------

SHAPE_OPS = {
    "reshape": lambda M, x: x.reshape(4, 6),
    "reshape_tuple": lambda M, x: x.reshape((3, -1)),
    "reshape_fn": lambda M, x: M.reshape(x, (-1,)),
    "reshape_same": lambda M, x: x.reshape(2, 3, 4) * 2,
    "view": lambda M, x: x.view(6, 4),
    "view_minus1": lambda M, x: x.view(-1, 2, 2),
    "flatten": lambda M, x: x.flatten(),
    "flatten_1": lambda M, x: M.flatten(x, 1),
    "flatten_0_1": lambda M, x: x.flatten(0, 1),
    "flatten_neg": lambda M, x: x.flatten(-2, -1),
    "squeeze_none": lambda M, x: x.reshape(2, 1, 3, 1, 4).squeeze(),
    "squeeze_dim": lambda M, x: x.reshape(2, 1, 3, 1, 4).squeeze(1),
    "squeeze_neg": lambda M, x: x.reshape(2, 3, 4, 1).squeeze(-1),
    "squeeze_not1": lambda M, x: x.squeeze(0),
    "squeeze_fn": lambda M, x: M.squeeze(x.reshape(1, 24)),
    "unsqueeze0": lambda M, x: x.unsqueeze(0),
    "unsqueeze_end": lambda M, x: M.unsqueeze(x, 3),
    "unsqueeze_neg": lambda M, x: x.unsqueeze(-1),
    "unsqueeze_neg2": lambda M, x: x.unsqueeze(-2),
    "expand": lambda M, x: x[:, :1, :].expand(2, 5, 4),
    "expand_new_dims": lambda M, x: x[0, 0].expand(3, 2, 4),
    "expand_minus1": lambda M, x: x[:, :1].expand(-1, 3, -1),
    "expand_tuple": lambda M, x: x[:1].expand((3, 3, 4)),
    "expand_as": lambda M, x: x[:1, :1].expand_as(x),
    "transpose": lambda M, x: x.transpose(0, 2),
    "transpose_neg": lambda M, x: M.transpose(x, -1, -2),
    "swapaxes": lambda M, x: x.swapaxes(0, 1),
    "permute": lambda M, x: x.permute(2, 0, 1),
    "permute_tuple": lambda M, x: x.permute((1, 2, 0)),
    "permute_neg": lambda M, x: M.permute(x, (-1, 0, 1)),
    "t": lambda M, x: x[0].t(),
    "t_fn": lambda M, x: M.t(x[0]),
    "t_1d": lambda M, x: x[0, 0].t(),
    "T": lambda M, x: x[0].T,
    "mT": lambda M, x: x.mT,
    "clone": lambda M, x: x.clone(),
    "clone_fn": lambda M, x: M.clone(x) * x,
    "contiguous": lambda M, x: x.transpose(0, 1).contiguous().view(-1),
    "view_of_view": lambda M, x: x.view(6, 4).view(4, 6)[1:3].reshape(-1),
}


@pytest.mark.parametrize("name", sorted(SHAPE_OPS))
def test_shape_ops(oracle, device, name):
    run(oracle, device, SHAPE_OPS[name], arr(oracle, (2, 3, 4), 33))


def test_T_reverses_all_dims_on_higher_rank(oracle, device):
    # torch deprecates .T for ndim != 2 but still reverses all dims; labkit does the same
    x = arr(oracle, (2, 3, 4), 34)
    run(oracle, device, lambda M, x: x.permute(*range(x.ndim - 1, -1, -1)), x)
    mine = labkit.tensor(x, device=device).T
    assert tuple(mine.shape) == (4, 3, 2)
    np.testing.assert_array_equal(oracle.to_numpy(mine), x.transpose(2, 1, 0))


def test_shape_queries():
    x = labkit.zeros(2, 3, 4)
    t = torch.zeros(2, 3, 4)
    assert tuple(x.shape) == tuple(t.shape) and x.size(1) == t.size(1) and x.size(-1) == 4
    assert x.dim() == x.ndim == 3 and x.numel() == t.numel() == labkit.numel(x)
    assert len(x) == 2 and x.shape == (2, 3, 4) and x.size() == (2, 3, 4)
    assert repr(x.shape) == "labkit.Size([2, 3, 4])"


# --- indexing ---------------------------------------------------------------------------------

def _idx(M, kind):
    return {
        "int": 1, "neg_int": -1, "slice": slice(1, 3), "step": slice(None, None, 2),
        "neg_step_free": slice(-3, None), "none": None, "ellipsis": Ellipsis,
        "tuple": (0, slice(None, 2)), "ell_int": (Ellipsis, 1), "none_mid": (slice(None), None, 1),
        "dup_tensor": M.tensor([0, 2, 0, 0]), "list": [3, 1, 1], "neg_tensor": M.tensor([-1, 0]),
        "2d_tensor": M.tensor([[0, 1], [1, 1]]), "two_tensors": (M.tensor([0, 3, 0]),
                                                                  M.tensor([1, 2, 1])),
        "slice_and_tensor": (slice(1, None), M.tensor([2, 2, 0])),
        "int_and_tensor": (1, M.tensor([0, 0])), "bool_rows": M.tensor([True, False, True, True]),
        "scalar_tensor": M.tensor(2),
    }[kind]


IDX_KINDS = ["int", "neg_int", "slice", "step", "neg_step_free", "none", "ellipsis", "tuple",
             "ell_int", "none_mid", "dup_tensor", "list", "neg_tensor", "2d_tensor",
             "two_tensors", "slice_and_tensor", "int_and_tensor", "bool_rows", "scalar_tensor"]


@pytest.mark.parametrize("kind", IDX_KINDS)
def test_getitem(oracle, device, kind):
    x = arr(oracle, (4, 3), 40)

    def f(M, x):
        idx = _idx(M, kind)
        if device != "cpu" and M is labkit:
            idx = tuple(i.to(device) if isinstance(i, labkit.Tensor) else i for i in idx) \
                if isinstance(idx, tuple) else idx.to(device) if isinstance(idx, labkit.Tensor) \
                else idx
        return x[idx]
    run(oracle, device, f, x)


def test_getitem_bool_mask(oracle, device):
    x = arr(oracle, (4, 3), 41)
    run(oracle, device, lambda M, x: x[x > 0], x)
    run(oracle, device, lambda M, x: x[(x > 0).logical_not()] * 2, x)
    run(oracle, device, lambda M, x: x[x[:, 0] > 0], x)


def test_getitem_twice_the_same_element_accumulates(oracle, device):
    x = arr(oracle, (5,), 42)
    run(oracle, device, lambda M, x: x[1] * x[1] + x[1:3].sum() * x[2], x)


def test_iterating_over_a_tensor(oracle, device):
    x = arr(oracle, (3, 2), 43)
    run(oracle, device, lambda M, x: M.stack([r * (i + 1) for i, r in enumerate(x)]), x)


def test_setitem_records_the_graph(oracle, device):
    a, v = arr(oracle, (4, 3), 44), arr(oracle, (2, 3), 45)

    def f(M, a, v):
        x = a * 1
        x[1:3] = v
        return x * a

    run(oracle, device, f, a, v)
    run(oracle, device, f, a, v, requires_grad=[False, True])
    run(oracle, device, f, a, v, requires_grad=[True, False])


@pytest.mark.parametrize("kind", ["int", "mask", "tensor", "scalar", "broadcast_row"])
def test_setitem_kinds(oracle, device, kind):
    a, v = arr(oracle, (4, 3), 46), arr(oracle, (3,), 47)

    def f(M, a, v):
        x = a * 2
        if kind == "int":
            x[0] = v
        elif kind == "mask":
            x[x < 0] = 0
        elif kind == "tensor":
            i = M.tensor([0, 2])
            x[i.to(device) if M is labkit else i] = v * 3
        elif kind == "scalar":
            x[1, 2] = 5.0
        else:
            x[:, 1] = v[:1]
        return x
    run(oracle, device, f, a, v)


# --- conversions ------------------------------------------------------------------------------

def test_clone_and_to_dtype(oracle, device):
    x = arr(oracle, (3, 2), 48)
    run(oracle, device, lambda M, x: x.clone() * 2, x)
    run(oracle, device, lambda M, x: x.to(M.float32) * 2, x, rtol=1e-6, atol=1e-6)
    run(oracle, device, lambda M, x: x.float().double() * x, x, rtol=1e-6, atol=1e-6)
    run(oracle, device, lambda M, x: x.to(dtype=M.float64) * 2, x)
    run(oracle, device, lambda M, x: x.to(x) * 2, x)
    run(oracle, device, lambda M, x: x.type_as(x.float()), x, rtol=1e-6, atol=1e-6)


def test_to_float32_gradient_comes_back_as_float64():
    x = labkit.tensor([1.0, 2.0], dtype=labkit.float64, requires_grad=True)
    (x.float() * 3).sum().backward()
    assert x.grad.dtype == labkit.float64
    assert x.grad.tolist() == [3.0, 3.0]


def test_long_and_bool_conversions():
    x = labkit.tensor([1.7, -0.2, 0.0])
    t = torch.tensor([1.7, -0.2, 0.0])
    for name in ("long", "int", "bool", "double", "half", "float"):
        mine, ref = getattr(x, name)(), getattr(t, name)()
        assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1], name
        np.testing.assert_array_equal(mine.numpy(), ref.numpy())


# --- dtype promotion --------------------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    lambda M: M.tensor([1, 2]) + 1.5, lambda M: M.tensor([1, 2]) * 2,
    lambda M: M.tensor([1, 2]) / 2,
    lambda M: M.tensor([1, 2]) / M.tensor([2, 2]), lambda M: M.tensor([1.0]) + M.tensor([1]),
    lambda M: M.tensor([1.0], dtype=M.float64) * 2.5, lambda M: M.tensor([3, 4]) ** 2,
    lambda M: 2 ** M.tensor([1.0, 2.0]), lambda M: M.tensor([True, False]) + 1,
    lambda M: M.tensor([1, 2]).exp(), lambda M: M.tensor([1, 4]).sqrt(),
    lambda M: M.tensor([1.0, 2.0]).sum(), lambda M: M.tensor([[1, 2]]).float().mean(),
    lambda M: M.where(M.tensor([True, False]), M.tensor([1.0, 2.0]), 0.0),
    lambda M: M.tensor([1.0, 2.0], dtype=M.float64) @ M.tensor([1.0, 2.0], dtype=M.float64),
    lambda M: M.tensor([2, -3]).abs(), lambda M: M.tensor([2, -3]).clamp(min=0),
    lambda M: M.maximum(M.tensor([2, -3]), M.tensor([0, 0])),
    lambda M: M.tensor([-1.0, 2.0]).relu(), lambda M: M.tensor([0.5]).sigmoid(),
], ids=lambda f: "")
def test_dtype_promotion_like_torch(expr, oracle):
    mine, ref = expr(labkit), expr(torch)
    assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    oracle.assert_close(mine, ref, rtol=1e-6, atol=1e-7)


# --- functional losses and linear -------------------------------------------------------------

def F(M):
    return LF if M is labkit else TF


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_and_l1(oracle, device, reduction):
    a, b = arr(oracle, (4, 3), 50), arr(oracle, (4, 3), 51)
    run(oracle, device, lambda M, a, b: F(M).mse_loss(a, b, reduction=reduction), a, b)
    run(oracle, device, lambda M, a, b: F(M).l1_loss(a, b, reduction=reduction), a, b)
    run(oracle, device, lambda M, a, b: F(M).mse_loss(a, b, reduction=reduction), a, b,
        requires_grad=[True, False])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_and_nll(oracle, device, reduction):
    logits = arr(oracle, (5, 4), 52, low=-3, high=3)
    target = np.array([0, 3, 1, 3, 2], dtype=np.int64)
    run(oracle, device, lambda M, x, t: F(M).cross_entropy(x, t, reduction=reduction), logits,
        target)
    run(oracle, device,
        lambda M, x, t: F(M).nll_loss(F(M).log_softmax(x, dim=1), t, reduction=reduction),
        logits, target)
    run(oracle, device, lambda M, x, t: F(M).nll_loss(x, t, reduction=reduction), logits, target)


def test_cross_entropy_with_huge_logits(oracle, device):
    logits = np.array([[1000.0, -1000.0, 0.0], [0.0, 0.0, 500.0]])
    run(oracle, device, lambda M, x, t: F(M).cross_entropy(x, t), logits,
        np.array([1, 2], dtype=np.int64))


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(5, 3), (3,), (2, 5, 3)])
def test_linear(oracle, device, bias, shape):
    x, w, b = arr(oracle, shape, 53), arr(oracle, (4, 3), 54), arr(oracle, (4,), 55)
    if bias:
        run(oracle, device, lambda M, x, w, b: F(M).linear(x, w, b), x, w, b)
    else:
        run(oracle, device, lambda M, x, w: F(M).linear(x, w), x, w)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits(oracle, device, reduction):
    x = np.array([[-100.0, -2.0, 0.0], [0.5, 3.0, 100.0]])
    t = np.array([[0.0, 1.0, 0.3], [1.0, 0.0, 1.0]])
    run(oracle, device,
        lambda M, x, t: F(M).binary_cross_entropy_with_logits(x, t, reduction=reduction), x, t)
    run(oracle, device,
        lambda M, x, t: F(M).binary_cross_entropy_with_logits(x, t, reduction=reduction), x, t,
        requires_grad=[True, False])


def test_a_small_network_end_to_end(oracle, device):
    """Two layers, tanh, softmax cross-entropy: every parameter's gradient matches torch."""
    x, w1, b1 = arr(oracle, (8, 3), 60), arr(oracle, (5, 3), 61), arr(oracle, (5,), 62)
    w2, b2 = arr(oracle, (4, 5), 63), arr(oracle, (4,), 64)
    y = np.array([0, 1, 2, 3, 3, 2, 1, 0], dtype=np.int64)

    def net(M, x, w1, b1, w2, b2, y):
        h = F(M).linear(x, w1, b1).tanh()
        return F(M).cross_entropy(F(M).linear(h, w2, b2), y) + 0.01 * (w1 ** 2).sum()
    run(oracle, device, net, x, w1, b1, w2, b2, y, requires_grad=[False, True, True, True, True,
                                                                  False])


# --- more shapes from hypothesis ----------------------------------------------------------------

@st.composite
def matmul_shapes(draw):
    """Shapes for a @ b: batch dims that broadcast, and 1-D operands on either side."""
    batch = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3))
    m, k, n = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    sa, sb = batch.input_shapes
    a = (k,) if draw(st.booleans()) and not sa else sa + (m, k)
    b = (k,) if draw(st.booleans()) and not sb else sb + (k, n)
    return a, b


@H
@given(shapes=matmul_shapes(), seed=st.integers(0, 2 ** 16))
def test_matmul_hypothesis(oracle, device, shapes, seed):
    sa, sb = shapes
    run(oracle, device, lambda M, a, b: a @ b, arr(oracle, sa, seed), arr(oracle, sb, seed + 1))


@st.composite
def reduce_cases(draw):
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple))
    nd = len(shape)
    dims = draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd,
                         unique_by=lambda d: d % nd))
    dim = dims[0] if len(dims) == 1 and draw(st.booleans()) else tuple(dims)
    return shape, dim, draw(st.booleans())


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin", "var", "std", "softmax"])
@H
@given(case=reduce_cases(), seed=st.integers(0, 2 ** 16))
def test_reductions_hypothesis(oracle, device, op, case, seed):
    shape, dim, keepdim = case
    x = arr(oracle, shape, seed)
    if op == "softmax":
        d = dim if isinstance(dim, int) else dim[0]
        run(oracle, device, lambda M, x: x.softmax(d).log_softmax(d), x)
        return
    if op in ("var", "std"):
        n = int(np.prod([shape[d] for d in ((dim,) if isinstance(dim, int) else dim)]))
        if n < 2:
            return  # one element: torch gives nan with a warning; tested elsewhere
    run(oracle, device, lambda M, x: getattr(x, op)(dim, keepdim=keepdim), x)


@H
@given(data=st.data())
def test_basic_indexing_hypothesis(oracle, device, data):
    from hypothesis.extra.numpy import array_shapes, basic_indices
    shape = data.draw(array_shapes(min_dims=1, max_dims=3, max_side=4))
    idx = data.draw(basic_indices(shape, allow_newaxis=True))
    items = idx if isinstance(idx, tuple) else (idx,)
    # torch has no negative slice steps (x.flip does that), so it cannot be the oracle for them
    assume(not any(isinstance(i, slice) and (i.step or 1) < 0 for i in items))
    run(oracle, device, lambda M, x: x[idx], arr(oracle, shape, 1))


@H
@given(data=st.data())
def test_advanced_indexing_with_duplicates_hypothesis(oracle, device, data):
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple))
    idx = data.draw(st.lists(st.integers(-shape[0], shape[0] - 1), min_size=1, max_size=6))

    def f(M, x):
        i = M.tensor(idx)
        return x[i.to(device) if M is labkit else i]
    run(oracle, device, f, arr(oracle, shape, 2))


@H
@given(shapes=mutually_broadcastable_shapes(num_shapes=1, min_dims=0, max_dims=3, max_side=3),
       seed=st.integers(0, 2 ** 16))
def test_expand_hypothesis(oracle, device, shapes, seed):
    (src,), target = shapes.input_shapes, shapes.result_shape
    run(oracle, device, lambda M, x: x.expand(target) * 1.0, arr(oracle, src, seed))


# --- gradients at the edges (zeros, constants, nan) -----------------------------------------------

EDGES = {
    "var_of_one": lambda M, x: x[:1].var(), "std_of_constant": lambda M, x: (x * 0).std(),
    "std_dim_of_constant": lambda M, x: (x * 0 + 1).reshape(1, -1).std(1),
    "sqrt_at_0": lambda M, x: (x * 0).sqrt(), "pow_half_at_0": lambda M, x: (x * 0) ** 0.5,
    "pow_0_at_0": lambda M, x: (x * 0) ** 0, "pow_2_at_0": lambda M, x: (x * 0) ** 2,
    "pow_neg_at_0": lambda M, x: (x * 0) ** -1, "log_at_0": lambda M, x: (x * 0).log(),
    "tensor_pow_at_0": lambda M, x: (x * 0) ** x, "zero_pow_tensor": lambda M, x: 0 ** x,
    "neg_base_pow_tensor": lambda M, x: (-2.0) ** x, "zero_base_tensor_pow": lambda M, x:
        (x * 0) ** (x * 0), "div_by_0": lambda M, x: x / (x * 0),
    "max_with_nan": lambda M, x: x.log().max(), "amax_with_nan": lambda M, x: x.log().amax(0),
    "softmax_of_inf": lambda M, x: M.softmax(x.log(), 0), "clamp_lo_eq_hi": lambda M, x:
        x.clamp(1.0, 1.0), "mean_of_empty": lambda M, x: x[:0].mean(),
    "sum_of_empty": lambda M, x: x[:0].sum(), "neg_pow_frac": lambda M, x: (x - 1.5) ** 0.5,
    "where_hides_nan_forward": lambda M, x: M.where(x > 0, x.sqrt(), 0.0),
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_gradients_at_the_edges_match_torch(oracle, device, name):
    import warnings
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run(oracle, device, EDGES[name], np.array([1.0, -2.0, 3.0, 0.0]))
