"""Elementwise ops on complex tensors against torch: values, dtypes, gradients for random
complex upstream gradients (torch's conjugate Wirtinger convention), second derivatives, and
real-valued losses of complex intermediates (abs, .real, angle)."""
import numpy as np
import pytest

import labkit
from complex_oracle import check_complex, crand

torch = pytest.importorskip("torch")

SHAPES = [(), (0,), (1,), (3, 4)]

UNARY = {
    "exp": lambda m, x: m.exp(x),
    "log": lambda m, x: m.log(x),
    "sqrt": lambda m, x: m.sqrt(x),
    "sin": lambda m, x: m.sin(x),
    "cos": lambda m, x: m.cos(x),
    "tan": lambda m, x: m.tan(x),
    "tanh": lambda m, x: m.tanh(x),
    "sinh": lambda m, x: m.sinh(x),
    "cosh": lambda m, x: m.cosh(x),
    "sigmoid": lambda m, x: m.sigmoid(x),
    "reciprocal": lambda m, x: m.reciprocal(x),
    "square": lambda m, x: m.square(x),
    "rsqrt": lambda m, x: m.rsqrt(x),
    "log10": lambda m, x: m.log10(x),
    "log2": lambda m, x: m.log2(x),
    "log1p": lambda m, x: m.log1p(x),
    "expm1": lambda m, x: m.expm1(x),
    "asin": lambda m, x: m.asin(x),
    "acos": lambda m, x: m.acos(x),
    "atan": lambda m, x: m.atan(x),
    "asinh": lambda m, x: m.asinh(x),
    "acosh": lambda m, x: m.acosh(x),
    "atanh": lambda m, x: m.atanh(x),
    "neg": lambda m, x: -x,
    "abs": lambda m, x: m.abs(x),
    "angle": lambda m, x: m.angle(x),
    "sgn": lambda m, x: m.sgn(x),
    "conj": lambda m, x: m.conj(x),
    "conj_physical": lambda m, x: m.conj_physical(x),
    "real": lambda m, x: x.real,
    "imag": lambda m, x: x.imag,
    "pow_int": lambda m, x: x ** 3,
    "pow_float": lambda m, x: x ** 0.5,
    "pow_complex": lambda m, x: x ** (0.5 + 1j),
    "rpow": lambda m, x: (2.0 + 0.5j) ** x,
}


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_matches_torch(name, shape, device):
    f = UNARY[name]
    z = crand(shape, seed=len(name), away_from_zero=True)
    check_complex(lambda x: f(labkit, x), lambda x: f(torch, x), [z], device, rtol=1e-6)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "tanh", "sigmoid", "abs",
                                  "angle", "reciprocal", "pow_complex", "rpow", "sgn"])
def test_unary_second_derivative(name, device):
    f = UNARY[name]
    z = crand((5,), seed=3, away_from_zero=True)
    check_complex(lambda x: f(labkit, x), lambda x: f(torch, x), [z], device, rtol=1e-6,
                  second=True)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_unary_keeps_precision(dtype, device):
    z = crand((4,), seed=1, dtype=dtype, away_from_zero=True)
    tol = 1e-5 if dtype == np.complex64 else 1e-7
    for name in ("exp", "abs", "angle", "real", "sqrt"):
        f = UNARY[name]
        check_complex(lambda x: f(labkit, x), lambda x: f(torch, x), [z], device, rtol=tol,
                      atol=1e-6)


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b,
}


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((), (2, 3)),
                                    ((0, 3), (1, 3)), ((1,), ())], ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_complex_complex(name, shapes, device):
    a = crand(shapes[0], seed=1, away_from_zero=True)
    b = crand(shapes[1], seed=2, away_from_zero=True)
    f = BINARY[name]
    check_complex(f, f, [a, b], device, rtol=1e-6, second=(name != "pow"))


