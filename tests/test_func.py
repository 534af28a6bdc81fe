"""labkit.func against torch.func in float64: every op with a tangent rule through jvp/jacfwd,
every op with a batching rule through vmap, and the compositions the course uses."""
import warnings

import numpy as np
import pytest

import labkit
import labkit.func as F
from labkit import nn
from conftest import assert_close, rand_array, to_numpy

torch = pytest.importorskip("torch")
tf = torch.func

# name: (labkit f, torch f, input shapes, rand_array options): each f maps tensors to a tensor
OPS = {
    "add": (lambda a, b: a + b, lambda a, b: a + b, [(3, 4), (4,)], {}),
    "add_number": (lambda a: 2.5 + a, lambda a: 2.5 + a, [(3,)], {}),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, [(2, 3), (2, 1)], {}),
    "rsub": (lambda a: 1.0 - a, lambda a: 1.0 - a, [(3,)], {}),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, [(2, 3), (3,)], {}),
    "div": (lambda a, b: a / b, lambda a, b: a / b, [(2, 3), (2, 3)], {"positive": True}),
    "neg": (lambda a: -a, lambda a: -a, [(3,)], {}),
    "pow": (lambda a: a ** 3, lambda a: a ** 3, [(4,)], {}),
    "pow_tensor": (lambda a, b: a ** b, lambda a, b: a ** b, [(3,), (3,)], {"positive": True}),
    "exp": (lambda a: a.exp(), torch.exp, [(2, 3)], {}),
    "log": (lambda a: a.log(), torch.log, [(3,)], {"positive": True}),
    "sqrt": (lambda a: a.sqrt(), torch.sqrt, [(3,)], {"positive": True}),
    "sin": (lambda a: a.sin(), torch.sin, [(3,)], {}),
    "cos": (lambda a: a.cos(), torch.cos, [(3,)], {}),
    "tanh": (lambda a: a.tanh(), torch.tanh, [(2, 2)], {}),
    "sigmoid": (lambda a: a.sigmoid(), torch.sigmoid, [(2, 2)], {}),
    "relu": (lambda a: a.relu(), torch.relu, [(5,)], {"away_from": [0]}),
    "abs": (lambda a: a.abs(), torch.abs, [(5,)], {"away_from": [0]}),
    "clamp": (lambda a: a.clamp(-1, 1), lambda a: a.clamp(-1, 1), [(6,)], {"away_from": [-1, 1]}),
    "sum_all": (lambda a: a.sum(), torch.sum, [(2, 3)], {}),
    "sum_dim": (lambda a: a.sum(1, keepdim=True), lambda a: a.sum(1, keepdim=True), [(2, 3)], {}),
    "mean": (lambda a: a.mean(0), lambda a: a.mean(0), [(2, 3)], {}),
    "reshape": (lambda a: a.reshape(3, -1), lambda a: a.reshape(3, -1), [(2, 3)], {}),
    "transpose": (lambda a: a.transpose(0, 1), lambda a: a.transpose(0, 1), [(2, 3)], {}),
    "t": (lambda a: a.t(), lambda a: a.t(), [(2, 3)], {}),
    "permute": (lambda a: a.permute(2, 0, 1), lambda a: a.permute(2, 0, 1), [(2, 3, 4)], {}),
    "expand": (lambda a: a.expand(2, 3, 4), lambda a: a.expand(2, 3, 4), [(3, 1)], {}),
    "squeeze": (lambda a: a.squeeze(1), lambda a: a.squeeze(1), [(3, 1)], {}),
    "unsqueeze": (lambda a: a.unsqueeze(-1), lambda a: a.unsqueeze(-1), [(3,)], {}),
    "clone": (lambda a: a.clone(), lambda a: a.clone(), [(3,)], {}),
    "mm": (lambda a, b: a.mm(b), lambda a, b: a.mm(b), [(2, 3), (3, 4)], {}),
    "mv": (lambda a, b: a @ b, lambda a, b: a @ b, [(2, 3), (3,)], {}),
    "dot": (lambda a, b: a @ b, lambda a, b: a @ b, [(3,), (3,)], {}),
    "matmul_batched": (lambda a, b: a @ b, lambda a, b: a @ b, [(2, 2, 3), (3, 2)], {}),
    "linear": (lambda x, w, b: nn.functional.linear(x, w, b),
               lambda x, w, b: torch.nn.functional.linear(x, w, b), [(2, 3), (4, 3), (4,)], {}),
    "where": (lambda a, b: labkit.where(a > 0, a, b), lambda a, b: torch.where(a > 0, a, b),
              [(5,), (5,)], {"away_from": [0]}),
    "softmax": (lambda a: a.softmax(1), lambda a: a.softmax(1), [(2, 4)], {}),
    "log_softmax": (lambda a: a.log_softmax(1), lambda a: a.log_softmax(1), [(2, 4)], {}),
    "index": (lambda a: a[1:, 0], lambda a: a[1:, 0], [(3, 2)], {}),
    "select": (lambda a: a[1], lambda a: a[1], [(3, 2)], {}),
    "cat": (lambda a, b: labkit.cat([a, b], 1), lambda a, b: torch.cat([a, b], 1),
            [(2, 1), (2, 3)], {}),
    "stack": (lambda a, b: labkit.stack([a, b], -1), lambda a, b: torch.stack([a, b], -1),
              [(2, 3), (2, 3)], {}),
    "to": (lambda a: a.to(labkit.float32).to(labkit.float64),
           lambda a: a.to(torch.float32).to(torch.float64), [(3,)], {}),
    "cross_entropy": (lambda a: nn.functional.cross_entropy(a, labkit.tensor([2, 0, 1])),
                      lambda a: torch.nn.functional.cross_entropy(a, torch.tensor([2, 0, 1])),
                      [(3, 4)], {}),
    "tanh_backward": (lambda a, g: F.vjp(lambda x: x.tanh(), a)[1](g)[0],
                      lambda a, g: tf.vjp(torch.tanh, a)[1](g)[0], [(3,), (3,)], {}),
    "sigmoid_backward": (lambda a, g: F.vjp(lambda x: x.sigmoid(), a)[1](g)[0],
                         lambda a, g: tf.vjp(torch.sigmoid, a)[1](g)[0], [(3,), (3,)], {}),
    "leaky_relu": (lambda a: nn.functional.leaky_relu(a, 0.1),
                   lambda a: torch.nn.functional.leaky_relu(a, 0.1), [(5,)], {"away_from": [0]}),
    "gelu": (lambda a: nn.functional.gelu(a), lambda a: torch.nn.functional.gelu(a), [(2, 3)], {}),
    "gelu_tanh": (lambda a: nn.functional.gelu(a, approximate="tanh"),
                  lambda a: torch.nn.functional.gelu(a, approximate="tanh"), [(4,)], {}),
    "erf": (lambda a: labkit.erf(a), torch.erf, [(4,)], {}),
    "maximum": (lambda a, b: labkit.maximum(a, b), torch.maximum, [(2, 3), (3,)], {}),
    "minimum": (lambda a, b: labkit.minimum(a, b), torch.minimum, [(4,), (4,)], {}),
    "amax": (lambda a: a.amax(1), lambda a: a.amax(1), [(3, 4)], {}),
    "amax_keepdim": (lambda a: a.amax(0, keepdim=True), lambda a: a.amax(0, keepdim=True),
                     [(3, 4)], {}),
    "var": (lambda a: a.var(1), lambda a: a.var(1), [(3, 4)], {}),
    "std": (lambda a: a.std(0, keepdim=True, correction=0),
            lambda a: a.std(0, keepdim=True, correction=0), [(3, 4)], {}),
    "nll_loss": (lambda a: nn.functional.nll_loss(a.log_softmax(1), labkit.tensor([1, 0, 3])),
                 lambda a: torch.nn.functional.nll_loss(a.log_softmax(1), torch.tensor([1, 0, 3])),
                 [(3, 4)], {}),
    "nll_loss_backward": (
        lambda a: F.grad(lambda x: nn.functional.nll_loss(x.log_softmax(1), labkit.tensor([1, 0, 3])))(a),
        lambda a: tf.grad(lambda x: torch.nn.functional.nll_loss(x.log_softmax(1), torch.tensor([1, 0, 3])))(a),
        [(3, 4)], {}),
    "conv2d": (lambda x, w, b: nn.functional.conv2d(x, w, b, padding=1),
               lambda x, w, b: torch.nn.functional.conv2d(x, w, b, padding=1),
               [(2, 2, 5, 5), (3, 2, 3, 3), (3,)], {}),
    "conv2d_backward": (
        lambda x, w: F.vjp(lambda x: nn.functional.conv2d(x, w, stride=2), x)[1](
            labkit.ones(1, 2, 2, 2, dtype=labkit.float64))[0],
        lambda x, w: tf.vjp(lambda x: torch.nn.functional.conv2d(x, w, stride=2), x)[1](
            torch.ones(1, 2, 2, 2, dtype=torch.float64))[0],
        [(1, 1, 5, 5), (2, 1, 3, 3)], {}),
    "cross_entropy_backward": (
        lambda a: F.grad(lambda x: nn.functional.cross_entropy(x, labkit.tensor([2, 0, 1])))(a),
        lambda a: tf.grad(lambda x: torch.nn.functional.cross_entropy(x, torch.tensor([2, 0, 1])))(a),
        [(3, 4)], {}),
}


