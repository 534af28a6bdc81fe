"""Discrepancies with torch found by fuzzing indexing, type promotion, views and in-place checks
(tests/fuzz, round 4), each as the small program that showed it: labkit must give torch's
values, dtypes and gradients, or raise torch's exception class."""
import warnings

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def both(program):
    """program(L) on torch and labkit: (result, exception) for each."""
    out = []
    for L in (torch, labkit):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.append((program(L), None))
        except Exception as e:   # noqa: BLE001 -- compared with torch's
            out.append((None, e))
    return out


def same(program):
    (rt, et), (rl, el) = both(program)
    if et is not None or el is not None:
        assert et is not None and el is not None and isinstance(el, type(et)), (et, el)
        return
    _same(rl, rt)


def _same(mine, ref):
    if isinstance(ref, (tuple, list)):
        assert len(mine) == len(ref)
        for m, r in zip(mine, ref):
            _same(m, r)
        return
    if not isinstance(ref, torch.Tensor):
        assert mine == ref
        return
    assert isinstance(mine, labkit.Tensor)
    assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert tuple(mine.shape) == tuple(ref.shape)
    np.testing.assert_allclose(mine.detach().numpy(), ref.detach().numpy(), rtol=1e-6)


# --- diag of a matrix is a copy (was a view: writes reached the other side) ----------------

def test_diag_of_a_matrix_does_not_see_later_writes():
    def program(L):
        a = L.arange(9.).reshape(3, 3)
        d = a.diag()
        a[1] = 100.
        d[0] = -5.
        return d, a
    same(program)


def test_diag_gradient_after_the_matrix_changes_in_place():
    def program(L):
        a0 = L.arange(1., 10.).reshape(3, 3).requires_grad_()
        a = a0 * 1
        d = a.diag()
        a[1] = 0.
        return L.autograd.grad(d, a0, L.tensor([1., 2., 3.]))[0], d.grad_fn.name()
    same(program)


# --- in-place arithmetic: alpha, complex results ---------------------------------------------

@pytest.mark.parametrize("op", ["add_", "sub_"])
def test_alpha_times_other_is_computed_in_the_result_dtype(op):
    """int16 - 2 * uint8 255 is -513 (torch), not -3 - 254 (uint8 arithmetic wrapped)."""
    same(lambda L: getattr(L.tensor([-3, 7], dtype=L.int16), op)(
        L.tensor([255, 3], dtype=L.uint8), alpha=2))


def test_alpha_with_a_zero_d_operand_of_a_lower_dtype():
    same(lambda L: L.tensor([1, 2], dtype=L.int32).add_(L.tensor(200, dtype=L.uint8), alpha=3))


@pytest.mark.parametrize("other", ["scalar", "zero_d", "tensor"])
def test_float_divided_in_place_by_complex_raises(other):
    """The quotient is complex: torch refuses to store it in a float tensor (labkit dropped the
    imaginary part)."""
    def program(L):
        x = L.tensor([1., 2.])
        o = {"scalar": 1j, "zero_d": L.tensor(1j), "tensor": L.tensor([1j, 2])}[other]
        x /= o
        return x
    same(program)


@pytest.mark.parametrize("op", ["__eq__", "__ne__"])
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_tensor_compared_with_a_complex_number_is_a_tensor(op, dtype):
    """x == 1j was Python's False (NotImplemented), torch compares elementwise."""
    same(lambda L: getattr(L.tensor([1, 0, 2]).to(getattr(L, dtype)), op)(1 + 0j))
    same(lambda L: getattr(L.tensor([1, 0, 2]).to(getattr(L, dtype)), op)(1j))


def test_ordering_with_a_complex_number_raises():
    same(lambda L: L.tensor([1., 0.]) < 1j)


# --- index_add / index_fill / index_copy / take / take_along_dim -----------------------------

def test_index_add_converts_alpha_to_an_integer_input_dtype():
    same(lambda L: L.zeros(2, dtype=L.int64).index_add(0, L.tensor([0, 0]),
                                                       L.ones(2, dtype=L.int64), alpha=2.5))
    same(lambda L: L.zeros(2, dtype=L.int64).index_add_(0, L.tensor([1]),
                                                        L.ones(1, dtype=L.int64), alpha=-1.5))


