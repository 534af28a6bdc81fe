"""What the autograd fuzzer (tests/fuzz/test_fuzz_autograd.py) found, each pinned against torch
2.13: values, gradients for a random upstream gradient, second derivatives (create_graph), and
the exception class where torch raises. The seed is the explorer's hypothesis seed."""
import math

import numpy as np
import pytest

import labkit

from snippets import check

torch = pytest.importorskip("torch")

nan, inf = math.nan, math.inf


def derivatives(L, arr, f, create_graph):
    """f(x), its gradient for a fixed upstream gradient, and (create_graph) the gradient of
    sum(grad * w), in float64."""
    x = L.tensor(np.asarray(arr, dtype=np.float64), requires_grad=True)
    y = f(L, x)
    up = L.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape)))
    (g,) = L.autograd.grad(y, [x], up, create_graph=create_graph)
    out = [y.detach().numpy(), g.detach().numpy()]
    if create_graph and g.requires_grad:
        w = L.tensor(np.linspace(-1, 1, g.numel()).reshape(tuple(g.shape)))
        (gg,) = L.autograd.grad((g * w).sum(), [x], allow_unused=True)
        out.append(np.zeros(x.shape) if gg is None else gg.numpy())
    return out


def same_derivatives(arr, f, create_graph=False):
    with np.errstate(all="ignore"):
        mine = derivatives(labkit, arr, f, create_graph)
        ref = derivatives(torch, arr, f, create_graph)
    assert len(mine) == len(ref)
    for k, (m, r) in enumerate(zip(mine, ref)):
        assert m.shape == r.shape, (k, m.shape, r.shape)
        np.testing.assert_allclose(m, r, rtol=1e-9, atol=1e-12, equal_nan=True,
                                   err_msg=f"derivative {k}")


WITH_ZEROS = [[nan, 1.0, -1.0, 0.0], [inf, -inf, 0.0, 1.0], [-inf, -inf, 2.0, 0.0],
              [[0.0, 2.0], [1.0, nan]], [[0.0, 0.0, 1.0], [inf, 2.0, 0.0]], [0.0, 2.0, 0.0, 3.0],
              [[3.0, 0.0, 0.0, 3.0], [0.0, 3.0, -0.5, 3.0]]]
PRODS = {"prod": lambda L, x: x.prod(), "prod_dim": lambda L, x: x.prod(0),
         "prod_keepdim": lambda L, x: x.prod(-1, keepdim=True)}


@pytest.mark.parametrize("name", sorted(PRODS))
@pytest.mark.parametrize("arr", WITH_ZEROS)
def test_prod_gradient_follows_torchs_cases_with_zeros_and_nan(name, arr):
    """[nan, 1, -1, 0].prod(): torch's gradient at the nan is the product of the others (-0),
    labkit gave nan everywhere (prod / x times the zeros' product). torch: prod / x without
    zeros, else running products from both sides; its derivative too (found with seed 2's
    special values)."""
    same_derivatives(arr, PRODS[name])
    same_derivatives(arr, PRODS[name], create_graph=True)


@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("arr", WITH_ZEROS)
def test_cumprod_gradient_with_zeros_follows_torchs_o_n_formula(dim, arr):
    """[nan, 1, -1, 0].cumprod(0): torch gives nan at the nan (y_i / x_k up to the first zero),
    labkit gave 1 (the products of the others, computed directly); [inf, -inf, 0, 1]: torch 0
    after the first zero, labkit nan."""
    same_derivatives(arr, lambda L, x: x.cumprod(dim))


@pytest.mark.parametrize("arr", [[[0.0, 2.0, 0.0, 3.0], [1.0, 0.0, 2.0, 0.5]],
                                 [[3.0, -0.5, 0.0, 0.0], [0.0, -0.5, 0.0, 2.0]]])
def test_cumprod_second_derivative_with_zeros(arr):
    """create_graph=True: the products of the others, so that the second derivative is right."""
    same_derivatives(arr, lambda L, x: x.cumprod(-1), create_graph=True)


@pytest.mark.parametrize("mode, pad, value", [
    ("constant", (0, 2), None), ("constant", (1, 0), 2.0), ("constant", (1, 1, 0, 1), None),
    ("constant", (-1, 1), None), ("reflect", (1, 1), None), ("replicate", (2, 1), None),
    ("circular", (1, 1, 1, 0), None)])