def inputs(shapes, opts, seed=0):
    arrays = [rand_array(s, seed=seed + i, **opts) for i, s in enumerate(shapes)]
    return ([labkit.tensor(a) for a in arrays], [torch.tensor(a) for a in arrays])


@pytest.fixture(autouse=True)
def no_fallback():
    """A rule that is missing falls back with a warning: for the course's ops that is a defect."""
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="labkit.func")
        yield


@pytest.mark.parametrize("name", sorted(OPS))
def test_jvp_matches_torch(name):
    f, g, shapes, opts = OPS[name]
    xs, ts = inputs(shapes, opts)
    tan = [rand_array(s, seed=10 + i) for i, s in enumerate(shapes)]
    out, t_out = F.jvp(f, tuple(xs), tuple(labkit.tensor(a) for a in tan))
    ref, t_ref = tf.jvp(g, tuple(ts), tuple(torch.tensor(a) for a in tan))
    assert_close(out, ref)
    assert_close(t_out, t_ref, what="tangent")
    assert t_out.dtype == labkit.float64 and tuple(t_out.shape) == tuple(t_ref.shape)


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("dims", ["all0", "last", "first_only"])
def test_vmap_matches_torch(name, dims):
    f, g, shapes, opts = OPS[name]
    batch = 3
    in_dims = tuple(0 if dims == "all0" else -1 if dims == "last" else (0 if i == 0 else None)
                    for i in range(len(shapes)))
    shp = [(batch,) + s if d == 0 else s + (batch,) if d == -1 else s
           for s, d in zip(shapes, in_dims)]
    xs, ts = inputs(shp, opts, seed=5)
    out = F.vmap(f, in_dims=in_dims)(*xs)
    ref = tf.vmap(g, in_dims=in_dims)(*ts)
    assert_close(out, ref)
    assert tuple(out.shape) == tuple(ref.shape)


