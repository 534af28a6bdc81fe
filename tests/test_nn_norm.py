"""LayerNorm, GroupNorm, BatchNorm2d/3d, F.normalize against torch (float64): torch's weights
loaded into labkit's layers, values, gradients, running statistics, second derivatives of the
functional forms, and torch's errors."""
import numpy as np
import pytest

import labkit
import labkit.nn.functional as F
from labkit import nn
from nn_oracle import check_fn, data, run_pair, twin_layers

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def randomize(layer):
    """Non-trivial affine weights in the torch layer (they are then copied to labkit's)."""
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.tensor(data(tuple(p.shape), seed=p.numel())))
    return layer


@pytest.mark.parametrize("make,shape", [
    (lambda m: m.LayerNorm(5), (3, 5)),
    (lambda m: m.LayerNorm((4, 5)), (2, 3, 4, 5)),
    (lambda m: m.LayerNorm(5, elementwise_affine=False), (2, 3, 5)),
    (lambda m: m.LayerNorm(5, bias=False), (2, 3, 5)),
    (lambda m: m.LayerNorm(5, eps=1e-2), (0, 5)),
    (lambda m: m.LayerNorm(1), (3, 1)),
    (lambda m: m.GroupNorm(2, 6), (3, 6, 4, 5)),
    (lambda m: m.GroupNorm(3, 6, affine=False), (2, 6, 7)),
    (lambda m: m.GroupNorm(1, 4), (2, 4, 3, 3)),
    (lambda m: m.GroupNorm(4, 4), (1, 4, 2, 2)),
    (lambda m: m.GroupNorm(2, 4), (0, 4, 2, 2)),
    (lambda m: m.BatchNorm2d(3), (4, 3, 5, 2)),
    (lambda m: m.BatchNorm2d(3, momentum=None), (4, 3, 5, 2)),
    (lambda m: m.BatchNorm2d(3, affine=False), (2, 3, 1, 2)),
    (lambda m: m.BatchNorm3d(2), (2, 2, 3, 2, 2)),
    (lambda m: m.BatchNorm1d(3), (4, 3, 5)),
    (lambda m: m.InstanceNorm2d(3), (2, 3, 4, 5)),
    (lambda m: m.InstanceNorm2d(3, affine=True), (2, 3, 4, 5)),
    (lambda m: m.InstanceNorm2d(3, affine=True), (3, 4, 5)),
    (lambda m: m.InstanceNorm1d(3, affine=True, bias=False), (2, 3, 6)),
])
def test_layers(device, make, shape):
    mine, ref = twin_layers(make(nn), randomize(make(torch.nn)), device)
    for step in range(2):                 # twice: running statistics are updated, then used
        run_pair(mine, ref, data(shape, seed=step), device)
    mine.eval(), ref.eval()
    run_pair(mine, ref, data(shape, seed=5), device)
    assert repr(mine) == repr(ref)


@pytest.mark.parametrize("shape,norm", [((3, 5), (5,)), ((2, 3, 4), (3, 4))])
def test_layer_norm_second_order(device, shape, norm):
    check_fn(lambda x, w, b: F.layer_norm(x, norm, w, b, 1e-3),
             lambda x, w, b: TF.layer_norm(x, norm, w, b, 1e-3),
             [data(shape), data(norm, seed=2), data(norm, seed=3)], device, rtol=1e-8)


def test_group_norm_second_order(device):
    check_fn(lambda x, w, b: F.group_norm(x, 2, w, b), lambda x, w, b: TF.group_norm(x, 2, w, b),
             [data((2, 4, 3, 2)), data((4,), seed=2), data((4,), seed=3)], device, rtol=1e-8)


@pytest.mark.parametrize("p,dim", [(2, 1), (1, 0), (3, -1), (2.5, 1)])
def test_normalize(device, p, dim):
    check_fn(lambda x: F.normalize(x, p, dim), lambda x: TF.normalize(x, p, dim),
             [data((3, 4, 2))], device)


def test_normalize_zero_vector_has_zero_gradient(device):
    x = np.zeros((2, 3))
    x[1] = [1.0, -2.0, 2.0]
    check_fn(lambda x: F.normalize(x, dim=1), lambda x: TF.normalize(x, dim=1), [x], device,
             double=False)


@pytest.mark.parametrize("call", [
    lambda F, t: F.layer_norm(t(2, 3), (4,)),
    lambda F, t: F.layer_norm(t(2, 3), (3,), t(4)),
    lambda F, t: F.group_norm(t(2, 6, 4), 4),
    lambda F, t: F.normalize(t(2, 3), dim=3),
])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as ref:
        call(TF, lambda *s: torch.ones(*s, dtype=torch.float64))
    with pytest.raises(type(ref.value)):
        call(F, lambda *s: labkit.ones(*s, dtype=labkit.float64))


@pytest.mark.parametrize("make,shape", [
    (lambda m: m.GroupNorm(4, 6), None),
    (lambda m: m.BatchNorm2d(3), (2, 3, 4)),
    (lambda m: m.BatchNorm2d(3), (2, 4, 4, 4)),
    (lambda m: m.BatchNorm1d(3), (2, 3, 4, 4)),
    (lambda m: m.BatchNorm2d(3), (1, 3, 1, 1)),      # one value per channel while training
])
def test_layer_errors_match_torch(make, shape):
    def run(m, lib):
        layer = make(m)
        layer(lib.ones(*shape, dtype=lib.float64) if shape else None)
    with pytest.raises(Exception) as ref:
        run(torch.nn, torch)
    with pytest.raises(type(ref.value)):
        run(nn, labkit)


def test_layer_norm_float32_keeps_dtype():
    y = nn.LayerNorm(4)(labkit.randn(2, 4))
    assert y.dtype == labkit.float32
