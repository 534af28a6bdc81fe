"""Every error a student can provoke says what happened (op, shapes, devices) and what to do."""
import numpy as np
import pytest

import labkit
from labkit.engine import functional as F


def raises(exc, fn, *needles):
    """fn() raises exc whose message contains every needle; returns the message."""
    with pytest.raises(exc) as e:
        fn()
    msg = str(e.value)
    for n in needles:
        assert n in msg, f"{n!r} not in message: {msg}"
    return msg


# --- shapes -------------------------------------------------------------------------------------

@pytest.mark.parametrize("op,name", [(lambda a, b: a + b, "add"), (lambda a, b: a - b, "sub"),
                                     (lambda a, b: a * b, "mul"), (lambda a, b: a / b, "div"),
                                     (lambda a, b: labkit.maximum(a, b), "maximum"),
                                     (lambda a, b: a ** b, "pow")])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_broadcast_mismatch_names_the_op_and_both_shapes(op, name, requires_grad):
    a = labkit.ones(2, 3, requires_grad=requires_grad)
    b = labkit.ones(4)
    raises(RuntimeError, lambda: op(a, b), name, "(2, 3)", "(4,)", "broadcast")


def test_broadcast_mismatch_with_a_numpy_operand():
    raises(RuntimeError, lambda: labkit.ones(2, 3) + np.ones(4), "add", "(2, 3)")


def test_where_broadcast_mismatch():
    raises(RuntimeError, lambda: labkit.where(labkit.ones(2, 3) > 0, labkit.ones(3, 2), 0.0),
           "where", "(2, 3)", "(3, 2)")


@pytest.mark.parametrize("sa,sb,name", [((2, 3), (4, 5), "matmul"), ((3,), (4,), "matmul"),
                                        ((2, 3), (2,), "matmul"), ((5, 2, 3), (5, 4, 2), "matmul")])
def test_matmul_inner_dim_mismatch(sa, sb, name):
    msg = raises(RuntimeError, lambda: labkit.ones(*sa) @ labkit.ones(*sb), name, str(sa), str(sb),
                 "inner")
    assert "transpose" in msg


def test_mm_errors_name_mm():
    raises(RuntimeError, lambda: labkit.mm(labkit.ones(2, 3), labkit.ones(2, 3)), "mm", "(2, 3)")
    raises(RuntimeError, lambda: labkit.mm(labkit.ones(3), labkit.ones(3, 2)), "mm", "2-D")


def test_matmul_of_a_scalar_and_of_mixed_dtypes():
    raises(RuntimeError, lambda: labkit.tensor(2.0) @ labkit.ones(2), "matmul", "*")
    raises(RuntimeError, lambda: labkit.ones(2, 2) @ labkit.ones(2, 2, dtype=labkit.float64),
           "float32", "float64")


@pytest.mark.parametrize("how", ["reshape", "view"])
def test_reshape_to_the_wrong_size(how):
    raises(RuntimeError, lambda: getattr(labkit.ones(2, 3), how)(4, 2), "[4, 2]", "(2, 3)", "6",
           "-1")


def test_view_of_a_non_contiguous_tensor():
    raises(RuntimeError, lambda: labkit.ones(2, 3).t().view(6), "view", "contiguous", "reshape")


def test_cat_and_stack_shape_mismatch():
    raises(RuntimeError, lambda: labkit.cat([labkit.ones(2, 3), labkit.ones(2, 4)]), "cat",
           "(2, 3)", "(2, 4)")
    raises(RuntimeError, lambda: labkit.stack([labkit.ones(2, 3), labkit.ones(2, 4)]), "stack",
           "(2, 3)", "(2, 4)")
    raises(RuntimeError, lambda: labkit.cat([]), "cat")


def test_split_sizes_that_do_not_add_up():
    raises(RuntimeError, lambda: labkit.ones(5).split([2, 2]), "split", "[2, 2]", "5")