@pytest.mark.parametrize("name", sorted(OPS))
def test_jacobians_match_torch(name):
    f, g, shapes, opts = OPS[name]
    xs, ts = inputs(shapes, opts, seed=3)
    nums = tuple(range(len(shapes)))
    for mine, ref in [(F.jacrev(f, nums)(*xs), tf.jacrev(g, nums)(*ts)),
                      (F.jacfwd(f, nums)(*xs), tf.jacfwd(g, nums)(*ts))]:
        for m, r in zip(mine, ref):
            assert_close(m, r, what="jacobian")


def mlp_loss():
    labkit.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
    tmodel = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    params = {k: v.detach().double() for k, v in model.named_parameters()}
    tparams = {k: torch.tensor(v.numpy()) for k, v in params.items()}
    model.double()
    tmodel.double()

    def loss(p, x, y):
        return nn.functional.cross_entropy(F.functional_call(model, p, (x.unsqueeze(0),)),
                                           y.unsqueeze(0))

    def tloss(p, x, y):
        return torch.nn.functional.cross_entropy(tf.functional_call(tmodel, p, (x.unsqueeze(0),)),
                                                 y.unsqueeze(0))
    return loss, tloss, params, tparams


def test_per_example_gradients_vmap_of_grad():
    loss, tloss, params, tparams = mlp_loss()
    x = rand_array((6, 5), seed=1)
    y = np.array([0, 2, 1, 1, 0, 2])
    mine = F.vmap(F.grad(loss), in_dims=(None, 0, 0))(params, labkit.tensor(x), labkit.tensor(y))
    ref = tf.vmap(tf.grad(tloss), in_dims=(None, 0, 0))(tparams, torch.tensor(x), torch.tensor(y))
    assert set(mine) == set(ref)
    for k in ref:
        assert tuple(mine[k].shape) == (6,) + tuple(tparams[k].shape)
        assert_close(mine[k], ref[k], what=k)
        assert not mine[k].requires_grad