@pytest.mark.parametrize("real_dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_real_with_complex_gives_real_gradient(name, real_dtype, device):
    """A real input meeting a complex one: the result is complex, the real input's gradient
    is real (torch keeps the real part of the Wirtinger gradient)."""
    a = np.random.default_rng(0).uniform(0.5, 2, (2, 3)).astype(real_dtype)
    b = crand((2, 3), seed=4, dtype=np.complex64, away_from_zero=True)
    f = BINARY[name]
    check_complex(f, f, [a, b], device, rtol=1e-4, atol=1e-5)
    check_complex(f, f, [b, a], device, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("scalar", [2, 1.5, 2 - 3j, True])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_with_python_scalar(name, scalar, device):
    if name in ("pow", "sub") and isinstance(scalar, bool):
        pytest.skip("z ** True is z; z - True is torch's bool-subtraction error (test_errors)")
    z = crand((3,), seed=5, dtype=np.complex64, away_from_zero=True)
    f = BINARY[name]
    check_complex(lambda x: f(x, scalar), lambda x: f(x, scalar), [z], device, rtol=1e-5,
                  atol=1e-5)
    check_complex(lambda x: f(scalar, x), lambda x: f(scalar, x), [z], device, rtol=1e-5,
                  atol=1e-5)


def test_python_complex_scalar_promotes_real_tensor(device):
    x = np.array([1.0, -2.0], dtype=np.float32)
    for f in (lambda t: t * 1j, lambda t: t + (1 - 2j), lambda t: (2 + 1j) / t):
        check_complex(f, f, [x], device, rtol=1e-6)
    x64 = np.array([1.0, -2.0])
    check_complex(lambda t: t * 1j, lambda t: t * 1j, [x64], device)


@pytest.mark.parametrize("loss", ["abs", "real", "imag", "angle", "abs2"])
def test_real_losses_of_complex_intermediates(loss, device):
    """Real parameters, a complex middle, a real loss: the gradient path of a signal model."""
    def f(m, w, z):
        h = (w * z).exp() * z + m.sin(z) / (z + 2)
        if loss == "abs":
            return h.abs().sum()
        if loss == "real":
            return h.real.square().sum()
        if loss == "imag":
            return (h.imag * 3).sum()
        if loss == "angle":
            return h.angle().sum()
        return (h * h.conj()).real.sum()
    w = np.random.default_rng(1).standard_normal((4,))
    z = crand((4,), seed=2, away_from_zero=True)
    check_complex(lambda a, b: f(labkit, a, b), lambda a, b: f(torch, a, b), [w, z], device,
                  rtol=1e-6, second=True)


def test_abs_and_angle_at_zero_have_torch_gradient(device):
    z = np.array([0j, 1 + 1j])
    check_complex(lambda x: x.abs(), lambda x: x.abs(), [z], device)
    check_complex(lambda x: x.angle(), lambda x: x.angle(), [z], device)
    check_complex(lambda x: x.sgn(), lambda x: x.sgn(), [z], device)


def test_matmul_complex_and_mixed(device):
    a = crand((2, 3), seed=1)
    b = crand((3, 4), seed=2)
    check_complex(lambda x, y: x @ y, lambda x, y: x @ y, [a, b], device, second=True)
    check_complex(lambda x, y: labkit.mm(x, y), lambda x, y: torch.mm(x, y), [a, b], device)
    v = crand((3,), seed=3)
    check_complex(lambda x, y: x @ y, lambda x, y: x @ y, [a, v], device)
    check_complex(lambda x, y: x @ y, lambda x, y: x @ y, [v, v], device)
    batched = crand((2, 2, 3), seed=4)
    check_complex(lambda x, y: x @ y, lambda x, y: x @ y, [batched, b], device)


def test_matmul_real_times_complex_is_an_error_as_torch(device):
    a = labkit.randn(2, 3, device=device)
    b = labkit.randn(3, 2, dtype=labkit.complex64, device=device)
    ta, tb = torch.randn(2, 3), torch.randn(3, 2, dtype=torch.complex64)
    with pytest.raises(RuntimeError) as t_err:
        ta @ tb
    with pytest.raises(RuntimeError, match="matmul|mm") as err:
        a @ b
    assert "complex" in str(err.value).lower() or "Float" in str(err.value), str(t_err.value)


REDUCTIONS = {
    "sum": lambda x: x.sum(),
    "sum_dim": lambda x: x.sum(1),
    "mean": lambda x: x.mean(0),
    "cumsum": lambda x: x.cumsum(1),
    "prod_like": lambda x: (x * x.flip(0)).sum(0),
    "var": lambda x: x.var(),
    "var_dim": lambda x: x.var(1, correction=0, keepdim=True),
    "std": lambda x: x.std(),
    "std_dim": lambda x: x.std(0),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("shape", [(3, 4), (0, 4), (1, 1)], ids=str)
def test_reductions(name, shape, device):
    check_complex(REDUCTIONS[name], REDUCTIONS[name], [crand(shape, seed=6)], device)


SHAPE_OPS = {
    "reshape": lambda x: x.reshape(4, 3),
    "transpose": lambda x: x.t(),
    "permute": lambda x: x.unsqueeze(0).permute(2, 0, 1),
    "index": lambda x: x[1:, ::2],
    "fancy": lambda x: x[[0, 2, 2]],
    "cat": lambda x: labkit.cat([x, x * 2]) if isinstance(x, labkit.Tensor) else torch.cat([x, x * 2]),
    "stack": lambda x: (labkit if isinstance(x, labkit.Tensor) else torch).stack([x, x.conj()]),
    "flip": lambda x: x.flip(1),
    "roll": lambda x: x.roll(1, 0),
    "expand": lambda x: x[:1].expand(5, 4),
    "where": lambda x: (labkit if isinstance(x, labkit.Tensor) else torch).where(x.real > 0, x, 2j),
    "tril": lambda x: x.tril(),
    "diagonal": lambda x: x.diagonal(),
    "clone": lambda x: x.clone(),
    "squeeze": lambda x: x[:1].squeeze(0),
}


@pytest.mark.parametrize("name", sorted(SHAPE_OPS))
def test_shape_and_selection_ops(name, device):
    f = SHAPE_OPS[name]
    check_complex(f, f, [crand((3, 4), seed=8)], device)


def test_comparisons_that_torch_allows(device):
    z = crand((4,), seed=1)
    w = z.copy()
    w[1] += 1
    for f in (lambda a, b: a == b, lambda a, b: a != b,
              lambda a, b: (labkit if isinstance(a, labkit.Tensor) else torch).isclose(a, b),
              lambda a, b: a.isfinite(), lambda a, b: a.isnan()):
        check_complex(f, f, [z, w], device, grad=False)
    tz = torch.tensor(z)
    assert labkit.tensor(z, device=device).equal(labkit.tensor(z, device=device))
    assert bool(labkit.allclose(labkit.tensor(z), labkit.tensor(z + 1e-12))) == \
        bool(torch.allclose(tz, tz + 1e-12))


def test_add_sub_alpha(device):
    z, w = crand((3,), 1), crand((3,), 2)
    for alpha in (2, 0.5, 1 - 2j):
        f = lambda a, b: a.add(b, alpha=alpha)
        check_complex(f, f, [z, w], device)
        f = lambda a, b: a.sub(b, alpha=alpha)
        check_complex(f, f, [z, w], device)
    x = np.array([1.0, 2.0])
    with pytest.raises(RuntimeError) as t_err:
        torch.tensor(x).add(torch.tensor(x), alpha=1j)
    with pytest.raises(RuntimeError, match="add.*alpha must not be a complex") as err:
        labkit.tensor(x).add(labkit.tensor(x), alpha=1j)
    assert "alpha must not be a complex" in str(t_err.value), err.value


@pytest.mark.parametrize("eq,shapes", [("bix,iox->box", [(2, 3, 4), (3, 5, 4)]),
                                       ("ij,jk->ik", [(2, 3), (3, 2)]), ("ii->", [(3, 3)]),
                                       ("i,i->", [(4,), (4,)]), ("bi,bi->b", [(2, 3), (2, 3)])])
def test_einsum_complex(eq, shapes, device):
    arrays = [crand(s, i) for i, s in enumerate(shapes)]
    check_complex(lambda *a: labkit.einsum(eq, *a), lambda *a: torch.einsum(eq, *a), arrays,
                  device, second=True)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("xshape", [(3,), (2, 3), (2, 4, 3)], ids=str)
def test_linear_complex(xshape, bias, device):
    arrays = [crand(xshape, 1), crand((5, 3), 2)] + ([crand((5,), 3)] if bias else [])
    f = lambda m: (lambda *a: m.nn.functional.linear(*a))
    check_complex(f(labkit), f(torch), arrays, device, second=True)


@pytest.mark.parametrize("mode,pad", [("constant", (1, 2)), ("constant", (1, 0, 2, 1)),
                                      ("reflect", (2, 1)), ("replicate", (1, 1, 0, 2)),
                                      ("circular", (2, 2))])
def test_pad_complex(mode, pad, device):
    z = crand((2, 3, 4), 1)
    f = lambda m: (lambda a: m.nn.functional.pad(a, pad, mode=mode))
    check_complex(f(labkit), f(torch), [z], device)