@pytest.mark.parametrize("case", ["negative", "too_big", "source_dtype", "int8_index"])
def test_index_add_refuses_as_torch(case):
    def program(L):
        x = L.arange(6.).reshape(2, 3)
        if case == "negative":
            return x.index_add(1, L.tensor([-1]), L.ones(2, 1))
        if case == "too_big":
            return x.index_add(0, L.tensor([2]), L.ones(1, 3))
        if case == "source_dtype":
            return x.index_add(1, L.tensor([0]), L.ones(2, 1, dtype=L.float64))
        return x.index_add(0, L.tensor([0], dtype=L.int8), L.ones(1, 3))
    same(program)


def test_index_fill_takes_a_zero_d_value_of_another_dtype_with_its_gradient():
    def program(L):
        v = L.tensor(-1.5, dtype=L.float64, requires_grad=True)
        out = L.arange(6.).reshape(2, 3).index_fill(1, L.tensor([2, 0]), v)
        return out, L.autograd.grad(out.sum(), v)[0]
    same(program)


@pytest.mark.parametrize("case", ["one_d_value", "int32_index", "negative"])
def test_index_fill_checks(case):
    def program(L):
        x = L.arange(6.).reshape(2, 3)
        if case == "one_d_value":
            return x.index_fill(1, L.tensor([1]), L.tensor([5.]))
        if case == "int32_index":
            return x.index_fill(1, L.tensor([1], dtype=L.int32), 5)
        return x.index_fill(0, L.tensor([-1]), 5)
    same(program)


@pytest.mark.parametrize("index", [[-1], [3], "int32"])
def test_index_copy_checks(index):
    def program(L):
        i = L.tensor([2], dtype=L.int32) if index == "int32" else L.tensor(index)
        return L.arange(6.).reshape(2, 3).index_copy(1, i, L.tensor([[10.], [12.]]))
    same(program)


@pytest.mark.parametrize("how", ["method", "function"])
def test_take_wants_an_int64_index(how):
    same(lambda L: (L.arange(6.).take if how == "method" else
                    lambda i: L.take(L.arange(6.), i))(L.tensor([0], dtype=L.int32)))


@pytest.mark.parametrize("index", [[[-1]], [[5]], [[-4], [1]], [[0, 2]]])
def test_take_along_dim_reads_positions_modulo_the_size(index):
    def program(L):
        x = L.arange(6.).reshape(2, 3).requires_grad_()
        out = L.take_along_dim(x, L.tensor(index), 1)
        return out, L.autograd.grad(out.sum(), x)[0]
    same(program)


def test_take_along_dim_refusals():
    same(lambda L: L.take_along_dim(L.arange(6.).reshape(2, 3), L.tensor([[0]], dtype=L.int32), 1))
    same(lambda L: L.take_along_dim(L.arange(6.), L.tensor([-1])))          # dim=None: no wrap
    same(lambda L: L.zeros(2, 0).take_along_dim(L.zeros(2, 1, dtype=L.int64), 1))


# --- views: as_strided written in place, strides of views ------------------------------------

def test_as_strided_view_changed_in_place_while_recording():
    """torch records a write through an as_strided view on its base (labkit refused it)."""
    def program(L):
        x0 = L.arange(24.).reshape(2, 3, 4).requires_grad_()
        w = L.tensor(1.5, requires_grad=True)
        x = x0 * 1
        v = x.as_strided((2, 2), (1, 3), 5)
        v.mul_(w)
        out = (x * L.arange(24.).reshape(2, 3, 4)).sum() + (v * v).sum()
        return x, L.autograd.grad(out, [x0, w])
    same(program)


def test_as_strided_view_reads_a_write_through_another_view():
    """v = x.as_strided(...); x.transpose(0, 2).add_(...): v's values and its gradient include
    the write (labkit's gradient missed it: 30 where torch gives 90)."""
    def program(L):
        x0 = L.arange(24.).reshape(2, 3, 4).requires_grad_()
        x = x0 * 1
        v = x.as_strided((2, 2), (1, 3), 5)
        x.transpose(0, 2).add_(x0.transpose(0, 2) * 2)
        return v, L.autograd.grad((v * v).sum(), x0)[0]
    same(program)


