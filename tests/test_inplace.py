"""In-place ops: the version counter, leaves, no_grad updates, masked assignment, +=, views."""
import numpy as np
import pytest

import labkit


def _torch():
    return pytest.importorskip("torch")


def both(fn, *arrays):
    """Run fn(M, *leaves) on labkit and torch float64 leaves; return (grads_lk, grads_torch,
    out_lk, out_torch) after out.backward(upstream) with a fixed random upstream gradient."""
    torch = _torch()
    results = []
    for M in (labkit, torch):
        leaves = [M.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]
        out = fn(M, *leaves)
        g = np.random.default_rng(0).standard_normal(tuple(out.shape))
        out.backward(M.tensor(g))
        results.append(([None if x.grad is None else x.grad.detach().numpy() for x in leaves],
                         out.detach().numpy()))
    (g_lk, o_lk), (g_t, o_t) = results
    np.testing.assert_allclose(o_lk, o_t, rtol=1e-12, err_msg="value")
    for i, (a, b) in enumerate(zip(g_lk, g_t)):
        if b is None:
            assert a is None or not a.any(), f"input {i}: torch gives no gradient"
        else:
            assert a is not None, f"input {i}: labkit gave no gradient"
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=f"grad of input {i}")


# --- the version counter ----------------------------------------------------------------------

@pytest.mark.parametrize("change", ["add_", "mul_", "iadd", "setitem", "zero_", "fill_", "copy_",
                                    "clamp_", "div_", "sub_", "neg_", "relu_", "masked"])
def test_changing_a_saved_input_raises_at_backward(change, device):
    x = labkit.tensor([1.0, -2.0, 3.0], requires_grad=True, device=device)
    h = x * 1.0
    y = h * h                     # MulBackward0 saves h
    {
        "add_": lambda: h.add_(1), "mul_": lambda: h.mul_(2), "iadd": lambda: h.__iadd__(1),
        "setitem": lambda: h.__setitem__(0, 5.0), "zero_": lambda: h.zero_(),
        "fill_": lambda: h.fill_(2.0), "copy_": lambda: h.copy_(labkit.ones(3, device=device)),
        "clamp_": lambda: h.clamp_(min=0), "div_": lambda: h.div_(2), "sub_": lambda: h.sub_(1),
        "neg_": lambda: h.neg_(), "relu_": lambda: h.relu_(),
        "masked": lambda: h.__setitem__(h < 0, 0.0),
    }[change]()
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as e:
        y.sum().backward()
    assert "MulBackward0" in str(e.value)


def test_changing_a_saved_output_raises_at_backward():
    x = labkit.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()                   # ExpBackward0 saves its output y
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as e:
        y.sum().backward()
    assert "ExpBackward0" in str(e.value)


def test_changing_a_detached_copy_of_a_saved_tensor_raises():
    """detach() shares memory and the version counter (torch: the same error)."""
    x = labkit.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.0
    z = y * y
    y.detach().mul_(3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_changing_a_saved_tensor_through_a_view_raises():
    x = labkit.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    h = x * 1.0
    y = (h * h).sum()
    with labkit.no_grad():
        h[0].mul_(2)              # a view shares the version counter with its base
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_changing_a_tensor_that_was_not_saved_is_fine():
    x = labkit.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1.0
    y = h + 1                     # AddBackward0 saves nothing
    h.mul_(5)
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_version_counter_counts_writes():
    x = labkit.zeros(3)
    v0 = x._version
    x.add_(1)
    x[0] = 2.0
    x.zero_()
    assert x._version == v0 + 3
    view = x[1:]
    view.add_(1)
    assert x._version == view._version == v0 + 4


# --- leaves ------------------------------------------------------------------------------------

@pytest.mark.parametrize("change", ["add_", "iadd", "setitem", "zero_", "mul_"])
def test_in_place_on_a_leaf_requiring_grad_raises(change):
    w = labkit.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf") as e:
        {"add_": lambda: w.add_(1), "iadd": lambda: w.__iadd__(1),
         "setitem": lambda: w.__setitem__(0, 2.0), "zero_": lambda: w.zero_(),
         "mul_": lambda: w.mul_(2)}[change]()
    assert "no_grad" in str(e.value)
    assert w.tolist() == [1.0, 1.0, 1.0]   # nothing was written


def test_in_place_on_a_view_of_a_leaf_requiring_grad_raises():
    w = labkit.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf"):
        w[0].add_(1)
    with pytest.raises(RuntimeError, match="view of a leaf"):
        w.t().mul_(2)
    assert w.sum().item() == 6.0


def test_sgd_update_under_no_grad_works(device):
    w = labkit.tensor([1.0, 2.0], requires_grad=True, device=device)
    loss = (w * w).sum()
    loss.backward()
    with labkit.no_grad():
        w -= 0.1 * w.grad
        w.sub_(w.grad, alpha=0.5)
    assert np.allclose(w.detach().cpu().numpy(), [1.0 - 0.2 - 1.0, 2.0 - 0.4 - 2.0])
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    w.grad.zero_()
    (w * 3).sum().backward()                  # the updated leaf still works in a new graph
    assert w.grad.tolist() == [3.0, 3.0]


def test_grad_zero_and_none():
    w = labkit.ones(2, requires_grad=True)
    (w * 2).sum().backward()
    w.grad.zero_()
    assert w.grad.tolist() == [0.0, 0.0]
    (w * 2).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0]