def test_pad_keeps_inf_and_nan_where_they_are(mode, pad, value):
    """F.pad([inf, -inf, nan, 1], (0, 2)) was all nan: padding was a matrix product, and
    inf * 0 = nan spread to every element (seed 3: max_dim, gather, take, pad)."""
    check(f"x = L.tensor([[[1.0, {inf!r}], [{nan!r}, 2.0]], [[-{inf!r}, 0.5], [3.0, 4.0]]], "
          f"dtype=L.float64, requires_grad=True)\n"
          f"out = L.nn.functional.pad(x, {pad}, mode={mode!r}, value={value})\n"
          f"leaves = [x]".replace("inf", "float('inf')").replace("nan", "float('nan')"))


@pytest.mark.parametrize("a, b", [(0.0, 0.0), (1e-200, 0.0), (inf, 1.0), (0.0, inf), (1.0, 2.0)])
def test_atan2_gradient_is_zero_at_the_origin(a, b):
    """atan2(x + x, x) at 0: torch's gradient is 0 (no gradient where the radius is 0), labkit
    gave nan (0 / 0) (seed 3)."""
    for L in (torch, labkit):
        x = L.tensor(a, dtype=L.float64, requires_grad=True)
        y = L.tensor(b, dtype=L.float64, requires_grad=True)
        if L is torch:
            ref = [g.numpy() for g in L.autograd.grad(L.atan2(x, y), [x, y])]
        else:
            mine = [g.numpy() for g in L.autograd.grad(L.atan2(x, y), [x, y])]
    np.testing.assert_allclose(mine, ref, equal_nan=True)


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("weight", [None, [1.0, 2.0]])
@pytest.mark.parametrize("target, scores", [
    ("0", [0.0, 2.0]), ("[0, 0, 0]", [[0.0, 2.0], [1.0, 3.0], [4.0, 5.0]]),
    ("[0, 1, 1]", [[-math.inf, 2.0], [1.0, 3.0], [4.0, 5.0]])])
def test_cross_entropy_with_every_target_ignored_is_nan_with_zero_gradient(target, scores, weight,
                                                                           smoothing):
    """The mean over no rows is nan (0 / 0) in both; torch's gradient is 0, labkit's was nan
    (d(s / 0) = inf times 0); an ignored row holding -inf made the whole loss nan (seed 11,
    second derivatives)."""
    w = "None" if weight is None else f"L.tensor({weight}, dtype=L.float64)"
    for reduction in ("mean", "sum", "none"):
        code = (f"x = L.tensor({scores!r}, dtype=L.float64, requires_grad=True)\n"
                f"out = L.nn.functional.cross_entropy(x, L.tensor({target}), ignore_index=0, "
                f"weight={w}, reduction={reduction!r}, label_smoothing={smoothing})\n"
                "leaves = [x]").replace("-inf", "-float('inf')")
        check(code)
    same_derivatives(scores, lambda L, x: L.nn.functional.cross_entropy(
        x, L.tensor(eval(target)), ignore_index=0, label_smoothing=smoothing,
        weight=None if weight is None else L.tensor(weight, dtype=L.float64)),
        create_graph=True)