def test_dim_out_of_range():
    raises(IndexError, lambda: labkit.ones(3).sum(2), "2", "out of range")
    raises(IndexError, lambda: labkit.ones(2, 3).transpose(0, 2), "transpose", "2")
    raises(IndexError, lambda: labkit.ones(2, 3).softmax(dim=2), "softmax", "(2, 3)")
    raises(IndexError, lambda: labkit.ones(2, 3).squeeze(3), "squeeze")
    raises(IndexError, lambda: labkit.ones(2, 3).unsqueeze(4), "unsqueeze")


def test_expand_permute_and_t_errors():
    raises(RuntimeError, lambda: labkit.ones(2, 3).expand(4, 3), "expand", "(2, 3)", "[4, 3]")
    raises(RuntimeError, lambda: labkit.ones(2, 3).permute(0, 0), "permute", "(2, 3)")
    raises(RuntimeError, lambda: labkit.ones(2, 3, 4).t(), "t()", "(2, 3, 4)", "mT")


def test_softmax_needs_a_dim():
    raises(TypeError, lambda: labkit.softmax(labkit.ones(3)), "dim")


def test_loss_shape_mismatch():
    for loss in (F.mse_loss, F.l1_loss):   # torch warns, broadcasts (a (3, 3) table), and
        with pytest.warns(UserWarning, match=r"target size \(labkit.Size\(\[3\]\)\).*"
                          r"input size \(labkit.Size\(\[3, 1\]\)\).*view\(-1, 1\)"):
            assert loss(labkit.ones(3, 1), labkit.zeros(3), reduction="none").shape == (3, 3)
        with pytest.warns(UserWarning):     # sizes that do not broadcast: the op's error
            raises(RuntimeError, lambda: loss(labkit.ones(3), labkit.ones(4)), "(3,)", "(4,)")
    raises(ValueError, lambda: F.binary_cross_entropy_with_logits(labkit.ones(3, 1),
                                                                  labkit.ones(3)),
           "Target size", "[3, 1]", "view(-1, 1)")
    raises(ValueError, lambda: F.cross_entropy(labkit.ones(3, 4), labkit.tensor([0, 1])),
           "(3, 4)", "(2,)")
    raises(IndexError, lambda: F.cross_entropy(labkit.ones(3, 4), labkit.tensor([0, 1, 4])),
           "[0, 3]", "4")
    raises(RuntimeError, lambda: F.nll_loss(labkit.ones(3, 4), labkit.tensor([0.0, 1.0, 2.0])),
           "long")
    raises(ValueError, lambda: F.mse_loss(labkit.ones(2), labkit.ones(2), reduction="avg"),
           "reduction", "'avg'")


# --- devices ------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["gpu", "tpu", "cuda:x", "cpu:1", "mps"])
def test_unknown_device_string(spec):
    with pytest.raises(RuntimeError) as e:
        labkit.ones(2, device=spec)
    assert repr(spec) in str(e.value) or spec.split(":")[-1] in str(e.value)
    assert "'cpu'" in str(e.value) or "use 'cpu'" in str(e.value)


def test_device_objects():
    assert labkit.device("cpu") == "cpu" and str(labkit.device("cpu")) == "cpu"
    assert repr(labkit.device("cpu")) == "device(type='cpu')"
    assert labkit.ones(2).device.type == "cpu" and not labkit.ones(2).is_cuda
    with pytest.raises(TypeError, match="string"):
        labkit.device(3.5)


@pytest.mark.skipif(labkit.cuda.is_available(),
                    reason="checks the message given on a machine without a GPU")
@pytest.mark.parametrize("make", [lambda: labkit.ones(2, device="cuda"),
                                  lambda: labkit.ones(2).cuda(),
                                  lambda: labkit.ones(2).to("cuda:0"),
                                  lambda: labkit.tensor([1.0], device="cuda"),
                                  lambda: labkit.randn(2, device="cuda")])