@pytest.mark.parametrize("view", [
    lambda x: x[:, 3:], lambda x: x[0, :, :1].t(), lambda x: x[:, :1].permute(2, 0, 1),
    lambda x: x[:, 1:2, 2:3], lambda x: x.transpose(0, 1)[:, :1],
])
def test_stride_of_views_with_size_one_or_zero_dims(view):
    """stride() reports the view's own steps, as torch: a size-0 slice keeps its base's,
    a transposed size-1 dim keeps its step (labkit gave row-major steps for both)."""
    same(lambda L: tuple(view(L.arange(24.).reshape(2, 3, 4)).stride()))


def test_expand_of_a_zero_d_tensor_to_its_own_shape_is_a_view():
    """x.expand(()) of a 0-d x was a copied scalar: a later x.add_ did not show in it."""
    def program(L):
        x0 = L.tensor(1.5, requires_grad=True)
        x = x0 * 1
        v = x.expand(())
        x.add_(2.0)
        return v, v._version, L.autograd.grad((v * 2).sum() + x.sum(), x0)[0]
    same(program)


@pytest.mark.parametrize("view", ["squeeze", "view", "t", "permute"])
def test_view_of_a_split_output_changed_in_place_raises_torchs_error(view):
    """labkit crashed with a TypeError (no write-back recipe above the split output)."""
    def program(L):
        x = L.zeros(2, 3, dtype=L.float64, requires_grad=True) * 1
        p = x.split(1, 0)[0]
        v = {"squeeze": p.squeeze, "view": lambda: p.view(-1), "t": p.t,
             "permute": lambda: p.permute(1, 0)}[view]()
        v.add_(2.0)
        return x
    same(program)


def test_view_of_a_split_output_is_stale_after_its_base_changes():
    """torch raises when the view is used, not at the write (labkit raised at the write)."""
    def program(L):
        x0 = L.zeros(3, dtype=L.float64, requires_grad=True)
        x = x0 * 1
        q = x.split(1, 0)[0].permute(0)
        x.add_(2)
        stage = "after write"
        try:
            L.autograd.grad(q.sum(), x0)
        except RuntimeError:
            stage = "backward raised"
        return stage
    same(program)


@pytest.mark.parametrize("case", ["fill_empty", "fill_0", "fill_neg", "fill_0d_index", "add_empty",
                                  "add_two", "copy_0", "copy_0d_index", "copy_two"])
def test_index_ops_on_a_zero_d_tensor(case):
    def program(L):
        x, e = L.tensor(3.), L.tensor([], dtype=L.int64)
        out = {"fill_empty": lambda: x.index_fill_(0, e, 1.),
               "fill_0": lambda: x.index_fill_(0, L.tensor([0]), 1.),
               "fill_neg": lambda: x.index_fill_(0, L.tensor([-1]), 1.),
               "fill_0d_index": lambda: x.index_fill_(0, L.tensor(0), 1.),
               "add_empty": lambda: x.index_add_(0, e, L.tensor(1.)),
               "add_two": lambda: x.index_add_(0, L.tensor([0, 0]), L.tensor(1.)),
               "copy_0": lambda: x.index_copy_(0, L.tensor([0]), L.tensor(5.)),
               "copy_0d_index": lambda: x.index_copy_(0, L.tensor(0), L.tensor(5.)),
               "copy_two": lambda: x.index_copy_(0, L.tensor([0, 0]), L.tensor(5.))}[case]()
        return out, x._version
    same(program)


def test_index_add_on_an_empty_input_checks_no_positions():
    same(lambda L: L.zeros(0, 1).index_add_(1, L.tensor([-1]), L.zeros(0, 1)))


def test_index_add_on_a_leaf_reports_the_leaf_first():
    same(lambda L: L.tensor(1., requires_grad=True).index_add_(0, L.tensor([0, 0]), L.tensor(1.)))


def test_index_put_accumulate_out_of_range_is_an_index_error():
    same(lambda L: L.zeros(0).index_put_((L.tensor([0]),), L.tensor(2.), accumulate=True))
    same(lambda L: L.zeros(2, 3).index_put_((L.tensor([2]),), L.tensor(2.), accumulate=True))