ERRORS_AND_EDGES = [
    # copy_ from a source that only numpy broadcasts (it drops leading 1s): torch refuses
    # (seed 1: mode, select, copy_)
    "out = L.zeros(()).copy_(L.ones(1))",
    "out = L.zeros(2).copy_(L.ones(1, 2))",
    "out = L.zeros(()).copy_(L.ones(1, 1))",
    "out = L.zeros(2, 3).copy_(L.ones(2, 1))",
    "out = L.zeros(0, 3).copy_(L.ones(1, 1))",
    # neg_ of a bool tensor: RuntimeError, as neg (was numpy's TypeError; seed 1)
    "out = L.tensor([True, False]).neg_()",
    # take_along_dim: a 0-d input has no dim 0 (was ZeroDivisionError), dim out of range
    # (was wrapped silently; seed 1)
    "out = L.take_along_dim(L.tensor(1.0), L.tensor(0), 0)",
    "out = L.take_along_dim(L.tensor([1.0]), L.tensor([0]), 3)",
    "out = L.take_along_dim(L.tensor(1.0), L.tensor(0))",
    # topk: bool refused; a 0-d input gives its element whatever k (seed 2)
    "out = L.tensor([True]).topk(1)",
    "x = L.tensor(1.5, requires_grad=True); out = x.topk(0); leaves = [x]",
    "x = L.tensor(1.5, requires_grad=True); out = x.topk(1); leaves = [x]",
    # logcumsumexp: integer inputs refused (NotImplementedError), a size-0 dim is fine (seed 3)
    "out = L.tensor([1, 2]).logcumsumexp(0)",
    "out = L.tensor([True]).logcumsumexp(0)",
    "x = L.zeros(0, 0, requires_grad=True); out = x.logcumsumexp(1); leaves = [x]",
    "out = L.tensor(1.0).logcumsumexp(1)",
    # frac of an integer tensor: NotImplementedError (seed 3)
    "out = L.tensor([1, 2]).frac()",
    # in place on an empty expanded view writes nothing: torch accepts (seed 11)
    "x = L.zeros(3, 0); v = x.expand(2, 3, 0); v.sub_(1); out = v",
    "x = L.zeros(3, 0); v = x.expand(2, 3, 0); v.sub_(L.ones(5)); out = v",
    "x = L.zeros(3, 0); v = x.expand(2, 3, 0); v.fill_(2); out = v",
]


@pytest.mark.parametrize("code", ERRORS_AND_EDGES)
def test_errors_and_edge_cases_as_torch(code):
    check(code)


@pytest.mark.parametrize("mode, pad", [("constant", (1, 2)), ("reflect", (2, 1)),
                                       ("replicate", (1, 1)), ("circular", (1, 2))])
def test_pad_gradient_goes_back_by_index(mode, pad):
    """An inf in the upstream gradient at a padded position: torch's gradient is finite
    elsewhere (a slice, summed where reflect/replicate copied); the transposed matrix product
    spread nan to every element (seed 20: pad, var, float)."""
    out = []
    for L in (torch, labkit):
        x = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=L.float64, requires_grad=True)
        y = L.nn.functional.pad(x, pad, mode=mode)
        up = L.tensor(np.linspace(-1.0, 2.0, y.numel()).reshape(tuple(y.shape)))
        up[0, 0] = inf
        (g,) = L.autograd.grad(y, [x], up)
        out.append((y.detach().numpy(), g.numpy()))
    np.testing.assert_allclose(out[1][0], out[0][0])
    np.testing.assert_allclose(out[1][1], out[0][1], equal_nan=True)


@pytest.mark.parametrize("shape, groups", [((1, 1), 1), ((1, 2), 2), ((1, 1, 1), 1), ((2, 1), 1),
                                           ((3, 1), 2), ((1, 1, 2), 1), ((0, 2, 3), 2)])
def test_group_norm_needs_more_than_one_value_per_group(shape, groups):
    """torch checks the batch like batch_norm: one value per group is a ValueError, labkit
    returned zeros (seed 20: relu, group_norm)."""
    check(f"x = L.linspace(-1, 1, {math.prod(shape)}, dtype=L.float64).reshape({shape})"
          f".requires_grad_()\nout = L.nn.functional.group_norm(x, {groups})\nleaves = [x]")


@pytest.mark.parametrize("fn", ["elu", "celu", "selu"])
def test_elu_family_second_derivative_is_zero_at_zero(fn):
    """elu(x)'s slope alpha * exp(min(x, 0)) went through clamp, whose gradient passes at the
    boundary: the second derivative at x = 0 was alpha * grad, torch's 0 (seed 31)."""
    same_derivatives([1.0, -1.0, 0.0, 2.0, 0.0],
                     lambda L, x: getattr(L.nn.functional, fn)(x), create_graph=True)


@pytest.mark.parametrize("p", [0.5, 1.5, -1.0, 3.0])
@pytest.mark.parametrize("arr", [[0.0, 1.0, -2.0], [0.0, 0.0, 3.0], [1.0, 2.0, -0.5]])
def test_p_norm_gradient_is_zero_at_a_zero_element(p, arr):
    """x.norm(1.5) with a zero in x: torch's gradient there is 0 (sgn(x) |x|^(p-1)); labkit's
    x * |x|^(p-2) was 0 * inf = nan (found probing the fuzzer's special values)."""
    same_derivatives(arr, lambda L, x: x.norm(p), create_graph=True)
    same_derivatives(arr, lambda L, x: L.linalg.vector_norm(x, p))


