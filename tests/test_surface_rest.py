"""The rest of the torch surface real programs used (issue 23), against torch: elementwise
max/min, log10, repeat_interleave, diagonal, histogram/histc, all/any as functions,
torch.nn.modules as a path, serialization's safe-globals API, argmax(axis=), sum(keepdims=)."""
import numpy as np
import pytest

import labkit as lk
from conftest import assert_close, check_op, rand_array, to_numpy

torch = pytest.importorskip("torch")

SHAPES = [((2, 3), (2, 3)), ((3, 1), (1, 4)), ((), (2,)), ((0, 3), (1, 3)), ((1,), ())]


@pytest.mark.parametrize("a_shape,b_shape", SHAPES)
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_of_two_tensors_is_elementwise(name, a_shape, b_shape, device):
    a, b = rand_array(a_shape, seed=1), rand_array(b_shape, seed=2)
    check_op(lambda x, y: getattr(lk, name)(x, y), lambda x, y: getattr(torch, name)(x, y),
             [a, b], device=device)
    check_op(lambda x, y: getattr(x, name)(y), lambda x, y: getattr(x, name)(y), [a, b],
             device=device)
    check_op(lambda x, y: getattr(lk, name)(x, other=y),
             lambda x, y: getattr(torch, name)(x, other=y), [a, b], device=device)


def test_max_min_of_two_tensors_mixed_dtypes():
    a, b = np.array([1, 5, -2]), np.array([2.5, 1.0, -3.0], dtype=np.float32)
    for name in ("max", "min"):
        mine = getattr(lk, name)(lk.tensor(a), lk.tensor(b))
        ref = getattr(torch, name)(torch.tensor(a), torch.tensor(b))
        assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
        assert_close(to_numpy(mine), ref.numpy())


@pytest.mark.parametrize("shape", [(3, 4), (), (0,), (1, 1)])
def test_log10(shape, device):
    check_op(lambda x: lk.log10(x), lambda x: torch.log10(x),
             [rand_array(shape, seed=3, positive=True)], device=device)
    check_op(lambda x: x.log10(), lambda x: x.log10(),
             [rand_array(shape, seed=4, positive=True)], device=device)


@pytest.mark.parametrize("repeats,dim,shape", [(2, 0, (2, 3)), (3, None, (2, 2)),
                                                ([1, 0, 2], 1, (2, 3)), (1, -1, (1, 1)),
                                                (2, None, ()), (0, 0, (3,))])
def test_repeat_interleave(repeats, dim, shape, device):
    def run(lib):
        r = lib.tensor(repeats) if isinstance(repeats, list) else repeats
        return lambda x: lib.repeat_interleave(x, r, dim=dim)
    check_op(run(lk), run(torch), [rand_array(shape, seed=5)], device=device)


@pytest.mark.parametrize("counts", [[1, 2, 3], [0, 2], [], [4]])
def test_repeat_interleave_of_counts_alone(counts):
    mine = lk.repeat_interleave(lk.tensor(counts, dtype=lk.int64))
    ref = torch.repeat_interleave(torch.tensor(counts, dtype=torch.int64))
    assert mine.tolist() == ref.tolist() and str(mine.dtype)[-5:] == str(ref.dtype)[-5:]


@pytest.mark.parametrize("offset,dim1,dim2,shape", [(0, 0, 1, (3, 4)), (1, 0, 1, (3, 4)),
                                                     (-2, 0, 1, (3, 4)), (0, 1, 2, (2, 3, 3)),
                                                     (5, 0, 1, (2, 2)), (0, -1, 0, (2, 3, 4))])
def test_diagonal(offset, dim1, dim2, shape, device):
    check_op(lambda x: lk.diagonal(x, offset, dim1, dim2),
             lambda x: torch.diagonal(x, offset, dim1, dim2), [rand_array(shape, seed=6)],
             device=device)
    check_op(lambda x: x.diagonal(offset=offset, dim1=dim1, dim2=dim2),
             lambda x: x.diagonal(offset=offset, dim1=dim1, dim2=dim2),
             [rand_array(shape, seed=7)], device=device)


def _hist_data(seed):
    r = np.random.default_rng(seed)
    return r.standard_normal(int(r.integers(0, 200))).astype(r.choice([np.float32, np.float64]))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("bins", [1, 3, 10])