def test_cuda_without_a_gpu_says_how_to_check(make):
    raises(RuntimeError, make, "labkit.cuda.is_available()", "cpu")


def test_cuda_module_without_a_gpu():
    if labkit.cuda.is_available():
        assert labkit.cuda.device_count() >= 1
    else:
        assert labkit.cuda.device_count() == 0
        labkit.cuda.synchronize()  # a no-op, never an error


def test_mixing_devices_names_both(cuda_only):
    a, b = labkit.ones(2), labkit.ones(2, device="cuda")
    for fn, name in ((lambda: a + b, "add"), (lambda: a * b, "mul"), (lambda: a @ b, "dot"),
                     (lambda: labkit.cat([a, b]), "cat")):
        msg = raises(RuntimeError, fn, "cpu", "cuda")
        assert name in msg.lower() or "device" in msg
    raises(RuntimeError, lambda: a.add_(b), "cpu", "cuda")
    raises(RuntimeError, lambda: a.__setitem__(0, b[0]), "cpu", "cuda")


# --- dtypes -------------------------------------------------------------------------------------

def test_bool_arithmetic():
    m = labkit.tensor([True, False])
    raises(RuntimeError, lambda: m - m, "sub", "bool", "~mask")
    raises(RuntimeError, lambda: -m, "neg", "bool")


def test_mean_var_std_on_int_tensors():
    i = labkit.tensor([1, 2, 3])
    raises(RuntimeError, lambda: i.mean(), "mean", "int64", "float()")
    raises(RuntimeError, lambda: i.var(), "var", "int64")
    raises(RuntimeError, lambda: i.std(), "std", "int64")


def test_where_with_a_non_bool_condition():
    raises(RuntimeError, lambda: labkit.where(labkit.ones(2), labkit.ones(2), 0.0), "where", "bool",
           "float32")


def test_invert_of_a_float_tensor():
    raises(TypeError, lambda: ~labkit.ones(2), "bool", "float32")


def test_unsupported_dtype():
    raises(TypeError, lambda: labkit.ones(2, dtype="complex256"), "complex256", "float32")
    raises(TypeError, lambda: labkit.from_numpy(np.ones(2, dtype=np.uint32)), "uint32")


# --- indexing -----------------------------------------------------------------------------------

def test_index_with_a_float_tensor():
    raises(IndexError, lambda: labkit.ones(3)[labkit.tensor([0.0, 1.0])], "float32", "long")


def test_index_out_of_range():
    raises(IndexError, lambda: labkit.ones(3)[5], "5", "(3,)")
    raises(IndexError, lambda: labkit.ones(3)[labkit.tensor([0, 3])], "(3,)")
    raises(IndexError, lambda: labkit.ones(2, 3)[0, 0, 0], "(2, 3)")


def test_bool_mask_of_the_wrong_shape():
    raises(IndexError, lambda: labkit.ones(3)[labkit.tensor([True, False])], "(3,)", "mask")


def test_setitem_value_of_the_wrong_shape():
    a = labkit.zeros(2, 3)
    raises(RuntimeError, lambda: a.__setitem__(0, labkit.ones(4)), "(4,)", "(2, 3)")


# --- leaving labkit ----------------------------------------------------------------------------

def test_item_of_several_elements():
    raises(RuntimeError, lambda: labkit.ones(3).item(), "item()", "3 elements", "(3,)", "sum()")
    raises(ValueError, lambda: float(labkit.ones(2)), "float()", "(2,)")   # as torch: ValueError
    assert labkit.ones(1, 1).item() == 1.0


def test_bool_of_several_elements():
    raises(RuntimeError, lambda: bool(labkit.ones(3)), "bool()", "ambiguous", "any()")
    raises(RuntimeError, lambda: labkit.ones(3) > 0 and True, "ambiguous")
    assert bool(labkit.ones(1)) is True and not labkit.zeros(())