def test_per_example_gradients_through_nll_loss_with_batched_targets():
    x, y = rand_array((5, 4), seed=3), np.array([0, 3, 1, 2, 3])

    def loss(x, y):
        return nn.functional.nll_loss(x.unsqueeze(0).log_softmax(1), y.unsqueeze(0))

    def tloss(x, y):
        return torch.nn.functional.nll_loss(x.unsqueeze(0).log_softmax(1), y.unsqueeze(0))
    assert_close(F.vmap(F.grad(loss))(labkit.tensor(x), labkit.tensor(y)),
                 tf.vmap(tf.grad(tloss))(torch.tensor(x), torch.tensor(y)))
    assert_close(F.vmap(F.grad(loss), in_dims=(None, 0))(labkit.tensor(x[0]), labkit.tensor(y)),
                 tf.vmap(tf.grad(tloss), in_dims=(None, 0))(torch.tensor(x[0]), torch.tensor(y)))


def test_hessian_and_forward_over_reverse():
    f = lambda x: (x.sin() * x.exp()).sum() + (x @ x) ** 2      # noqa: E731
    g = lambda x: (x.sin() * x.exp()).sum() + (x @ x) ** 2      # noqa: E731
    x = rand_array((4,), seed=2)
    assert_close(F.hessian(f)(labkit.tensor(x)), tf.hessian(g)(torch.tensor(x)), what="hessian")
    assert_close(F.jacfwd(F.jacrev(f))(labkit.tensor(x)), tf.jacfwd(tf.jacrev(g))(torch.tensor(x)))
    assert_close(F.jacrev(F.jacrev(f))(labkit.tensor(x)), tf.jacrev(tf.jacrev(g))(torch.tensor(x)))
    v = rand_array((4,), seed=3)     # a Hessian-vector product, forward over reverse
    _, hvp = F.jvp(F.grad(f), (labkit.tensor(x),), (labkit.tensor(v),))
    _, ref = tf.jvp(tf.grad(g), (torch.tensor(x),), (torch.tensor(v),))
    assert_close(hvp, ref, what="hvp")


def test_grad_argnums_has_aux_and_grad_and_value():
    f = lambda a, b: ((a * b).sum(), a.detach() * 2)           # noqa: E731
    a, b = rand_array((3,), seed=1), rand_array((3,), seed=2)
    la, lb, ta, tb = labkit.tensor(a), labkit.tensor(b), torch.tensor(a), torch.tensor(b)
    (ga, gb), aux = F.grad(f, argnums=(0, 1), has_aux=True)(la, lb)
    (ra, rb), raux = tf.grad(lambda a, b: ((a * b).sum(), a.detach() * 2), argnums=(0, 1),
                             has_aux=True)(ta, tb)
    assert_close(ga, ra), assert_close(gb, rb), assert_close(aux, raux)
    g, (value, _) = F.grad_and_value(f, argnums=1, has_aux=True)(la, lb)
    assert_close(g, ta)
    assert_close(value, (ta * tb).sum())
    assert_close(F.grad(F.grad(lambda x: (x ** 3).sum() * 1.0 + 0 * x.sum()))(la.sum()),
                 6 * ta.sum())


def test_grad_of_unused_input_is_zero_and_inputs_stay_untouched():
    x = labkit.tensor([1.0, 2.0], dtype=labkit.float64)
    g = F.grad(lambda x, y: (y * 3).sum(), argnums=0)(x, x * 1)
    assert g.tolist() == [0.0, 0.0]
    assert not x.requires_grad and x.grad is None


def test_vjp_and_jvp_of_several_outputs():
    f = lambda x, y: (x * y, (x + y).sum())                      # noqa: E731
    x, y = rand_array((3,), seed=1), rand_array((3,), seed=2)
    out, fn = F.vjp(f, labkit.tensor(x), labkit.tensor(y))
    ref, tfn = tf.vjp(f, torch.tensor(x), torch.tensor(y))
    ct = (rand_array((3,), seed=4), np.float64(1.5))
    for m, r in zip(fn(tuple(labkit.tensor(c) for c in ct)), tfn(tuple(torch.tensor(c) for c in ct))):
        assert_close(m, r)
    _, tans = F.jvp(f, (labkit.tensor(x), labkit.tensor(y)), (labkit.ones(3, dtype=labkit.float64),
                                                              labkit.zeros(3, dtype=labkit.float64)))
    _, tref = tf.jvp(f, (torch.tensor(x), torch.tensor(y)), (torch.ones(3, dtype=torch.float64),
                                                             torch.zeros(3, dtype=torch.float64)))
    for m, r in zip(tans, tref):
        assert_close(m, r)