@pytest.mark.parametrize("shape, pad", [((0,), (-1, 1)), ((2,), (-3, 1)), ((2,), (-2, 1)),
                                        ((2, 0), (1, -1)), ((1, 2), (-1, -1))])
def test_negative_padding_cannot_crop_more_than_the_dim(shape, pad):
    """F.pad(x of size 0, (-1, 1)): torch crops first and refuses (narrow: negative length);
    labkit returned an empty tensor (seed 30: take, div, pad)."""
    check(f"out = L.nn.functional.pad(L.ones({shape}), {pad})")


@pytest.mark.parametrize("code", [
    "out = L.tensor(2.0).prod(1)",                   # was accepted (the 0-d fast path)
    "x = L.tensor(2.0, requires_grad=True); out = x.prod(-1, keepdim=True); leaves = [x]",
    "out = L.tensor(2.0).amax([0, -1])",             # dim 0 named twice on a 0-d tensor
    "out = L.tensor(2.0).sum((0, -1))",
    "out = L.tensor(2.0).logsumexp((0, -1))",
    "out = L.tensor(2.0).cummin(1)",                 # cummax/cummin checked no dim on 0-d
    "out = L.tensor(2.0).cummax(-2)",
    "x = L.tensor([[1.0, 0.0, 3.0], [2.0, 2.0, 0.0]], requires_grad=True); out = x.msort(); "
    "leaves = [x]",
    "out = L.msort(L.tensor([[1, 0, 3], [2, 2, 0]], dtype=L.int8))",
    "out = L.zeros(0, 3).msort()",
])
def test_reduction_dims_on_0d_tensors_and_msort(code):
    """A sweep of every reduction over every dtype, size-0 and 0-d inputs (values, dtypes): these
    were the differences left (torch refuses, or labkit lacked msort)."""
    check(code)


@pytest.mark.parametrize("arr", [[-math.inf, 1.5, math.nan], [[0.0, 1.0], [0.0, math.nan]],
                                 [1000.0, math.nan, 1001.0], [-math.inf, -math.inf, 1.0]])
def test_logcumsumexp_shift_ignores_nan(arr):
    """logcumsumexp([-inf, 1.5, nan]) was all nan (the stabilising shift was the max, nan):
    torch gives [-inf, 1.5, nan] (seed 41)."""
    same_derivatives(arr, lambda L, x: x.logcumsumexp(-1))


@pytest.mark.parametrize("fn", ["hardtanh", "relu6", "elu", "celu", "selu"])
def test_clipping_activations_pass_no_inf_upstream_and_pass_nan_inputs(fn):
    """hardtanh(x) then log1p at x = -1: the upstream gradient is inf where hardtanh's is 0;
    torch's where gives 0, labkit's 0/1 mask gave nan (seeds 40, 50). At a nan input torch's
    hardtanh/relu6/elu pass the gradient (nan is neither <= min nor >= max)."""
    for vals, up in [([math.nan, -1.0, 1.0, 0.0, 6.0, 7.0, -2.0], [1.0] * 7),
                     ([-1.0, 1.0, 0.0, 0.5, 6.0], [math.inf, math.inf, math.inf, 1.0, math.inf])]:
        out = []
        for L in (torch, labkit):
            x = L.tensor(vals, dtype=L.float64, requires_grad=True)
            y = getattr(L.nn.functional, fn)(x)
            (g,) = L.autograd.grad(y, [x], L.tensor(up, dtype=L.float64))
            out.append((y.detach().numpy(), g.numpy()))
        for m, r in zip(out[1], out[0]):
            np.testing.assert_allclose(m, r, equal_nan=True)


@pytest.mark.parametrize("code", [
    "out = L.zeros(0).norm(float('inf'))",
    "out = L.zeros(0, 2).norm(float('inf'), dim=0)",
    "out = L.linalg.vector_norm(L.zeros(0, 2), float('inf'), dim=0)",
    "x = L.zeros(0, 2, requires_grad=True); out = x.norm(float('inf'), dim=1); leaves = [x]",
    "x = L.tensor([1.0, 0.0], requires_grad=True); out = x.norm(0) * float('inf'); leaves = [x]",
])
def test_norm_inf_of_an_empty_dim_and_the_zero_norm_gradient(code):
    """The inf norm over an empty dim has no identity: torch refuses, labkit returned 0 (seed
    50); the 0-"norm" (a count) passes no gradient, labkit's g * 0 was nan for g = inf (41)."""
    check(code)