# --- recorded in-place ops match torch ---------------------------------------------------------

def test_masked_assignment_like_the_lecture():
    def f(M, x):
        h = x * 2
        h[h < 0] = 0
        return h * x
    both(f, [[-1.0, 2.0], [0.5, -3.0]])


def test_masked_assignment_on_a_gradient_array_without_grad():
    grad_h = labkit.tensor([[1.0, 2.0], [3.0, 4.0]])
    h = labkit.tensor([[-1.0, 1.0], [1.0, -1.0]])
    grad_h[h < 0] = 0
    assert grad_h.tolist() == [[0.0, 2.0], [3.0, 0.0]]


def test_plus_equals_on_a_non_leaf_records_the_graph():
    def f(M, x, b):
        y = x * 3
        y += b
        y *= x
        y -= 1
        y /= b
        return y
    both(f, [1.0, -2.0, 0.5], [2.0, 3.0, -1.5])


def test_plus_equals_keeps_the_object_and_changes_grad_fn():
    x = labkit.ones(2, requires_grad=True)
    y = x * 2
    before = id(y)
    y += 1
    assert id(y) == before and type(y.grad_fn).__name__ == "AddBackward0"


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_", "clamp_", "relu_", "neg_",
                                "zero_", "fill_", "copy_", "masked_fill_"])
def test_each_in_place_op_records_like_torch(op):
    def f(M, x, o):
        y = x * 1.5
        if op == "clamp_":
            y.clamp_(-0.5, 0.7)
        elif op in ("relu_", "neg_", "zero_"):
            getattr(y, op)()
        elif op == "fill_":
            y.fill_(2.5)
        elif op == "masked_fill_":
            y.masked_fill_(y > 0.3, -1.0)
        elif op == "copy_":
            y.copy_(o * 2)
        else:
            getattr(y, op)(o)
        return y * x
    both(f, [0.2, -1.3, 0.9, 1.7], [1.1, -0.4, 2.0, 0.6])


def test_in_place_with_a_broadcast_operand():
    def f(M, x, b):
        y = x * 1
        y.add_(b)
        y.mul_(b)
        return y
    both(f, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [0.5, -1.0, 2.0])


def test_in_place_on_a_tensor_not_requiring_grad_with_a_grad_operand():
    def f(M, w):
        buf = M.zeros(3, dtype=M.float64)
        buf.add_(w)
        buf.mul_(w)
        return buf
    both(f, [1.0, -2.0, 3.0])