def test_jvp_follows_python_control_flow():
    def f(x):
        return x.sin() if x.sum() > 0 else x.cos()
    for sign in (1, -1):
        x = sign * rand_array((3,), positive=True)
        _, t = F.jvp(f, (labkit.tensor(x),), (labkit.tensor(np.ones(3)),))
        _, r = tf.jvp(lambda x: x.sin() if x.sum() > 0 else x.cos(), (torch.tensor(x),),
                      (torch.ones(3, dtype=torch.float64),))
        assert_close(t, r)


def test_vmap_nested_out_dims_and_unbatched_output():
    x = rand_array((2, 3, 4), seed=7)
    f = lambda v: (v * v).sum()                                  # noqa: E731
    assert_close(F.vmap(F.vmap(f))(labkit.tensor(x)), tf.vmap(tf.vmap(f))(torch.tensor(x)))
    assert_close(F.vmap(lambda v: v.exp(), in_dims=1, out_dims=1)(labkit.tensor(x)),
                 tf.vmap(torch.exp, in_dims=1, out_dims=1)(torch.tensor(x)))
    const = labkit.tensor([1.0, 2.0], dtype=labkit.float64)
    out = F.vmap(lambda v: const * 2, in_dims=0)(labkit.tensor(x))
    assert out.shape == (2, 2) and out.tolist() == [[2.0, 4.0], [2.0, 4.0]]


def test_vmap_refuses_data_dependent_control_flow():
    def f(v):
        return v if v.sum() > 0 else -v
    with pytest.raises(RuntimeError, match="depends on the batched inputs.*labkit.where"):
        F.vmap(f)(labkit.randn(4, 3))
    with pytest.raises(RuntimeError):                # torch refuses it too
        tf.vmap(f)(torch.randn(4, 3))


def test_vmap_of_max_backward_batches_its_saved_output():
    """x.max()'s backward reads the max its forward saved, now a saved tensor (version-checked,
    issue 13) rather than an array kept on ctx, so vmap batches it (keepdim amax too)."""
    x = rand_array((4, 3), seed=4)
    assert_close(F.vmap(F.grad(lambda v: v.max()))(labkit.tensor(x)),
                 tf.vmap(tf.grad(lambda v: v.max()))(torch.tensor(x)))
    assert_close(F.vmap(F.grad(lambda v: v.amax(0, keepdim=True).sum()))(labkit.tensor(x)),
                 tf.vmap(tf.grad(lambda v: v.amax(0, keepdim=True).sum()))(torch.tensor(x)))


def test_max_pool_batches_forward_and_backward_under_vmap():
    """max_pool2d's backward reads its saved indices output (not an array kept on ctx), so vmap
    batches it, second order too (per-sample gradients of a CNN)."""
    x = rand_array((3, 1, 2, 4, 4), seed=5)
    pool = lambda v: nn.functional.max_pool2d(v, 2)                # noqa: E731
    assert_close(F.vmap(pool)(labkit.tensor(x)),
                 tf.vmap(lambda v: torch.nn.functional.max_pool2d(v, 2))(torch.tensor(x)))
    assert_close(F.vmap(F.grad(lambda v: (pool(v) ** 2).sum()))(labkit.tensor(x)),
                 tf.vmap(tf.grad(lambda v: (torch.nn.functional.max_pool2d(v, 2) ** 2).sum()))(
                     torch.tensor(x)))
    pool3 = lambda v: nn.functional.max_pool2d(v, 3, 1, 1)         # noqa: E731
    assert_close(F.vmap(F.grad(lambda v: pool3(v).sin().sum()))(labkit.tensor(x)),
                 tf.vmap(tf.grad(lambda v: torch.nn.functional.max_pool2d(v, 3, 1, 1).sin().sum()))(
                     torch.tensor(x)))