IN_PLACE_SHAPES = ["add_", "sub_", "mul_", "div_", "pow_", "remainder_", "floor_divide_"]


@pytest.mark.parametrize("op", IN_PLACE_SHAPES)
@pytest.mark.parametrize("other", ["L.ones(1, 1, 2, dtype=L.int64)", "L.ones(1, 1, 2)",
                                   "L.ones(1, 2, dtype=L.float64)", "L.ones(2)"])
def test_in_place_operand_cannot_grow_the_tensor(op, other):
    """x (shape [2]).add_(a [1, 1, 2] tensor of another dtype): torch refuses (the result would
    be [1, 1, 2]); labkit's general path assigned with numpy, which drops leading 1s, and
    accepted (seed 62: pow_ on a flat view). Under no_grad (the optimizer's path) too."""
    check(f"x = L.zeros(2) + 2\nwith L.no_grad():\n    x.{op}({other})\nout = x")


@pytest.mark.parametrize("code", [
    "out = L.zeros(2).index_put_((L.tensor([0, 1]),), L.ones(1, 1, 2))",
    "out = L.zeros(2).index_put((L.tensor([0, 1]),), L.ones(1, 2))",
    "x = L.zeros(2); x[L.tensor([0, 1])] = L.ones(1, 2); out = x",     # setitem: allowed
    "out = L.zeros(2).addcmul_(L.ones(1, 2), L.ones(1, 2))",
    "out = L.zeros(2).clamp_(L.ones(2), None)",      # tensor bounds were a TypeError
    "out = L.zeros(2).clamp_(min=L.ones(1, 1, 2))",
    "out = L.zeros(2, dtype=L.int64).clamp_(min=L.ones(2))",
    "out = L.tensor([0.0, 3.0]).clamp_(max=L.tensor(2.0), min=L.tensor([1.0, 1.0]))",
    "x = L.tensor([0.0, 3.0, 1.5], requires_grad=True)\n"
    "lo = L.tensor([1.0, 1.0, 1.0], requires_grad=True)\nout = x * 1\nout.clamp_(min=lo)\n"
    "leaves = [x, lo]",
])
def test_index_put_and_clamp_with_tensor_operands(code):
    check(code)


@pytest.mark.parametrize("n", [3, 4, 7, 20])
def test_kthvalue_ties_pick_torchs_element_and_route_the_gradient_there(n):
    """kthvalue among equal values: torch's CPU quickselect returns a particular one ([2, 2, 2],
    k=1: index 1), and the gradient goes there; labkit took the stable sort's (index 0), so the
    gradient went to another element (seed 61: maximum, kthvalue, lerp)."""
    rng = np.random.default_rng(n)
    arr = rng.integers(0, 3, (4, n)).astype(float)
    arr[0, :] = 2.0
    arr[1, 1] = math.nan
    for k in range(1, n + 1):
        check(f"x = L.tensor({arr.tolist()!r}, dtype=L.float64, requires_grad=True)\n"
              f"out = x.kthvalue({k}, -1)\nleaves = [x]".replace("nan", "float('nan')"))
        check(f"x = L.tensor({arr.T.tolist()!r}, dtype=L.float64, requires_grad=True)\n"
              f"out = x.kthvalue({min(k, 4)}, 0, keepdim=True)\nleaves = [x]"
              .replace("nan", "float('nan')"))


@pytest.mark.parametrize("shape, target", [((1,), "-100"), ((3,), "-100"), ((2, 3), "[-100, -100]"),
                                           ((2, 3), "[-100, 1]")])
def test_an_ignored_target_passes_no_gradient_even_from_a_nan_upstream(shape, target):
    """make fuzz (seed of the final session run): cross_entropy of unfold(0-d) with every
    target ignored, then softmax of the nan loss: torch's gradient 0, labkit's was nan (nan
    upstream times the ignored row's 0)."""
    check(f"x = L.linspace(-1, 1, {int(np.prod(shape))}, dtype=L.float64).reshape({shape})"
          ".requires_grad_(); leaves = [x]\n"
          f"loss = L.nn.functional.cross_entropy(x, L.tensor({target}), ignore_index=-100)\n"
          "out = L.softmax(loss.reshape(1) * float('nan'), 0)")