def test_numpy_of_a_tensor_requiring_grad():
    raises(RuntimeError, lambda: labkit.ones(3, requires_grad=True).numpy(), "numpy()",
           "detach()")
    raises(RuntimeError, lambda: np.asarray(labkit.ones(3, requires_grad=True)), "detach()")
    assert labkit.ones(3, requires_grad=True).detach().numpy().tolist() == [1.0, 1.0, 1.0]


def test_len_and_iteration_of_a_0d_tensor():
    raises(TypeError, lambda: len(labkit.tensor(1.0)), "0-d", "item()")
    raises(TypeError, lambda: list(labkit.tensor(1.0)), "0-d")


def test_index_method():
    assert [10, 20, 30][labkit.tensor(1)] == 20
    raises(TypeError, lambda: [1, 2][labkit.tensor(1.0)], "integer")


# --- creation ------------------------------------------------------------------------------------

def test_ragged_and_non_numeric_data():
    raises(ValueError, lambda: labkit.tensor([[1, 2], [3]]), "ragged", "same length")
    raises(TypeError, lambda: labkit.tensor("abc"), "numeric")
    raises(TypeError, lambda: labkit.tensor([object()]), "numeric")


def test_bad_sizes_and_arguments():
    raises(ValueError, lambda: labkit.zeros(-1), "non-negative", "(-1,)")
    raises(TypeError, lambda: labkit.zeros(2.5), "int", "float")      # torch's types
    raises(RuntimeError, lambda: labkit.arange(0, 5, 0), "step")
    raises(TypeError, lambda: labkit.randint(0, 5), "size")
    raises(TypeError, lambda: labkit.from_numpy([1, 2]), "numpy")


def test_clamp_needs_a_bound():
    raises(RuntimeError, lambda: labkit.ones(2).clamp(), "clamp", "min")


def test_max_with_a_tensor_argument_is_maximum():
    """torch.max(a, b) is the elementwise maximum (issue 23; tested against torch in
    tests/test_surface_rest.py), no longer an error."""
    a, b = labkit.tensor([1.0, 4.0]), labkit.tensor([3.0, 2.0])
    assert labkit.max(a, b).tolist() == labkit.maximum(a, b).tolist() == [3.0, 4.0]


def test_reducing_an_empty_tensor():
    raises(RuntimeError, lambda: labkit.ones(0).max(), "max", "empty")
    raises(IndexError, lambda: labkit.ones(0, 3).max(0), "empty", "(0, 3)")


def test_duplicate_dims():
    raises(RuntimeError, lambda: labkit.ones(2, 3).sum((1, -1)), "more than once")


@pytest.mark.parametrize("bad, match", [
    (lambda x, d: x[labkit.tensor([0, 3], device=d)], "index 3 is out of bounds for axis 0"),
    (lambda x, d: x[:, labkit.tensor([-5], device=d)], "index -5 is out of bounds for axis 1"),
    (lambda x, d: x[..., labkit.tensor([4], device=d)], "index 4 is out of bounds for axis 1"),
    (lambda x, d: x[[0, 2]], "index 2 is out of bounds for axis 0"),
    (lambda x, d: x.__setitem__(labkit.tensor([9], device=d), 1.0), "index 9 is out of bounds"),
    (lambda x, d: F.cross_entropy(x, labkit.tensor([0, 4], device=d)), "class indices in \\[0, 3\\]"),
    (lambda x, d: F.nll_loss(x, labkit.tensor([-1, 0], device=d)), "class indices in \\[0, 3\\]"),
    (lambda x, d: labkit.nn.functional.embedding(labkit.tensor([5], device=d), x),
     "indices must lie in \\[0, 1\\]"),
])
def test_out_of_range_indices_raise_on_every_device(device, bad, match):
    """numpy raises for an out-of-range index, CuPy silently wraps it around (i % n): labkit
    checks on the GPU so both devices refuse it (the fake CuPy wraps like the real one)."""
    x = labkit.ones(2, 4, device=device)
    with pytest.raises(IndexError, match=match):
        bad(x, device)