def test_setitem_with_a_value_requiring_grad():
    def f(M, a, v):
        x = a * 1
        x[1:3] = v
        x[0, 0] = v[0, 1] * 2
        return x
    both(f, np.arange(12.0).reshape(4, 3), [[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])


def test_setitem_with_duplicate_int_tensor_indices():
    torch = _torch()

    def f(M, a, v):
        x = a * 1
        x[M.tensor([0, 2])] = v
        return x
    both(f, np.arange(12.0).reshape(4, 3), [1.0, 2.0, 3.0])
    del torch


# --- views -------------------------------------------------------------------------------------

def test_in_place_on_a_view_changes_the_base(device):
    a = labkit.zeros(2, 3, device=device)
    a[0].add_(1)
    a.t()[2, 1] = 7.0
    a[:, 1:].mul_(2)
    a.view(6)[0] = -1.0
    a.reshape(3, 2)[2].fill_(4.0)
    assert a.tolist() == [[-1.0, 2.0, 2.0], [0.0, 4.0, 4.0]]
    b = labkit.zeros(4)
    b[2].add_(5)                  # a single element is a view too (as in torch)
    assert b.tolist() == [0.0, 0.0, 5.0, 0.0]


def test_a_change_to_the_base_shows_in_its_views():
    a = labkit.zeros(2, 3)
    row, col = a[1], a[:, 2]
    a.add_(1)
    a[1, 2] = 9.0
    assert row.tolist() == [1.0, 1.0, 9.0] and col.tolist() == [1.0, 9.0]


def test_reshape_that_copies_is_not_a_view():
    a = labkit.zeros(2, 3)
    r = a.t().reshape(6)          # non-contiguous: a copy, as in torch
    r.add_(1)
    assert a.sum().item() == 0.0 and a._version == 0


@pytest.mark.parametrize("case", ["index_iadd", "select_mul", "slice_mul", "view_mul",
                                  "transpose_set", "permute_add", "unsqueeze_add",
                                  "view_of_view", "two_views", "reshape_view"])
def test_in_place_on_views_of_non_leaves_records_like_torch(case):
    def f(M, x, b):
        y = x * 1.0
        if case == "index_iadd":
            y[0] += b[0]
        elif case == "select_mul":
            y[1].mul_(b[1])
        elif case == "slice_mul":
            y[:, 1:].mul_(b[:, :2])
        elif case == "view_mul":
            y.view(-1).mul_(b.view(-1))
        elif case == "transpose_set":
            y.t()[0] = b[:, 2]
        elif case == "permute_add":
            y.permute(1, 0).add_(b.t())
        elif case == "unsqueeze_add":
            y.unsqueeze(0).add_(b)
        elif case == "view_of_view":
            y[1][1:].mul_(b[0, :2])
        elif case == "two_views":
            y[0].mul_(2)
            y[:, 0].add_(b[:, 0])
        else:
            y.reshape(3, 2)[1:].mul_(b.reshape(3, 2)[1:])
        return y * x
    both(f, [[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], [[0.7, 1.3, -2.0], [0.1, 2.2, 1.9]])


def test_a_view_taken_before_the_base_changed_follows_the_new_history():
    def f(M, x):
        y = x * 1.0
        v = y[0:1]
        y.mul_(3)
        return v * 2
    both(f, [1.0, 2.0])


def test_a_view_changed_in_place_gives_its_base_a_history():
    def f(M, w):
        buf = M.zeros(3, dtype=M.float64)
        buf[:2].add_(w)
        return buf * 1.0
    both(f, [1.0, 2.0])


def test_expand_is_read_only():
    e = labkit.ones(1).expand(3)
    with pytest.raises(RuntimeError, match="read-only") as err:
        e.add_(1)
    assert "clone()" in str(err.value)


# --- dtype and shape errors ----------------------------------------------------------------------

def test_in_place_dtype_mismatch_gives_a_clear_error():
    i = labkit.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="int64") as e:
        i.add_(1.5)
    assert "add_" in str(e.value) and "float" in str(e.value)
    with pytest.raises(RuntimeError, match="mul_.*int64"):
        i.mul_(labkit.tensor([0.5, 1.0, 2.0]))
    assert i.tolist() == [1, 2, 3]


def test_in_place_dtype_mismatch_while_recording():
    i = labkit.tensor([1, 2, 3])
    w = labkit.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="add_.*int64"):
        i.add_(w)
    assert i.tolist() == [1, 2, 3]


def test_in_place_float_into_float_widening_is_fine():
    a = labkit.zeros(2)
    a.add_(labkit.tensor([1, 2]))            # int into float: fine, as in torch
    a.add_(labkit.ones(2, dtype=labkit.float64))
    assert a.dtype == labkit.float32 and a.tolist() == [2.0, 3.0]


def test_in_place_cannot_change_the_shape():
    a = labkit.zeros(3)
    with pytest.raises(RuntimeError, match=r"add_.*\(3,\)"):
        a.add_(labkit.ones(2, 3))
    h = labkit.ones(3, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match=r"add_.*\(2, 3\).*\(3,\)"):
        h.add_(labkit.ones(2, 3))


def test_setitem_float_into_int_truncates_like_torch():
    i = labkit.tensor([1, 2, 3])
    i[0] = 2.7
    assert i.tolist() == [2, 2, 3] and i.dtype == labkit.int64
