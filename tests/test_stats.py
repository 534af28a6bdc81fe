"""Statistics helpers against torch: std/var in every call form, kthvalue, quantile, mode
(values, indices, gradients), histc, histogram, bincount, unique (values, dtypes, errors)."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

from conftest import assert_close, check_op, rand_array  # noqa: E402

STD_FORMS = ["()", "(0)", "(1, keepdim=True)", "(0, True)", "(0, False)", "(False)", "(True)",
             "(unbiased=False)", "(dim=1, unbiased=False, keepdim=True)", "(1, True, True)",
             "(correction=0)", "(dim=(0, 1))", "([0, 1])", "(0, correction=2)", "(-1)",
             "(dim=None, keepdim=True)", "(dim=1, correction=0, keepdim=True)"]


@pytest.mark.parametrize("op", ["std", "var"])
@pytest.mark.parametrize("form", STD_FORMS)
def test_std_var_call_forms(op, form, device):
    """Method and function forms, including the old positional unbiased (x.std(False))."""
    check_op(lambda x: eval(f"x.{op}{form}"), lambda x: eval(f"x.{op}{form}"),
             [rand_array((3, 4), 1)], device=device)
    args = form[1:-1]
    sep = ", " if args else ""
    check_op(lambda x: eval(f"labkit.{op}(x{sep}{args})"),
             lambda x: eval(f"torch.{op}(x{sep}{args})"), [rand_array((3, 4), 2)])


@pytest.mark.parametrize("fn", ["std_mean", "var_mean"])
@pytest.mark.parametrize("args", [(), (1,), (0, False), (False,)])
def test_std_mean_var_mean(fn, args):
    check_op(lambda x: getattr(labkit, fn)(x, *args), lambda x: getattr(torch, fn)(x, *args),
             [rand_array((3, 5), 1)])
    check_op(lambda x: getattr(labkit, fn)(x, 1, keepdim=True, correction=0),
             lambda x: getattr(torch, fn)(x, 1, keepdim=True, correction=0),
             [rand_array((3, 5), 2)])
    check_op(lambda x: getattr(labkit, fn)(x, keepdim=True),
             lambda x: getattr(torch, fn)(x, keepdim=True), [rand_array((3, 5), 3)])


@pytest.mark.parametrize("shape,k,dim,keepdim", [((5,), 1, -1, False), ((5,), 5, 0, True),
                                                 ((3, 4), 2, 1, False), ((3, 4), 3, 0, True),
                                                 ((2, 3, 4), 2, 1, False), ((1, 1), 1, 0, False),
                                                 ((), 1, 0, False)])
def test_kthvalue(shape, k, dim, keepdim, device):
    check_op(lambda x: x.kthvalue(k, dim, keepdim), lambda x: x.kthvalue(k, dim, keepdim),
             [rand_array(shape, 3)], device=device)
    check_op(lambda x: labkit.kthvalue(x, k, dim=dim, keepdim=keepdim),
             lambda x: torch.kthvalue(x, k, dim=dim, keepdim=keepdim), [rand_array(shape, 4)])


def test_kthvalue_errors_and_names():
    x = labkit.tensor([1.0, 2.0])
    r = x.kthvalue(2)
    assert r.values.item() == 2.0 and r.indices.item() == 1 and type(r).__name__ == "kthvalue"
    for k in (0, 3):
        with pytest.raises(RuntimeError, match="k out of range"):
            x.kthvalue(k)
        with pytest.raises(RuntimeError, match="k out of range"):
            torch.tensor([1.0, 2.0]).kthvalue(k)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("q,dim,keepdim", [(0.3, None, False), (0.5, None, True),
                                           ([0.0, 0.25, 0.5, 1.0], 1, False),
                                           ([0.1, 0.9], 0, True), (0.75, -1, False),
                                           ([0.5], None, True), (1.0, 2, True)])
def test_quantile(interpolation, q, dim, keepdim, device):
    def run(lib, x):
        qq = lib.tensor(q, dtype=lib.float64) if isinstance(q, list) else q
        return lib.quantile(x, qq, dim=dim, keepdim=keepdim, interpolation=interpolation)
    check_op(lambda x: run(labkit, x), lambda x: run(torch, x), [rand_array((3, 4, 5), 5)],
             device=device)


def test_quantile_edge_cases():
    for shape, dim in [((1,), None), ((), None), ((), 0), ((4, 1), 1), ((6,), 0)]:
        check_op(lambda x: x.quantile(0.4, dim), lambda x: x.quantile(0.4, dim),
                 [rand_array(shape, 6)])
    check_op(lambda x: x.quantile(labkit.tensor(0.3, dtype=labkit.float64), 1),
             lambda x: x.quantile(torch.tensor(0.3, dtype=torch.float64), 1),
             [rand_array((2, 5), 7)])                       # a 0-d q adds no dim
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
    assert_close(labkit.tensor(a).quantile(0.5, 1), torch.tensor(a).quantile(0.5, 1))
    assert_close(labkit.tensor(a).quantile(0.5), torch.tensor(a).quantile(0.5))
    for bad in [lambda lib: lib.quantile(lib.tensor([1, 2]), 0.5),
                lambda lib: lib.quantile(lib.tensor([1.0, 2.0]), 1.5),
                lambda lib: lib.quantile(lib.tensor([1.0, 2.0]),
                                         lib.tensor([0.5], dtype=lib.float64)),
                lambda lib: lib.quantile(lib.tensor([1.0]), 0.5, interpolation="cubic")]:
        with pytest.raises(RuntimeError):
            bad(torch)
        with pytest.raises(RuntimeError, match="quantile"):
            bad(labkit)


@pytest.mark.parametrize("data,dim,keepdim", [
    ([[3, 1, 3, 1, 2], [5, 5, 4, 4, 4]], -1, False),
    ([[3, 1, 3, 1, 2], [5, 5, 4, 4, 4]], 0, True),
    ([2.0, 1.0, 2.0, 1.0], 0, False),
    ([[[1, 1], [2, 2]], [[0, 3], [3, 3]]], 1, False),
    ([7], 0, True),
    (4.0, 0, False)])
def test_mode(data, dim, keepdim):
    mine = labkit.tensor(data).mode(dim, keepdim)
    ref = torch.tensor(data).mode(dim, keepdim)
    assert type(mine).__name__ == "mode"
    for m, r in zip(mine, ref):
        assert_close(m, r)
        assert str(m.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]


def test_mode_gradient_goes_to_the_index():
    a = np.array([[1.5, 2.5, 1.5, 0.5], [2.0, 2.0, 3.0, 3.0]])
    check_op(lambda x: labkit.mode(x, 1), lambda x: torch.mode(x, 1), [a])


@pytest.mark.parametrize("bins,lo,hi", [(10, 0, 0), (4, -1, 1), (7, -3.0, 0.5), (1, 0, 0),
                                        (100, -2, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histc(bins, lo, hi, dtype):
    a = rand_array((50,), 7).astype(dtype)
    a[:3] = [lo, hi, 0.0]            # values on the edges
    mine = labkit.histc(labkit.tensor(a), bins=bins, min=lo, max=hi)
    ref = torch.histc(torch.tensor(a), bins=bins, min=lo, max=hi)
    assert mine.dtype == getattr(labkit, dtype)
    assert_close(mine, ref)
    assert_close(labkit.tensor(a).reshape(5, 10).histc(bins, lo, hi), ref)


def test_histc_edge_cases():
    for a, kw in [([], dict(bins=3)), ([1.0, 1.0], dict(bins=4)),
                  ([1.0, 2.0, 1.0], dict(bins=4, min=0, max=3)), ([5.0, -5.0], dict(bins=2,
                                                                              min=-1, max=1))]:
        assert_close(labkit.histc(labkit.tensor(a), **kw), torch.histc(torch.tensor(a), **kw))
    x = labkit.tensor([1.0, 2.0], requires_grad=True)
    assert not labkit.histc(x, bins=2).requires_grad      # counts: no gradient, as torch
    with pytest.raises(NotImplementedError):
        torch.histc(torch.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="histc needs a float"):
        labkit.histc(labkit.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="max must be larger than min"):
        labkit.histc(labkit.tensor([1.0]), min=3, max=1)


@pytest.mark.parametrize("kw", [dict(bins=4), dict(bins=4, range=(0.0, 3.0)),
                                dict(bins=5, density=True), dict(bins=3, weight=True),
                                dict(bins=3, weight=True, density=True),
                                dict(bins=[-3.0, -1.0, 0.0, 0.5, 3.0]),
                                dict(bins=[-1.0, 0.0, 1.0], density=True)])
def test_histogram(kw):
    a = rand_array((40,), 8)
    w = rand_array((40,), 9, positive=True)

    def run(lib):
        k = dict(kw)
        if isinstance(k["bins"], list):
            k["bins"] = lib.tensor(k["bins"], dtype=lib.float64)
        if k.get("weight"):
            k["weight"] = lib.tensor(w)
        return lib.histogram(lib.tensor(a), **k)
    mine, ref = run(labkit), run(torch)
    assert type(mine).__name__ == "histogram"
    assert_close(mine.hist, ref.hist)
    assert_close(mine.bin_edges, ref.bin_edges)
    assert mine.hist.dtype == labkit.float64


@pytest.mark.parametrize("data,kw", [([0, 2, 2, 5], {}), ([], {}), ([], dict(minlength=3)),
                                     ([1, 1], dict(minlength=5)), ([3], dict(minlength=1)),
                                     ([0, 2, 2], dict(weights=[1.0, 2.0, 3.0])),
                                     ([0, 2, 2], dict(weights="f64")),
                                     ([0, 2, 2], dict(weights=[1, 2, 3]))])
def test_bincount(data, kw):
    def run(lib):
        k = dict(kw)
        if k.get("weights") == "f64":
            k["weights"] = lib.tensor([0.5, 1.5, 2.5], dtype=lib.float64)
        elif "weights" in k:
            k["weights"] = lib.tensor(k["weights"])
        return lib.bincount(lib.tensor(data, dtype=lib.int64), **k)
    mine, ref = run(labkit), run(torch)
    assert_close(mine, ref)
    assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert_close(labkit.tensor(data, dtype=labkit.int64).bincount(minlength=2),
                 torch.tensor(data, dtype=torch.int64).bincount(minlength=2))


def test_bincount_errors():
    for bad, err in [([-1], RuntimeError), ([[1]], RuntimeError), ([1.0], NotImplementedError)]:
        with pytest.raises(err):
            torch.bincount(torch.tensor(bad))
        with pytest.raises(err, match="bincount"):
            labkit.bincount(labkit.tensor(bad))


@pytest.mark.parametrize("data", [[3, 1, 3, 0, 1], [[3.0, 1.0], [3.0, 7.0]], [], [5],
                                  [1.0, float("nan"), 2.0, float("nan"), 1.0],
                                  [[True, False], [True, True]], 2.5])
@pytest.mark.parametrize("flags", [(False, False), (True, False), (False, True), (True, True)])
def test_unique(data, flags):
    inv, counts = flags
    mine = labkit.unique(labkit.tensor(data), return_inverse=inv, return_counts=counts)
    ref = torch.unique(torch.tensor(data), return_inverse=inv, return_counts=counts)
    mine, ref = (mine, ref) if isinstance(ref, tuple) else ((mine,), (ref,))
    assert len(mine) == len(ref)
    for m, r in zip(mine, ref):
        assert_close(m, r)
        assert str(m.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_dim(dim):
    a = np.array([[1, 2, 1], [1, 2, 1], [0, 5, 0], [1, 2, 1]])
    mine = labkit.tensor(a).unique(dim=dim, return_inverse=True, return_counts=True)
    ref = torch.tensor(a).unique(dim=dim, return_inverse=True, return_counts=True)
    for m, r in zip(mine, ref):
        assert_close(m, r)
    assert_close(labkit.tensor(a).unique(sorted=False), torch.tensor(a).unique(sorted=False))


def test_lecture_style_printout():
    """What statistics cells print: nelement, numel, std(dim, keepdim), a histogram of
    predictions, counts of labels."""
    labkit.manual_seed(0)
    x = labkit.randn(100, 3)
    assert x.nelement() == x.numel() == 300
    assert x.std(0, keepdim=True).shape == (1, 3)
    labels = labkit.randint(0, 4, (50,))
    counts = labels.bincount(minlength=4)
    assert counts.sum().item() == 50
    values, c = labels.unique(return_counts=True)
    assert labkit.equal(counts[values], c)
    assert labkit.histc(x[:, 0], bins=5).sum().item() == 100


@pytest.mark.parametrize("fn", ["median", "nanmedian"])
@pytest.mark.parametrize("shape,dim,keepdim", [((7,), None, False), ((6,), None, False),
                                               ((3, 4), 1, False), ((3, 4), 0, True),
                                               ((2, 3, 5), -1, True), ((1,), 0, False),
                                               ((), None, False), ((), 0, False)])
def test_median(fn, shape, dim, keepdim, device):
    args = () if dim is None else (dim, keepdim)
    check_op(lambda x: getattr(x, fn)(*args), lambda x: getattr(x, fn)(*args),
             [rand_array(shape, 11)], device=device)


@pytest.mark.parametrize("fn", ["median", "nanmedian"])
def test_median_nan_and_ints(fn):
    a = np.array([[1.0, np.nan, 3.0, 0.5], [4.0, 5.0, 6.0, 2.0], [np.nan] * 4])
    for args in [(), (1,), (0, True)]:
        mine, ref = getattr(labkit.tensor(a), fn)(*args), getattr(torch.tensor(a), fn)(*args)
        mine, ref = (mine, ref) if args else ((mine,), (ref,))
        assert_close(mine[0], ref[0])
        if args and fn == "median":          # nanmedian's index on an all-nan row: unspecified
            assert_close(mine[1], ref[1])
    ints = [[3, 1, 2, 2], [7, 5, 9, 8]]
    for args in [(), (1,)]:
        mine = getattr(labkit.tensor(ints), fn)(*args)
        ref = getattr(torch.tensor(ints), fn)(*args)
        assert_close(mine if not args else mine.values, ref if not args else ref.values)
        assert (mine if not args else mine.values).dtype == labkit.int64


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("q,dim,keepdim", [(0.3, None, False), ([0.0, 0.4, 1.0], 1, True),
                                           (0.5, 0, False)])
def test_nanquantile(interpolation, q, dim, keepdim):
    a = rand_array((4, 6), 12)
    a[0, 1] = a[2, 0] = a[2, 5] = np.nan
    a[3] = np.nan                                    # a row of nan only: nan
    def run(lib, x):
        qq = lib.tensor(q, dtype=lib.float64) if isinstance(q, list) else q
        return lib.nanquantile(x, qq, dim=dim, keepdim=keepdim, interpolation=interpolation)
    mine, ref = run(labkit, labkit.tensor(a)), run(torch, torch.tensor(a))
    assert_close(mine, ref)
    b = rand_array((3, 5), 13)                       # no nan: quantile's values and gradients
    check_op(lambda x: run(labkit, x), lambda x: run(torch, x), [b])


def test_float64_data_from_python_floats_is_exact():
    """tensor(..., dtype=float64) keeps Python floats as they are (q = 0.1 stays 0.1, not the
    float32 0.10000000149): quantile levels and any float64 data written as literals."""
    for make in (labkit.tensor, labkit.as_tensor):
        assert make([0.1], dtype=labkit.float64).item() == 0.1
        assert make(0.1, dtype=labkit.float64).item() == \
            torch.tensor(0.1, dtype=torch.float64).item()
