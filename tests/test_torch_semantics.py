"""Issue 13: each discrepancy a differential fuzzer found between labkit and torch 2.13, as a
named regression test. Values, dtypes, shapes and gradients are compared with torch; where torch
refuses, labkit must raise the same exception class."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def same(mine, ref):
    """Same shape, dtype and values (nan where torch has nan)."""
    assert tuple(mine.shape) == tuple(ref.shape), (tuple(mine.shape), tuple(ref.shape))
    assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1], (mine.dtype, ref.dtype)
    np.testing.assert_allclose(mine.detach().numpy().astype(float),
                               ref.detach().numpy().astype(float), rtol=1e-6, equal_nan=True)


def both(fn, *arrays, grad=False):
    """fn run on labkit and torch tensors made from the same numpy arrays."""
    lk = [labkit.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    th = [torch.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    return fn(labkit, *lk), fn(torch, *th), lk, th


def raises_like(fn):
    """fn(torch) raises; fn(labkit) must raise the same exception class."""
    with pytest.raises(Exception) as want:
        fn(torch)
    with pytest.raises(type(want.value)):
        fn(labkit)


# --- silent wrong values ----------------------------------------------------------------------

def test_advanced_index_int_and_array_separated_by_slice_puts_array_dims_first():
    for idx in [(0, slice(None), [0, 1]), (slice(None), 0, [0, 2]), (0, [1, 0], slice(None)),
                ([0, 1], slice(None), 1), (Ellipsis, [0, 1]), (0, slice(None), [[0], [1]])]:
        m, r, _, _ = both(lambda L, x: x[idx], np.arange(24).reshape(2, 3, 4))
        same(m, r)


def test_advanced_index_int_and_array_assignment_writes_torch_layout():
    x, y = labkit.arange(24).reshape(2, 3, 4), torch.arange(24).reshape(2, 3, 4)
    v = np.arange(6).reshape(3, 2) + 100
    x[0, :, [0, 1]] = labkit.tensor(v)
    y[0, :, [0, 1]] = torch.tensor(v)
    same(x, y)


def test_advanced_index_mixed_gradient():
    g = np.random.default_rng(0).standard_normal((3, 2))
    m, r, lk, th = both(lambda L, x: x[0, :, [0, 1]], np.random.default_rng(1).random((2, 3, 4)),
                        grad=True)
    m.backward(labkit.tensor(g))
    r.backward(torch.tensor(g))
    same(lk[0].grad, th[0].grad)


@pytest.mark.parametrize("op,dim", [("sum", ()), ("mean", ()), ("amax", []), ("amin", ()),
                                    ("sum", []), ("nansum", ())])
def test_reduce_over_empty_dim_list_reduces_everything(op, dim):
    a = np.random.default_rng(0).random((2, 3))
    m, r, lk, th = both(lambda L, x: getattr(x, op)(dim=dim) if hasattr(x, op) else None, a,
                        grad=True)
    if m is None:
        pytest.skip(f"labkit has no {op}")
    same(m, r)
    m.backward()
    r.backward()
    same(lk[0].grad, th[0].grad)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("lo,hi", [(0.5, 2.5), (1, 2), (None, 1.5), (0, None), (True, None)])
def test_clamp_promotes_like_torch(dtype, lo, hi):
    a = np.array([0, 1, 2, 3], dtype=dtype)
    def run(L, x):
        return x.clamp(lo, hi)
    try:
        r = run(torch, torch.tensor(a))
    except Exception as e:
        with pytest.raises(type(e)):
            run(labkit, labkit.tensor(a))
        return
    same(run(labkit, labkit.tensor(a)), r)


def test_add_alpha_scales_in_result_dtype_int16_uint8():
    m, r, _, _ = both(lambda L, a, b: a.add(b, alpha=2), np.array([1], "int16"),
                      np.array([200], "uint8"))
    same(m, r)
    assert m.item() == 401


def test_uint8_compared_with_zero_dim_tensor_uses_torch_promotion():
    for op in ["__eq__", "__lt__", "__gt__", "__ne__"]:
        m, r, _, _ = both(lambda L, a: getattr(a, op)(L.tensor(-1)), np.array([0, 255], "uint8"))
        same(m, r)


def test_bool_masked_fill_with_float_keeps_bool():
    m, r, _, _ = both(lambda L, x, k: x.masked_fill(k, 1.5), np.array([True, False, False]),
                      np.array([False, True, False]))
    same(m, r)


def test_masked_fill_int_with_float_value_keeps_int():
    m, r, _, _ = both(lambda L, x, k: x.masked_fill(k, 2.7), np.array([1, 2, 3]),
                      np.array([False, True, False]))
    same(m, r)


@pytest.mark.parametrize("shape,n,dim", [((0, 2), 4, 0), ((0, 2), 1, 0), ((3, 0), 2, 1),
                                         ((5, 2), 3, 0), ((2, 0), 4, 0)])
def test_chunk_of_size_zero_dims(shape, n, dim):
    m, r, _, _ = both(lambda L, x: x.chunk(n, dim), np.zeros(shape, "float32"))
    assert len(m) == len(r)
    for a, b in zip(m, r):
        same(a, b)


@pytest.mark.parametrize("shape,sizes,dim", [((0, 2), [], 0), ((0, 2), [0, 0], 0),
                                             ((3, 2), [1, 0, 2], 0), ((0, 2), 2, 0),
                                             ((4, 2), 3, 0)])
def test_split_with_size_zero(shape, sizes, dim):
    def run(L, x):
        return x.split(sizes, dim)
    try:
        r = run(torch, torch.zeros(shape))
    except Exception as e:
        with pytest.raises(type(e)):
            run(labkit, labkit.zeros(shape))
        return
    m = run(labkit, labkit.zeros(shape))
    assert len(m) == len(r)
    for a, b in zip(m, r):
        same(a, b)


@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_argmax_of_0d_with_keepdim_is_0d(op):
    m, r, _, _ = both(lambda L, x: getattr(x, op)(dim=0, keepdim=True), np.array(3.0, "float32"))
    same(m, r)


@pytest.mark.parametrize("fn", [
    lambda L: L.ones(3).expand(-1, 3),
    lambda L: L.ones(2, 3, 4).flatten(2, 1),
    lambda L: L.ones(4).split(1, dim=-2),
    lambda L: L.ones(2, 3).split(1, dim=3),
    lambda L: L.ones(2, 3).chunk(2, dim=2),
    lambda L: L.ones(2, 3).unsqueeze(3),
    lambda L: L.ones(2, 3).transpose(0, 2),
    lambda L: L.ones(2, 3).squeeze(2),
    lambda L: L.ones(2, 3).sum(dim=2),
    lambda L: L.ones(2, 3).permute(0, 0),
    lambda L: L.ones(2, 3).permute(0, 2),
    lambda L: L.ones(2).expand(3, -1, 2),
    lambda L: L.ones(3)[::-1],
    lambda L: L.ones(3)[::-2],
    lambda L: L.ones(3, 2)[:, ::-1],
], ids=["expand-1-new-dim", "flatten-reversed", "split-dim-2", "split-dim3", "chunk-dim2",
        "unsqueeze3", "transpose2", "squeeze2", "sum-dim2", "permute-repeat", "permute-out",
        "expand-1-leading", "negative-step", "negative-step-2", "negative-step-2d"])
def test_shape_arguments_are_range_checked(fn):
    raises_like(fn)


def test_negative_step_error_points_to_flip():
    with pytest.raises(ValueError, match="flip"):
        labkit.ones(3)[::-1]


# --- Tensor.data --------------------------------------------------------------------------------

def test_data_std_is_torch_std():
    m, r, _, _ = both(lambda L, w: w.data.std(), np.arange(6, dtype="float32").reshape(2, 3))
    same(m, r)
    assert abs(m.item() - 1.8708) < 1e-3


def test_data_max_dim_returns_values_and_indices():
    m, r, _, _ = both(lambda L, o: o.data.max(1), np.array([[1, 5, 2], [7, 0, 3]], "float32"),
                      grad=True)
    same(m.values, r.values)
    same(m.indices, r.indices)
    _, pred = m
    assert pred.tolist() == [1, 0]


def test_data_add_inplace_changes_param_without_version_bump_or_record():
    p = labkit.nn.Parameter(labkit.ones(3))
    tp = torch.nn.Parameter(torch.ones(3))
    v0, tv0 = p._version, tp._version
    p.data.add_(labkit.ones(3), alpha=-0.5)
    tp.data.add_(torch.ones(3), alpha=-0.5)
    same(p, tp)
    assert p._version == v0 and tp._version == tv0
    assert p.grad_fn is None and p.requires_grad and p.is_leaf


def test_data_is_detached_and_shares_memory():
    w = labkit.ones(2, requires_grad=True)
    d = w.data
    assert isinstance(d, labkit.Tensor) and not d.requires_grad and d.grad_fn is None
    d[0] = 5.0
    assert w.tolist() == [5.0, 1.0]


def test_data_change_after_save_is_not_detected_as_torch():
    """torch: changes through .data are invisible to autograd (so no error, a stale gradient).
    labkit does the same, which is why lectures teach no_grad instead."""
    for L in (labkit, torch):
        w = L.ones(2, requires_grad=True)
        y = (w * w).sum()
        w.data.mul_(3)
        y.backward()
        assert w.grad.tolist() == [6.0, 6.0]