def test_histogram_like_torch(seed, bins):
    x = _hist_data(seed)
    for kw in ({}, dict(range=(-1.0, 2.0)), dict(density=True)):
        a, b = lk.histogram(lk.tensor(x), bins, **kw), torch.histogram(torch.tensor(x), bins,
                                                                        **kw)
        assert_close(a.hist.numpy(), b.hist.numpy(), rtol=1e-6, what=str(kw))
        assert_close(a.bin_edges.numpy(), b.bin_edges.numpy(), rtol=1e-6, atol=1e-6)
        assert a.hist.dtype == lk.tensor(x).dtype and tuple(a) == (a.hist, a.bin_edges)
    w = np.abs(x) + 1
    a = lk.histogram(lk.tensor(x), bins=bins, weight=lk.tensor(w))
    b = torch.histogram(torch.tensor(x), bins=bins, weight=torch.tensor(w))
    assert_close(a.hist.numpy(), b.hist.numpy(), rtol=1e-5)
    edges = np.array([-2.0, -0.5, 0.0, 3.0], dtype=x.dtype)
    a = lk.Tensor.histogram(lk.tensor(x), lk.tensor(edges))
    b = torch.tensor(x).histogram(torch.tensor(edges))
    assert_close(a.hist.numpy(), b.hist.numpy())


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("bins,lo,hi", [(5, 0, 0), (4, -1, 1), (1, 0, 0), (7, 0.5, 3)])
def test_histc_like_torch(seed, bins, lo, hi):
    x = _hist_data(seed)
    if x.size == 0 and lo == hi:
        return
    a, b = lk.histc(lk.tensor(x), bins, lo, hi), torch.histc(torch.tensor(x), bins, lo, hi)
    assert_close(a.numpy(), b.numpy())
    assert str(a.dtype)[-7:] == str(b.dtype)[-7:]


def test_histogram_constant_input_and_errors():
    for x in ([2.0, 2.0], [-1.0]):
        a, b = lk.histogram(lk.tensor(x), 2), torch.histogram(torch.tensor(x), 2)
        assert_close(a.bin_edges.numpy(), b.bin_edges.numpy())
        assert_close(lk.histc(lk.tensor(x), 3).numpy(), torch.histc(torch.tensor(x), 3).numpy())
    for f in (lambda lib: lib.histogram(lib.tensor([1, 2]), 2),
              lambda lib: lib.histc(lib.tensor([1, 2]), 2),
              lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), 0)):
        with pytest.raises(RuntimeError):
            f(torch)
        with pytest.raises(RuntimeError):
            f(lk)


@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("name", ["all", "any"])
def test_all_any_as_functions(name, dim):
    x = np.array([[True, False, True], [True, True, True]])
    for data in (x, x.astype(np.float32), np.zeros((0, 3), bool)):
        args = () if dim is None else (dim,)
        mine = getattr(lk, name)(lk.tensor(data), *args)
        ref = getattr(torch, name)(torch.tensor(data), *args)
        assert mine.tolist() == ref.tolist() and str(mine.dtype)[-4:] == str(ref.dtype)[-4:]


def test_nn_modules_is_an_import_path():
    import labkit.nn.modules as modules
    from labkit.nn.modules import Linear, Module
    from labkit.nn.modules.conv import Conv2d
    from labkit.nn.modules.linear import Linear as Linear2
    assert Linear is Linear2 is lk.nn.Linear and Module is lk.nn.Module
    assert Conv2d is lk.nn.Conv2d and modules.batchnorm.BatchNorm2d is lk.nn.BatchNorm2d
    for name in ("Linear", "Conv2d", "Module", "Sequential", "LazyLinear", "ReLU"):
        assert hasattr(torch.nn.modules, name) and hasattr(modules, name)


def test_safe_globals_are_accepted(tmp_path):
    class Config:
        pass
    lk.serialization.clear_safe_globals()
    lk.serialization.add_safe_globals([Config])
    assert lk.serialization.get_safe_globals() == [Config]
    with lk.serialization.safe_globals([int]):
        assert lk.serialization.get_safe_globals() == [Config, int]
        path = tmp_path / "m.pt"
        lk.save({"w": lk.ones(2)}, path)
        assert lk.load(path)["w"].tolist() == [1.0, 1.0]
    assert lk.serialization.get_safe_globals() == [Config]
    lk.serialization.clear_safe_globals()
    assert "never unpickles" in lk.serialization.add_safe_globals.__doc__


def test_argmax_axis_and_sum_keepdims_numpy_spellings():
    x = rand_array((3, 4), seed=8)
    for lib in (lk, torch):
        t = lib.tensor(x)
        assert lib.argmax(t, axis=1).tolist() == torch.argmax(torch.tensor(x), dim=1).tolist()
        assert t.argmax(axis=0).tolist() == torch.tensor(x).argmax(dim=0).tolist()
    check_op(lambda t: lk.sum(t, 1, keepdims=True), lambda t: torch.sum(t, 1, keepdims=True),
             [x])
    check_op(lambda t: t.sum(dim=0, keepdims=True), lambda t: t.sum(dim=0, keepdims=True), [x])


def test_histogram_of_an_empty_tensor_like_torch():
    a, b = lk.histogram(lk.zeros(0), 3), torch.histogram(torch.zeros(0), 3)
    assert_close(a.bin_edges.numpy(), b.bin_edges.numpy())
    assert a.hist.tolist() == b.hist.tolist()