def test_vmap_errors_name_the_problem():
    with pytest.raises(ValueError, match="different sizes"):
        F.vmap(lambda a, b: a + b)(labkit.zeros(3, 2), labkit.zeros(4, 2))
    with pytest.raises(ValueError, match="out of range"):
        F.vmap(lambda a: a, in_dims=2)(labkit.zeros(3, 2))
    with pytest.raises(RuntimeError, match="scalar"):
        F.grad(lambda a: a * 2)(labkit.zeros(3))
    with pytest.raises(RuntimeError, match="in-place"):   # a batched value into an unbatched a
        F.vmap(lambda a, b: a.add_(b), in_dims=(None, 0))(labkit.zeros(2), labkit.zeros(3, 2))


def test_an_op_without_rules_falls_back_with_one_warning():
    class Cube(labkit.autograd.Function):               # a student's op: no jvp, no vmap rule
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x._data ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * grad * x * x
    x = rand_array((4, 3), seed=9)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = F.vmap(Cube.apply)(labkit.tensor(x))
        F.vmap(Cube.apply)(labkit.tensor(x))
        _, t = F.jvp(Cube.apply, (labkit.tensor(x),), (labkit.tensor(np.ones((4, 3))),))
    msgs = [str(w.message) for w in caught if "labkit.func" in str(w.message)]
    assert len([m for m in msgs if "vmap" in m]) == 1 and len([m for m in msgs if "jvp" in m]) == 1
    np.testing.assert_allclose(to_numpy(out), x ** 3)
    np.testing.assert_allclose(to_numpy(t), 3 * x ** 2)


def test_functional_call_swaps_and_restores():
    labkit.manual_seed(0)
    lin = nn.Linear(3, 2)
    w0 = lin.weight
    new = {"weight": labkit.ones(2, 3), "bias": labkit.zeros(2)}
    out = F.functional_call(lin, new, (labkit.ones(1, 3),))
    assert out.tolist() == [[3.0, 3.0]]
    assert lin.weight is w0
    with pytest.raises(RuntimeError, match="unexpected key"):
        F.functional_call(lin, {"wieght": labkit.ones(2, 3)}, (labkit.ones(1, 3),))


def test_ensemble_vmap_over_parameters():
    labkit.manual_seed(0)
    lin = nn.Linear(3, 2).double()
    tlin = torch.nn.Linear(3, 2).double()
    w, b = rand_array((4, 2, 3), seed=1), rand_array((4, 2), seed=2)
    x = rand_array((5, 3), seed=3)
    mine = F.vmap(lambda p, x: F.functional_call(lin, p, (x,)), in_dims=(0, None))(
        {"weight": labkit.tensor(w), "bias": labkit.tensor(b)}, labkit.tensor(x))
    ref = tf.vmap(lambda p, x: tf.functional_call(tlin, p, (x,)), in_dims=(0, None))(
        {"weight": torch.tensor(w), "bias": torch.tensor(b)}, torch.tensor(x))
    assert_close(mine, ref)


def test_transforms_on_each_device(device):
    """The rules run on the device's array module (numpy or cupy), like the ops' forwards."""
    x = labkit.tensor(rand_array((4, 3), seed=1), device=device)
    w = labkit.tensor(rand_array((3, 2), seed=2), device=device)
    y = labkit.tensor([0, 1, 1, 0], device=device)

    def loss(w, xi, yi):
        return nn.functional.cross_entropy((xi.unsqueeze(0) @ w).tanh(), yi.unsqueeze(0))
    per = F.vmap(F.grad(loss), in_dims=(None, 0, 0))(w, x, y)
    assert per.device == x.device
    tx, tw, ty = (torch.tensor(to_numpy(a)) for a in (x, w, y))
    ref = tf.vmap(tf.grad(lambda w, xi, yi: torch.nn.functional.cross_entropy(
        (xi.unsqueeze(0) @ w).tanh(), yi.unsqueeze(0))), in_dims=(None, 0, 0))(tw, tx, ty)
    assert_close(per, ref)
    _, t = F.jvp(lambda v: (v @ w).softmax(1), (x,), (labkit.ones_like(x),))
    _, tr = tf.jvp(lambda v: (v @ tw).softmax(1), (tx,), (torch.ones_like(tx),))
    assert_close(t, tr)
    assert_close(F.hessian(lambda v: (v.sin() * v).sum())(x[0]),
                 tf.hessian(lambda v: (v.sin() * v).sum())(tx[0]))