# --- in-place casts, tensor-only operands, lerp ----------------------------------------------

@pytest.mark.parametrize("b", ["int8", "int16"])
def test_pow_in_place_casts_within_the_integer_category(b):
    """uint8.pow_(int8): the int16 result casts back to uint8 (torch's canCast; labkit used
    numpy's same_kind rule and refused)."""
    same(lambda L: L.tensor([0, 3, 255], dtype=L.uint8).pow_(L.tensor([1, 2, 0],
                                                                      dtype=getattr(L, b))))


def test_pow_in_place_refuses_an_exponent_that_does_not_fit():
    same(lambda L: L.tensor([2, 3], dtype=L.uint8).pow_(300))


@pytest.mark.parametrize("op", ["fmod_", "remainder_"])
def test_bool_in_place_refuses_an_integer_result(op):
    same(lambda L: getattr(L.tensor([True, False]), op)(L.tensor(3, dtype=L.int8)))


@pytest.mark.parametrize("op", ["maximum", "minimum", "fmax", "fmin", "hypot", "logical_and",
                                "logical_or", "logical_and_"])
def test_ops_that_take_only_a_tensor_refuse_a_number(op):
    same(lambda L: getattr(L.tensor([1., 2.]), op)(2))


@pytest.mark.parametrize("dtype", ["bool", "int64"])
def test_hypot_of_integers_is_not_implemented(dtype):
    same(lambda L: L.tensor([1, 0]).to(getattr(L, dtype)).hypot(L.tensor([1, 1]).to(
        getattr(L, dtype))))


@pytest.mark.parametrize("case", ["end_dtype", "int_start", "bool_start", "zero_d_weight"])
@pytest.mark.parametrize("inplace", [False, True])
def test_lerp_checks(case, inplace):
    def program(L):
        start = {"int_start": L.tensor([1, 2]), "bool_start": L.tensor([True, False])}.get(
            case, L.tensor([1., 2.], dtype=L.float16 if case == "end_dtype" else L.float32))
        end = L.tensor([3, 4], dtype=L.uint8) if case == "end_dtype" else L.ones(2).to(
            start.dtype)
        weight = L.tensor(0.5, dtype=L.float64) if case == "zero_d_weight" else 0.5
        return start.lerp_(end, weight) if inplace else L.lerp(start, end, weight)
    same(program)


@pytest.mark.parametrize("changed", ["start", "end"])
def test_lerp_with_a_number_weight_saves_nothing(changed):
    """torch's lerp with a number weight needs no tensor for its gradients: changing start or
    end in place afterwards is fine (labkit refused at backward)."""
    def program(L):
        a0 = L.tensor([1., 2.], requires_grad=True)
        b0 = L.tensor([3., 5.], requires_grad=True)
        a, b = a0 * 1, b0 * 1
        out = L.lerp(a, b, 0.3)
        (a if changed == "start" else b).mul_(2)
        return L.autograd.grad(out.sum(), [a0, b0])
    same(program)


# --- promotion fuzzer finds, round 2 -------------------------------------------------------

def test_number_divided_by_a_tensor_is_reciprocal_times_number():
    """torch computes 1j / x as x.reciprocal() * 1j (bfloat16 rounding, the graph
    MulBackward0 <- ReciprocalBackward0, which saves 1 / x: x may change in place later)."""
    same(lambda L: 1j / L.tensor([1.5, -2.], dtype=L.float32).to(L.bfloat16))
    same(lambda L: 3 / L.tensor([1.5, 2.5], dtype=L.float16))

    def program(L):
        a0 = L.tensor([1.5, 2.5], requires_grad=True)
        a = a0 * 1
        out = 2 / a
        a.add_(1)
        return out.grad_fn.name(), L.autograd.grad(out.sum(), a0)[0]
    same(program)


def test_bfloat16_with_a_complex_number_is_complex64():
    same(lambda L: L.tensor([1.5, -2.]).to(L.bfloat16) + 1j)


