"""nn.DataParallel (one device), set/get_float32_matmul_precision, nn.init.dirac_/sparse_ and
the deprecated init names, nn.utils.get_total_norm / clip_grads_with_norm_ / clip_grad_norm,
against torch."""
import warnings

import numpy as np
import pytest

import labkit
from conftest import rand_array

torch = pytest.importorskip("torch")


def test_data_parallel_wraps_and_names_like_torch():
    labkit.manual_seed(0)
    m = labkit.nn.DataParallel(labkit.nn.Sequential(labkit.nn.Linear(3, 4), labkit.nn.ReLU()))
    t = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU()))
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    t.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()})
    x = rand_array((2, 3), 1).astype(np.float32)
    np.testing.assert_allclose(m(labkit.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(),
                               rtol=1e-6)
    assert isinstance(m.module, labkit.nn.Sequential)
    y = m(labkit.tensor(x)).sum()
    y.backward()
    assert m.module[0].weight.grad is not None


def test_float32_matmul_precision():
    before = labkit.get_float32_matmul_precision()
    try:
        for lib in (labkit, torch):
            assert lib.get_float32_matmul_precision() == "highest"
            lib.set_float32_matmul_precision("medium")
            assert lib.get_float32_matmul_precision() == "medium"
            with pytest.warns(UserWarning, match="is not one of"):
                lib.set_float32_matmul_precision("fastest")
            assert lib.get_float32_matmul_precision() == "medium"
            lib.set_float32_matmul_precision("highest")
    finally:
        labkit.set_float32_matmul_precision(before)


@pytest.mark.parametrize("shape, groups", [((4, 2, 3), 1), ((4, 2, 3, 3), 2), ((3, 5, 1, 3, 3), 1),
                                           ((6, 2, 2, 2), 3)])
def test_dirac(shape, groups):
    w, t = labkit.empty(*shape), torch.empty(*shape)
    assert labkit.nn.init.dirac_(w, groups) is w
    torch.nn.init.dirac_(t, groups)
    np.testing.assert_array_equal(w.numpy(), t.numpy())
    x = rand_array((1, shape[1] * groups) + (4,) * (len(shape) - 2), 2)
    if shape[2:] == (3, 3) and shape[1] * groups == shape[0]:   # a dirac conv passes its input on
        y = labkit.nn.functional.conv2d(labkit.tensor(x), w.double(), padding=1, groups=groups)
        np.testing.assert_allclose(y.numpy(), x)
    for lib in (torch, labkit):
        with pytest.raises(ValueError):
            lib.nn.init.dirac_(lib.empty(2, 2))
        with pytest.raises(ValueError):
            lib.nn.init.dirac_(lib.empty(3, 2, 3), groups=2)


def test_sparse():
    labkit.manual_seed(0)
    w = labkit.empty(10, 6)
    assert labkit.nn.init.sparse_(w, 0.3, std=0.5) is w
    zeros = (w == 0).sum(0)
    assert zeros.tolist() == [3] * 6                     # ceil(0.3 * 10) per column
    assert 0.2 < float(w[w != 0].std()) < 1.0
    for lib in (torch, labkit):
        with pytest.raises(ValueError):
            lib.nn.init.sparse_(lib.empty(2, 2, 2), 0.1)


@pytest.mark.parametrize("name, args", [("uniform", ()), ("normal", ()), ("constant", (0.5,)),
                                        ("xavier_uniform", ()), ("xavier_normal", ()),
                                        ("kaiming_uniform", ()), ("kaiming_normal", ()),
                                        ("orthogonal", ()), ("eye", ()), ("sparse", (0.5,))])
def test_deprecated_init_names(name, args):
    for lib in (torch, labkit):
        w = lib.empty(4, 4)
        with pytest.warns(FutureWarning, match=f"nn.init.{name}` is now deprecated"):
            out = getattr(lib.nn.init, name)(w, *args)
        assert out is w and bool((w != 0).any())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = labkit.nn.init.dirac(labkit.empty(2, 2, 3))
    assert w.sum().item() == 2.0


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
def test_total_norm_and_clip(p):
    grads = [rand_array((3, 4), 1), rand_array((5,), 2), rand_array((), 3)]
    mine = labkit.nn.utils.get_total_norm([labkit.tensor(g) for g in grads], p)
    ref = torch.nn.utils.get_total_norm([torch.tensor(g) for g in grads], p)
    np.testing.assert_allclose(mine.numpy(), ref.numpy(), rtol=1e-12)
    assert labkit.nn.utils.get_total_norm([]).item() == torch.nn.utils.get_total_norm([]).item()
    outs = []
    for lib in (labkit, torch):
        params = [lib.zeros(np.shape(g), dtype=lib.float64, requires_grad=True) for g in grads]
        for q, g in zip(params, grads):
            q.grad = lib.tensor(g)
        total = lib.nn.utils.get_total_norm([q.grad for q in params], p)
        lib.nn.utils.clip_grads_with_norm_(params, 0.5, total)
        outs.append([q.grad.numpy() for q in params])
        with pytest.warns(FutureWarning):
            lib.nn.utils.clip_grad_norm(params, 10.0, p)
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    for lib in (torch, labkit):
        with pytest.raises(RuntimeError):
            lib.nn.utils.get_total_norm([lib.tensor([float("nan")])], error_if_nonfinite=True)
