"""cosine_similarity / pairwise_distance, Tensor.unfold, leaky_relu in place, clip_grad_value_,
parameters_to_vector, Sequential item assignment and autograd.grad(only_inputs=): against torch
(values, dtypes, gradients, errors), with broadcasting, size-0 and 0-d edges."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("s1,s2,dim", [((3, 4), (3, 4), 1), ((3, 4), (4,), -1), ((2, 1, 5), (3, 5), 2),
                                       ((2, 3), (2, 3), 0), ((0, 4), (0, 4), 1), ((4,), (4,), 0)])
def test_cosine_similarity(s1, s2, dim, device):
    check_op(lambda a, b: labkit.nn.functional.cosine_similarity(a, b, dim=dim),
             lambda a, b: torch.nn.functional.cosine_similarity(a, b, dim=dim),
             [rand_array(s1, 1), rand_array(s2, 2)], device=device)


def test_cosine_similarity_of_a_zero_vector_uses_eps_and_identity_gradient():
    check_op(lambda a, b: labkit.nn.functional.cosine_similarity(a, b, eps=0.5),
             lambda a, b: torch.nn.functional.cosine_similarity(a, b, eps=0.5),
             [np.zeros((2, 3)) + np.array([[0.0], [0.1]]), rand_array((2, 3), 3)])
    check_op(lambda a, b: labkit.nn.CosineSimilarity(dim=0)(a, b),
             lambda a, b: torch.nn.CosineSimilarity(dim=0)(a, b),
             [rand_array((5, 2), 4), rand_array((5, 2), 5)])


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
def test_pairwise_distance(p):
    check_op(lambda a, b: labkit.nn.functional.pairwise_distance(a, b, p=p),
             lambda a, b: torch.nn.functional.pairwise_distance(a, b, p=p),
             [rand_array((4, 3), 1), rand_array((4, 3), 2)])
    check_op(lambda a, b: labkit.nn.PairwiseDistance(keepdim=True)(a, b),
             lambda a, b: torch.nn.PairwiseDistance(keepdim=True)(a, b),
             [rand_array((4, 3), 1), rand_array((3,), 2)])


def test_cosine_similarity_shape_errors_match():
    for lib in (torch, labkit):
        with pytest.raises(RuntimeError):
            lib.nn.functional.cosine_similarity(lib.ones(3, 4), lib.ones(2, 4))


@pytest.mark.parametrize("shape,dim,size,step", [((10,), 0, 3, 2), ((10,), 0, 10, 1), ((2, 7, 3), 1, 2, 3),
                                                 ((2, 3, 4), -1, 4, 3), ((2, 3, 4), 2, 0, 1),
                                                 ((0, 5), 1, 2, 2), ((3, 4), 0, 1, 1)])
def test_unfold_windows_and_gradient(shape, dim, size, step, device):
    check_op(lambda x: x.unfold(dim, size, step), lambda x: x.unfold(dim, size, step),
             [rand_array(shape)], device=device)


def test_unfold_int_dtype_and_errors():
    assert labkit.arange(6).unfold(0, 2, 2).tolist() == torch.arange(6).unfold(0, 2, 2).tolist()
    assert labkit.arange(6).unfold(0, 2, 2).dtype == labkit.int64
    for args in [(0, 11, 1), (0, 2, 0), (2, 1, 1)]:
        with pytest.raises(Exception) as theirs:
            torch.arange(10.0).unfold(*args)
        with pytest.raises(type(theirs.value)):
            labkit.arange(10.0).unfold(*args)


@pytest.mark.parametrize("slope", [0.01, 0.2])
def test_leaky_relu_in_place_on_a_non_leaf(slope):
    def run(lib):
        x = lib.tensor([-2.0, 0.0, 3.0, -0.5], dtype=lib.float64, requires_grad=True)
        y = x * 2
        z = lib.nn.LeakyReLU(slope, inplace=True)(y)
        assert z is y
        (z * lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64)).sum().backward()
        return y.detach().numpy(), x.grad.numpy()
    for a, b in zip(run(labkit), run(torch)):
        np.testing.assert_allclose(a, b)
    assert repr(labkit.nn.LeakyReLU(0.2, inplace=True)) == repr(torch.nn.LeakyReLU(0.2, inplace=True))
    a = labkit.tensor([-1.0, 2.0])
    assert labkit.nn.functional.leaky_relu_(a, 0.5) is a and a.tolist() == [-0.5, 2.0]
    for lib in (torch, labkit):
        with pytest.raises(RuntimeError):    # a leaf that requires grad cannot change in place
            lib.nn.functional.leaky_relu(lib.ones(2, requires_grad=True), inplace=True)


def test_clip_grad_value_clamps_every_gradient():
    grads = []
    for lib in (labkit, torch):
        m = lib.nn.Linear(2, 3)
        m.weight.grad = lib.tensor([[-3.0, 0.5], [2.0, 1.0], [0.0, -0.9]])
        m.bias.grad = None
        assert lib.nn.utils.clip_grad_value_(m.parameters(), clip_value=1) is None
        grads.append(m.weight.grad.numpy())
        assert m.bias.grad is None
    np.testing.assert_array_equal(*grads)


def test_parameters_to_vector_and_back():
    lk, th = labkit.nn.Linear(2, 3), torch.nn.Linear(2, 3)
    th.load_state_dict({k: torch.tensor(v.numpy()) for k, v in lk.state_dict().items()})
    v_lk = labkit.nn.utils.parameters_to_vector(lk.parameters())
    v_th = torch.nn.utils.parameters_to_vector(th.parameters())
    np.testing.assert_array_equal(v_lk.detach().numpy(), v_th.detach().numpy())
    assert v_lk.requires_grad and tuple(v_lk.shape) == (9,)
    labkit.nn.utils.vector_to_parameters(labkit.arange(9.0), lk.parameters())
    torch.nn.utils.vector_to_parameters(torch.arange(9.0), th.parameters())
    np.testing.assert_array_equal(lk.weight.detach().numpy(), th.weight.detach().numpy())
    assert isinstance(lk.weight, labkit.nn.Parameter) and lk.bias.tolist() == [6.0, 7.0, 8.0]
    for lib in (torch, labkit):
        with pytest.raises(TypeError):
            lib.nn.utils.vector_to_parameters([1.0] * 9, lib.nn.Linear(2, 3).parameters())


def test_sequential_setitem_delitem_insert_extend_like_torch():
    def run(lib):
        nn = lib.nn
        s = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
        s[1] = nn.Tanh()
        s[-1] = nn.Linear(2, 4)
        del s[0]
        s.insert(0, nn.Linear(2, 2))
        s.insert(-1, nn.Sigmoid())
        s.extend(nn.Sequential(nn.ReLU()))
        del s[1:3]
        names = [(k, type(m).__name__) for k, m in s.named_children()]
        errors = []
        for bad in (lambda: s.__setitem__(7, nn.ReLU()), lambda: s.insert(9, nn.ReLU()),
                    lambda: s.__delitem__(5)):
            try:
                bad()
            except Exception as e:
                errors.append(type(e).__name__)
        return names, errors
    assert run(labkit) == run(torch)


def test_autograd_grad_accepts_only_inputs():
    for lib in (labkit, torch):
        w = lib.ones(2, requires_grad=True)
        (g,) = lib.autograd.grad((w * 3).sum(), [w], None, None, False, True)
        assert g.tolist() == [3.0, 3.0]
        (g,) = lib.autograd.grad((w * 2).sum(), [w], only_inputs=True)
        assert g.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("shape,dim,index", [((0, 5), 1, [0, 2, 2]), ((3, 0, 2), 0, [1, 1]),
                                             ((4, 3), 0, [])])
def test_index_select_backward_with_a_size0_dim(shape, dim, index):
    check_op(lambda x, i: x.index_select(dim, i), lambda x, i: x.index_select(dim, i),
             [rand_array(shape), np.array(index, dtype=np.int64)])


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((7, 3), True), ((7, 3), False),
                                        ((3, 7), True), ((2, 2, 2), False), ((0, 3), False)])
def test_fill_diagonal_like_torch(shape, wrap):
    check_op(lambda x: (x * 2).fill_diagonal_(-1.5, wrap=wrap),
             lambda x: (x * 2).fill_diagonal_(-1.5, wrap=wrap), [rand_array(shape)])
    i_lk, i_th = labkit.zeros(*shape, dtype=labkit.int64), torch.zeros(*shape, dtype=torch.int64)
    assert i_lk.fill_diagonal_(3, wrap=wrap).tolist() == i_th.fill_diagonal_(3, wrap=wrap).tolist()


def test_fill_diagonal_errors_like_torch():
    for make in (lambda lib: lib.zeros(3).fill_diagonal_(1),
                 lambda lib: lib.zeros(2, 3, 2).fill_diagonal_(1),
                 lambda lib: lib.ones(2, 2, requires_grad=True).fill_diagonal_(0)):
        with pytest.raises(RuntimeError):
            make(torch)
        with pytest.raises(RuntimeError):
            make(labkit)


@pytest.mark.parametrize("shape,gain", [((4, 4), 1.0), ((3, 5), 2.0), ((5, 3), 2 ** 0.5),
                                        ((2, 3, 4), 1.0), ((6, 2, 3), 0.01)])
def test_orthogonal_init_draws_torchs_matrix(shape, gain):
    labkit.manual_seed(0)
    torch.manual_seed(0)
    mine = labkit.nn.init.orthogonal_(labkit.empty(*shape), gain)
    theirs = torch.nn.init.orthogonal_(torch.empty(*shape), gain)
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), atol=1e-6)
    assert mine.dtype == labkit.float32
    w = mine.reshape(shape[0], -1)
    small = min(w.shape)
    gram = w @ w.T if w.shape[0] == small else w.T @ w
    np.testing.assert_allclose(gram.numpy(), gain ** 2 * np.eye(small), atol=1e-5)


def test_orthogonal_and_eye_edges_and_errors():
    layer = labkit.nn.Linear(3, 3)
    labkit.nn.init.orthogonal_(layer.weight)
    assert layer.weight.requires_grad and layer.weight.grad_fn is None
    assert tuple(labkit.nn.init.orthogonal_(labkit.empty(0, 3)).shape) == (0, 3)
    assert labkit.nn.init.eye_(labkit.empty(3, 5)).tolist() == torch.nn.init.eye_(torch.empty(3, 5)).tolist()
    for call in (lambda lib: lib.nn.init.orthogonal_(lib.empty(3)),
                 lambda lib: lib.nn.init.eye_(lib.empty(2, 2, 2))):
        with pytest.raises(ValueError):
            call(torch)
        with pytest.raises(ValueError):
            call(labkit)