@pytest.mark.parametrize("w", [0.25, 0.5, 0.75, 2.0])
def test_lerp_uses_torchs_two_sided_formula(w):
    """start + w * (end - start) below w = 0.5, end - (end - start) * (1 - w) from it: at
    end = inf, torch gives nan for w >= 0.5 (labkit gave inf), in place too."""
    same(lambda L: L.lerp(L.tensor([-2.5, 1.]), L.tensor([float("inf"), 3.]), w))
    same(lambda L: L.tensor([-2.5, 1.]).lerp_(L.tensor([float("inf"), 3.]), w))


@pytest.mark.parametrize("alpha", [2, True, 0])
def test_bool_plus_bool_with_alpha_stays_bool(alpha):
    same(lambda L: L.tensor([True, False]).add_(L.tensor([True, True]), alpha=alpha))
    same(lambda L: L.tensor([True, False]).add_(True, alpha=alpha))


def test_sub_with_alpha_refuses_a_bool_operand():
    same(lambda L: L.tensor([1, 2], dtype=L.uint8).sub(L.tensor([True, False]), alpha=3))


@pytest.mark.parametrize("value", ["int16", "float16", "complex64"])
def test_masked_fill_checks_a_tensor_value_fits(value):
    same(lambda L: L.tensor([1, 2], dtype=L.uint8).masked_fill_(
        L.tensor([True, False]), L.tensor({"int16": -32768, "float16": -2.5,
                                            "complex64": -2.5 + 0j}[value],
                                           dtype=getattr(L, value))))


def test_fill_with_a_one_d_tensor_raises():
    same(lambda L: L.zeros(2).fill_(L.tensor([1.])))


@pytest.mark.parametrize("op", ["lt_", "le", "gt"])
def test_ordering_methods_refuse_a_complex_number(op):
    same(lambda L: getattr(L.tensor([True, False]), op)(1j))


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod"])
def test_rounding_ops_on_complex_are_not_implemented(op):
    same(lambda L: getattr(L.tensor([1, 2]), op)(1 + 2j))


def test_fmod_of_an_empty_integer_tensor_by_zero():
    same(lambda L: L.tensor([], dtype=L.int64).fmod(0))


@pytest.mark.parametrize("op", ["fmod", "remainder"])
def test_fmod_remainder_by_a_number_save_nothing(op):
    """Their gradient for a is grad: torch saves nothing, so a later in-place change of a is
    fine (labkit refused at backward)."""
    def program(L):
        a0 = L.tensor([1.5, 2.5], requires_grad=True)
        a = a0 * 1
        out = getattr(a, op)(1.25)
        a.mul_(2)
        return L.autograd.grad(out.sum(), a0)[0]
    same(program)


# --- in-place-check fuzzer finds -------------------------------------------------------------

@pytest.mark.parametrize("op", ["mm", "matmul_vec", "bmm", "mv", "dot"])
def test_product_saves_only_the_other_factor(op):
    """out = a @ b with only a requiring grad: torch keeps b (for a's gradient) and not a, so
    changing a in place afterwards is fine (labkit refused at backward); changing b raises."""
    def program(L, change):
        a0 = L.tensor([[0.5, 1.5, 2.5], [1.25, 0.75, 3.0], [2.0, 1.1, 0.3]], requires_grad=True)
        a, b = a0 * 1, L.tensor([[1.0, 2.0, 0.5], [0.6, 1.7, 2.2], [0.9, 0.4, 1.3]])
        out = {"mm": lambda: a @ b, "matmul_vec": lambda: a @ b[0],
               "bmm": lambda: L.bmm(a.unsqueeze(0), b.unsqueeze(0)),
               "mv": lambda: L.mv(a, b[0]), "dot": lambda: L.dot(a[0], b[1])}[op]()
        (a if change == "a" else b).mul_(2)
        return L.autograd.grad(out.sum(), a0)[0]
    same(lambda L: program(L, "a"))
    same(lambda L: program(L, "b"))


@pytest.mark.parametrize("exponent", [False, True, 2, 2.0])
def test_bool_pow_in_place_as_torch(exponent):
    """bool ** bool stays bool in place as out of place; a number exponent is refused."""
    got = []
    for lib in (labkit, torch):
        b = lib.tensor([True, False])
        try:
            got.append(b.pow_(exponent).tolist())
        except RuntimeError:
            got.append("RuntimeError")
    assert got[0] == got[1]