def test_float32_erf_is_rounded_from_float64_so_ties_break_as_torch():
    """Fuzz: fmax(erf(y64), erf(x32)) at x = y = 0.5 is a tie in torch (erf(0.5) rounds to
    the same float32 both ways) and its gradient goes to the first argument; labkit's float32
    erf was evaluated in float32 arithmetic, one ulp off, so the gradient went to x."""
    check("x = L.tensor([[-2., -2., -2.], [-2., -2., 0.5]]).requires_grad_(); "
          "y = L.tensor(0.5, dtype=L.float64).requires_grad_(); leaves = [x, y]; "
          "out = L.fmax(L.erf(y), L.erf(x))")
    xs = np.linspace(-4, 4, 4001, dtype=np.float32)
    exact = np.array([math.erf(float(v)) for v in xs], dtype=np.float64).astype(np.float32)
    assert np.array_equal(labkit.erf(labkit.tensor(xs)).numpy(), exact)


@pytest.mark.parametrize("lambd", [0.5, 1.0])
def test_softshrink_keeps_nan_as_torch(lambd):
    """(torch's sign of a zero result depends on whether its vectorized or scalar kernel ran.)"""
    vals = [float("nan"), -2.0, -lambd, -0.3, 0.0, 0.3, lambd, 2.0, float("inf"), -float("inf")]
    got = labkit.nn.functional.softshrink(labkit.tensor(vals, dtype=labkit.float64), lambd)
    want = torch.nn.functional.softshrink(torch.tensor(vals, dtype=torch.float64), lambd)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("pos_weight", [None, [2.0]])
def test_bce_with_logits_at_infinite_logits_as_torch(pos_weight):
    """torch's formula (1 - t) x - log sigmoid(x): x = inf with t = 0 is inf, not nan."""
    x = [float("inf"), -float("inf"), float("inf"), -float("inf"), 3.0, -3.0]
    t = [0.0, 1.0, 1.0, 0.0, 0.25, 1.0]
    out = []
    for lib in (labkit, torch):
        pw = None if pos_weight is None else lib.tensor(pos_weight, dtype=lib.float64)
        xs = lib.tensor(x, dtype=lib.float64, requires_grad=True)
        loss = lib.nn.functional.binary_cross_entropy_with_logits(
            xs, lib.tensor(t, dtype=lib.float64), reduction="none", pos_weight=pw)
        loss.sum().backward()
        out.append((loss.detach().numpy(), xs.grad.numpy()))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-12)


@pytest.mark.parametrize("xs,ys", [((0, 0), (0, 1)), ((2, 3), (2, 1)), ((2, 1), (2, 3)),
                                   ((2, 0), (2, 1)), ((1, 3), (1, 3))])
def test_tensordot_broadcasts_a_size_one_contracted_dim_as_torch(xs, ys):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(xs), rng.standard_normal(ys)
    out = []
    for lib in (labkit, torch):
        x = lib.tensor(a, requires_grad=True)
        y = lib.tensor(b, requires_grad=True)
        r = lib.tensordot(x, y, dims=([1], [1]))
        r.sum().backward()
        out.append((r.detach().numpy(), x.grad.numpy(), y.grad.numpy()))
    for got, want in zip(*out):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_tensordot_refuses_unequal_contracted_dims_as_torch():
    for lib in (labkit, torch):
        with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
            lib.tensordot(lib.ones(2, 3), lib.ones(2, 4), dims=([1], [1]))


@pytest.mark.parametrize("shape,padding", [((1, 1, 1, 1, 1), 1), ((2, 1, 1, 3, 3), 0),
                                           ((0, 1, 1, 1, 1), 1)])
def test_avg_pool3d_refuses_an_input_smaller_than_the_window_as_torch(shape, padding):
    for lib in (labkit, torch):
        with pytest.raises(RuntimeError, match=r"input image \(T: 1 H: \d W: \d\) smaller than"):
            lib.nn.functional.avg_pool3d(lib.zeros(shape), 2, padding=padding)


def test_cross_entropy_with_no_classes_in_a_3d_input_raises_torchs_error_type():
    for lib in (labkit, torch):
        with pytest.raises(RuntimeError, match="size mismatch"):
            lib.nn.functional.cross_entropy(lib.zeros(1, 0, 1), lib.zeros(1, 1, dtype=lib.long))


