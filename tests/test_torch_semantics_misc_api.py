"""Small torch APIs real programs call, against torch: pdist (values, gradients incl. equal
rows, second derivatives), sum_to_size, unsafe_split/chunk (plain views: in place allowed),
constant_pad_nd, torch.index_copy/index_fill, typename, get_device, set_default_tensor_type,
set_warn_always/is_warn_always_enabled."""
import pytest

from snippets import check

pytest.importorskip("torch")


@pytest.mark.parametrize("p", [2, 1, 0, 3.5, float("inf")])
@pytest.mark.parametrize("rows", [4, 1, 0])
def test_pdist(p, rows):
    """(Gradients not for 0 rows: torch's pdist backward crashes the process there.)"""
    leaves = "leaves = [x]; " if rows else ""
    check(f"L.manual_seed(0); x = L.randn({rows}, 3, dtype=L.float64).requires_grad_(); "
          f"{leaves}out = (L.pdist(x, {p}), L.nn.functional.pdist(x, p={p}))")


def test_pdist_equal_rows_and_second_derivative():
    """torch has no second derivative of pdist; labkit's (pdist is composed of differentiable
    ops) is checked numerically."""
    import labkit
    check("x = L.tensor([[1., 2.], [1., 2.], [0., 0.]], dtype=L.float64).requires_grad_(); "
          "leaves = [x]; out = L.pdist(x)")
    labkit.manual_seed(1)
    x = labkit.randn(3, 2, dtype=labkit.float64, requires_grad=True)
    assert labkit.autograd.gradgradcheck(lambda t: labkit.pdist(t, 3.0), (x,))


@pytest.mark.parametrize("code", ["L.pdist(L.randn(2, 3, 4))", "L.pdist(L.randn(3, 2), p=-1)",
                                  "L.pdist(L.ones(3, 2, dtype=L.int64))"])
def test_pdist_errors(code):
    check(f"out = {code}")


@pytest.mark.parametrize("code", [
    "L.ones(4, 3).sum_to_size(1, 3)", "L.ones(2, 4, 3).sum_to_size(4, 1)",
    "L.ones(4, 3).sum_to_size((3,))", "L.ones(4, 3).sum_to_size(4, 3)",
    "L.ones(4, 3).sum_to_size(2, 3)", "L.ones(3).sum_to_size(1, 3)",
    "L.ones(2, 0).sum_to_size(1, 0)", "L.ones(()).sum_to_size(())",
])
def test_sum_to_size(code):
    check(f"out = {code}")


def test_sum_to_size_gradient():
    check("L.manual_seed(0); x = L.randn(2, 4, 3, dtype=L.float64).requires_grad_(); "
          "leaves = [x]; out = x.sum_to_size(4, 1) * 3")


@pytest.mark.parametrize("code", [
    "L.unsafe_split(x, 2)", "x.unsafe_split(3, 1)", "L.unsafe_chunk(x, 3)",
    "x.unsafe_chunk(2, -1)", "L.unsafe_split_with_sizes(x, [1, 3])",
    "x.unsafe_split_with_sizes([2, 2, 0], 1)",
])
def test_unsafe_split_values_gradients_and_in_place(code):
    setup = "L.manual_seed(0); x0 = L.randn(4, 4, dtype=L.float64).requires_grad_(); " \
            "leaves = [x0]; x = x0 * 1; "
    check(setup + f"out = {code}")
    check(setup + f"p = {code}; p[0].mul_(2); out = (x, p[0])")   # plain views: allowed


@pytest.mark.parametrize("code", [
    "L.constant_pad_nd(L.ones(2), [1, 1], 3.)", "L.constant_pad_nd(L.ones(2, 3), (0, 1, 2, 0))",
    "L.constant_pad_nd(L.ones(2, 3), [-1, 1])",
    "L.index_copy(L.zeros(3, 2), 0, L.tensor([2, 0]), L.ones(2, 2))",
    "L.index_fill(L.zeros(3, 2), 1, L.tensor([1]), -1.)",
    "L.index_copy(L.zeros(3), 0, L.tensor([5]), L.ones(1))",
])
def test_function_forms(code):
    check(f"out = {code}")


@pytest.mark.parametrize("obj", ["L.ones(2)", "L.ones(2, dtype=L.int8)", "L.ones(2).double()",
                                 "3", "'a'", "[1]", "L.ones(2, dtype=L.bool)"])
def test_typename_and_get_device(obj):
    check(f"x = {obj}; out = (L.typename(x), L.get_device(x) if hasattr(x, 'shape') else None)")


def test_set_default_tensor_type_and_warn_always():
    check("L.set_default_tensor_type(L.DoubleTensor); a = (L.get_default_dtype(), L.ones(1).dtype, "
          "L.tensor([1.5]).dtype); L.set_default_tensor_type('torch.FloatTensor'); "
          "out = a + (L.get_default_dtype(), L.ones(1).dtype)")
    check("out = L.set_default_tensor_type(L.LongTensor)")
    check("out = L.set_default_tensor_type('torch.Nonsense')")
    check("a = L.is_warn_always_enabled(); L.set_warn_always(True); b = L.is_warn_always_enabled(); "
          "L.set_warn_always(False); out = (a, b, L.is_warn_always_enabled())")