@pytest.mark.parametrize("batch", [0, 1])
def test_fold_refuses_an_output_smaller_than_the_kernel_as_torch(batch):
    for lib in (labkit, torch):
        with pytest.raises(RuntimeError, match=r"sliding blocks as \(-1, -1\), which is too small"):
            lib.nn.functional.fold(lib.zeros(batch, 9, 1), (1, 1), 3)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_with_no_rows_and_no_classes_as_torch(reduction):
    out = []
    for lib in (labkit, torch):
        x = lib.zeros(0, 0, dtype=lib.float64, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(x, lib.zeros(0, dtype=lib.long),
                                               reduction=reduction)
        loss.sum().backward()
        out.append((loss.detach().numpy(), tuple(x.grad.shape)))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    assert out[0][1] == out[1][1]


@pytest.mark.parametrize("padding_mode", ["border", "reflection", "zeros"])
@pytest.mark.parametrize("align_corners", [True, False])
def test_grid_sample_gradient_on_the_border_is_torchs(padding_mode, align_corners):
    """torch clips a coordinate with the gradient passing strictly inside only: a grid point
    that lands exactly on the first or last pixel (or is clipped to it) gets 0."""
    x = np.array([[[[1.0, 2.0, 4.0, -2.0], [3.0, -1.0, 0.5, 2.5]]]])
    edge = 0.75 if not align_corners else 1.0   # maps exactly onto the last pixel's centre
    g = np.array([[[[-1.0, -1.0], [1.0, 1.0], [edge, 0.3], [-edge, -0.2], [0.2, 0.1],
                    [1.5, -1.7]]]])
    out = []
    for lib in (labkit, torch):
        X, G = lib.tensor(x, requires_grad=True), lib.tensor(g, requires_grad=True)
        y = lib.nn.functional.grid_sample(X, G, padding_mode=padding_mode,
                                          align_corners=align_corners)
        (y * lib.arange(1.0, 7.0, dtype=lib.float64)).sum().backward()
        out.append((y.detach().numpy(), X.grad.numpy(), G.grad.numpy()))
    for got, want in zip(*out):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("inplace", [True, False])
def test_index_add_keeps_negative_zeros_as_torch(inplace):
    """torch adds into the input, so -0.0 stays -0.0 where nothing (or -0.0) is added."""
    got = []
    for lib in (labkit, torch):
        v = lib.full((3, 2), -0.0, dtype=lib.float64, requires_grad=True).clone()
        src = lib.tensor([[-0.0, 1.0], [-0.0, -0.0]], dtype=lib.float64)
        i = lib.tensor([0, 0])
        out = v.index_add_(0, i, src) if inplace else v.index_add(0, i, src)
        got.append(np.signbit(out.detach().numpy()))
    np.testing.assert_array_equal(got[0], got[1])


def test_second_derivative_through_the_mean_of_an_empty_tensor_is_torchs():
    """torch's mean backward expands, then divides by n: for n = 0 the second derivative is
    0 (a sum over nothing), not 0 * inf."""
    out = []
    for lib in (labkit, torch):
        y = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
        x = lib.zeros(0, dtype=lib.float64, requires_grad=True)
        h = y.clone()
        h.mul_(x.mean())
        gy, gx = lib.autograd.grad(h, [y, x], create_graph=True)
        total = (gy * 1.3).sum() + gx.sum()
        out.append(lib.autograd.grad(total, [y, x], allow_unused=True)[0].item())
    assert out[0] == out[1] == 0.0


def test_hardtanh_gradient_at_nan_in_torchs_two_kernels():
    """Documents the torch artifact the fuzzer skips: 3 elements (scalar kernel) pass the
    gradient at nan, 8 (vectorized) give 0; labkit passes it, as the scalar kernel."""
    for n, want in ((3, 1.0), (8, 0.0)):
        x = torch.full((n,), float("nan"), dtype=torch.float64, requires_grad=True)
        torch.nn.functional.hardtanh(x).sum().backward()
        assert x.grad[0].item() == want
    x = labkit.full((8,), float("nan"), dtype=labkit.float64, requires_grad=True)
    labkit.nn.functional.hardtanh(x).sum().backward()
    assert x.grad[0].item() == 1.0
