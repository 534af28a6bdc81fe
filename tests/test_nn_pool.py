"""Pooling, interpolation and padding against torch (float64): values, gradients, second
derivatives, odd sizes with ceil_mode, batch 0, size-1 dims, and torch's errors."""
import numpy as np
import pytest

import labkit
import labkit.nn.functional as F
from labkit import nn
from nn_oracle import check_fn, close, data, run_pair, twin_layers

torch = pytest.importorskip("torch")
TF = torch.nn.functional


AVG = [  # shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
    ((2, 3, 6, 6), 2, None, 0, False, True, None),
    ((2, 3, 7, 5), 3, 2, 1, False, True, None),
    ((2, 3, 7, 5), 3, 2, 1, False, False, None),
    ((1, 2, 7, 8), (3, 2), (2, 3), (1, 1), True, True, None),
    ((1, 2, 7, 8), (3, 2), (2, 3), (1, 1), True, False, None),
    ((1, 2, 5, 5), 2, 2, 0, True, True, None),
    ((1, 2, 5, 5), 3, 2, 1, True, True, 4),
    ((3, 5, 5), 2, 1, 1, False, True, None),            # no batch dim
    ((0, 2, 4, 4), 2, None, 0, False, True, None),      # batch 0
    ((2, 1, 1, 1), 1, None, 0, False, True, None),      # size-1 everything
]


@pytest.mark.parametrize("shape,k,s,p,ceil,incl,div", AVG)
def test_avg_pool2d(device, shape, k, s, p, ceil, incl, div):
    y, _ = check_fn(lambda x: F.avg_pool2d(x, k, s, p, ceil, incl, div),
                    lambda x: TF.avg_pool2d(x, k, s, p, ceil, incl, div), [data(shape)], device)
    assert y.grad_fn.name() == "AvgPool2DBackward0"


@pytest.mark.parametrize("shape,out", [((2, 3, 7, 5), 3), ((2, 3, 7, 5), (2, 4)),
                                       ((2, 3, 7, 5), 1), ((1, 2, 4, 4), (None, 2)),
                                       ((2, 3, 5, 9), (5, 9)), ((3, 5, 4), (7, 3)),
                                       ((0, 2, 4, 4), 2)])
def test_adaptive_avg_pool2d(device, shape, out):
    check_fn(lambda x: F.adaptive_avg_pool2d(x, out),
             lambda x: TF.adaptive_avg_pool2d(x, out), [data(shape)], device)


def test_pool1d(device):
    check_fn(lambda x: F.avg_pool1d(x, 3, 2, 1, True),
             lambda x: TF.avg_pool1d(x, 3, 2, 1, True), [data((2, 3, 8))], device)
    check_fn(lambda x: F.adaptive_avg_pool1d(x, 3),
             lambda x: TF.adaptive_avg_pool1d(x, 3), [data((2, 3, 8))], device)


MAX = [  # shape, kernel, stride, padding, dilation, ceil_mode
    ((2, 3, 7, 7), 2, None, 0, 1, True),
    ((2, 3, 7, 6), 3, 2, 1, 1, True),
    ((1, 2, 8, 9), (3, 2), (2, 3), (1, 1), (1, 2), True),
    ((1, 2, 5, 5), 2, 2, 0, 1, False),
    ((1, 2, 6, 6), 3, 2, 1, 2, True),
    ((3, 5, 5), 2, 2, 0, 1, True),                     # no batch dim
    ((0, 2, 4, 4), 2, None, 0, 1, False),               # batch 0
]


@pytest.mark.parametrize("shape,k,s,p,d,ceil", MAX)
def test_max_pool2d_ceil_mode_and_indices(device, shape, k, s, p, d, ceil):
    x = np.random.default_rng(3).permutation(int(np.prod(shape))).reshape(shape) / 7.0  # no ties
    check_fn(lambda x: F.max_pool2d(x, k, s, p, d, ceil),
             lambda x: TF.max_pool2d(x, k, s, p, d, ceil), [x], device)
    out, idx = F.max_pool2d(labkit.tensor(x, device=device), k, s, p, d, ceil, True)
    t_out, t_idx = TF.max_pool2d(torch.tensor(x), k, s, p, d, ceil, True)
    close(out, t_out, "values")
    close(idx, t_idx, "indices")
    assert idx.dtype == labkit.int64 and not idx.requires_grad


@pytest.mark.parametrize("k,s,p,d,ceil", [(2, None, 0, 1, False), (3, 2, 1, 1, True),
                                          (2, 3, 1, 2, True)])
def test_max_pool1d(device, k, s, p, d, ceil):
    x = np.random.default_rng(4).permutation(2 * 3 * 9).reshape(2, 3, 9) / 5.0
    check_fn(lambda x: F.max_pool1d(x, k, s, p, d, ceil),
             lambda x: TF.max_pool1d(x, k, s, p, d, ceil), [x], device)
    mine = nn.MaxPool1d(k, s, p, d, return_indices=True, ceil_mode=ceil)
    ref = torch.nn.MaxPool1d(k, s, p, d, return_indices=True, ceil_mode=ceil)
    (y, i), (yt, it) = mine(labkit.tensor(x, device=device)), ref(torch.tensor(x))
    close(y, yt, "values")
    close(i, it, "indices")
    assert repr(mine) == repr(ref)


def test_maxpool2d_module(device):
    mine, ref = twin_layers(nn.MaxPool2d(3, 2, 1, ceil_mode=True, return_indices=True),
                            torch.nn.MaxPool2d(3, 2, 1, ceil_mode=True, return_indices=True),
                            device)
    x = data((2, 3, 8, 7))
    (y, i), (yt, it) = mine(labkit.tensor(x, device=device)), ref(torch.tensor(x))
    close(y, yt, "values")
    close(i, it, "indices")
    assert repr(mine) == repr(ref)


@pytest.mark.parametrize("make", [
    lambda m: m.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda m: m.AvgPool2d(2),
    lambda m: m.AdaptiveAvgPool2d((1, 1)),
    lambda m: m.AdaptiveAvgPool2d(3),
    lambda m: m.MaxPool2d(2, ceil_mode=True),
    lambda m: m.Upsample(scale_factor=2, mode="nearest"),
    lambda m: m.Upsample(size=(9, 4), mode="bilinear", align_corners=True),
    lambda m: m.Upsample(scale_factor=1.5, mode="bilinear"),
    lambda m: m.UpsamplingNearest2d(scale_factor=2),
    lambda m: m.UpsamplingBilinear2d(size=5),
    lambda m: m.ZeroPad2d((1, 2, 0, 3)),
    lambda m: m.ConstantPad2d(2, 3.5),
    lambda m: m.ReflectionPad2d(2),
    lambda m: m.ReplicationPad2d((1, 0, 2, 3)),
])
def test_modules(device, make):
    mine, ref = twin_layers(make(nn), make(torch.nn), device)
    run_pair(mine, ref, data((2, 3, 7, 5)), device)
    assert repr(mine) == repr(ref)


INTERP = [  # shape, size, scale_factor, mode, align_corners
    ((2, 3, 4, 5), (7, 9), None, "nearest", None),
    ((2, 3, 4, 5), None, 2, "nearest", None),
    ((2, 3, 4, 5), None, (1.5, 0.5), "nearest", None),
    ((2, 3, 6, 5), (4, 3), None, "nearest", None),
    ((2, 3, 4, 5), (7, 9), None, "nearest-exact", None),
    ((2, 3, 4, 5), (7, 9), None, "bilinear", False),
    ((2, 3, 4, 5), (7, 9), None, "bilinear", True),
    ((2, 3, 4, 5), None, 2, "bilinear", False),
    ((2, 3, 4, 5), None, 1.7, "bilinear", False),
    ((2, 3, 4, 5), None, 1.7, "bilinear", True),
    ((2, 3, 6, 5), (3, 2), None, "bilinear", False),
    ((1, 1, 1, 1), (3, 3), None, "bilinear", True),
    ((2, 3, 5), 8, None, "linear", False),
    ((2, 3, 5), None, 3, "nearest", None),
    ((0, 3, 4, 5), (6, 6), None, "bilinear", False),
    ((2, 3, 4, 5), (7, 9), None, "bicubic", False),
    ((2, 3, 4, 5), (7, 9), None, "bicubic", True),
    ((2, 3, 6, 5), None, 1.5, "bicubic", False),
    ((2, 3, 6, 5), (3, 2), None, "bicubic", False),
    ((2, 3, 7, 5), (3, 2), None, "area", None),
    ((2, 3, 4, 5), (8, 10), None, "area", None),
    ((1, 2, 3, 4, 5), (4, 3, 7), None, "trilinear", False),
    ((1, 2, 3, 4, 5), None, 2, "trilinear", True),
]


@pytest.mark.parametrize("shape,size,scale,mode,align", INTERP)
def test_interpolate(device, shape, size, scale, mode, align):
    y, _ = check_fn(lambda x: F.interpolate(x, size, scale, mode, align),
                    lambda x: TF.interpolate(x, size, scale, mode, align), [data(shape)], device)


PAD = [  # shape, pad, mode, value
    ((2, 3), (1, 2), "constant", 0.0),
    ((2, 3, 4), (1, 2, 0, 3), "constant", 1.5),
    ((2, 3, 4), (-1, 2, 1, -2), "constant", 0.0),        # negative: crop
    ((2, 3, 4, 5), (1, 1, 2, 2, 1, 0), "constant", -2.0),
    ((2, 3, 4, 5), (3, 2, 1, 3), "reflect", None),
    ((3, 4, 5), (4, 0, 3, 1), "reflect", None),
    ((2, 3, 5), (4, 2), "reflect", None),
    ((2, 3, 4, 5), (3, 2, 1, 3), "replicate", None),
    ((2, 3, 4, 5), (5, 2, 4, 1), "circular", None),
    ((2, 3, 1, 1), (2, 2, 2, 2), "replicate", None),
    ((0, 3, 4, 5), (1, 1, 1, 1), "reflect", None),
    ((2, 3, 4, 5), (0, 0, 0, 0), "constant", 0.0),
]


@pytest.mark.parametrize("shape,pad,mode,value", PAD)
def test_pad(device, shape, pad, mode, value):
    y, _ = check_fn(lambda x: F.pad(x, pad, mode, value), lambda x: TF.pad(x, pad, mode, value),
                    [data(shape)], device)


def test_pad_integers_and_float32(device):
    x = np.arange(12).reshape(3, 4)
    close(F.pad(labkit.tensor(x, device=device), (1, 1, 2, 0), value=7),
          TF.pad(torch.tensor(x), (1, 1, 2, 0), value=7), "int64 constant pad")
    f = F.pad(labkit.ones(2, 3, 4, device=device), (1, 1), mode="reflect")
    assert f.dtype == labkit.float32 and tuple(f.shape) == (2, 3, 6)


def errors(f_lk, f_torch):
    """Both raise, with the same exception type; labkit's message is returned."""
    with pytest.raises(Exception) as ref:
        f_torch()
    with pytest.raises(type(ref.value)) as mine:
        f_lk()
    return str(mine.value)


@pytest.mark.parametrize("call", [
    lambda F, t: F.avg_pool2d(t(1, 1, 2, 2), 3),
    lambda F, t: F.avg_pool2d(t(1, 1, 4, 4), 2, padding=2),
    lambda F, t: F.avg_pool2d(t(1, 1, 4, 4), 0),
    lambda F, t: F.avg_pool2d(t(1, 0, 4, 4), 2),
    lambda F, t: F.max_pool2d(t(1, 1, 2, 2), 3),
    lambda F, t: F.max_pool2d(t(1, 1, 4, 4), 2, padding=2),
    lambda F, t: F.max_pool2d(t(4, 4), 2),
    lambda F, t: F.pad(t(2, 3), (1,)),
    lambda F, t: F.pad(t(2, 3), (1, 1, 1, 1, 1, 1)),
    lambda F, t: F.pad(t(1, 1, 3, 3), (3, 3), mode="reflect"),
    lambda F, t: F.pad(t(1, 3, 3), (3, 3, 0, 0), mode="reflect"),
    lambda F, t: F.pad(t(1, 3, 3), (-2, -2), mode="constant"),
    lambda F, t: F.interpolate(t(1, 1, 3, 3), size=4, mode="nearest", align_corners=True),
    lambda F, t: F.interpolate(t(1, 1, 3, 3), size=4, scale_factor=2),
    lambda F, t: F.interpolate(t(1, 1, 3, 3)),
    lambda F, t: F.interpolate(t(1, 3, 3), size=4, mode="bilinear"),
    lambda F, t: F.interpolate(t(1, 1, 3, 3), size=(4, 4, 4)),
])
def test_errors_match_torch(call):
    errors(lambda: call(F, lambda *s: labkit.ones(*s, dtype=labkit.float64)),
           lambda: call(TF, lambda *s: torch.ones(*s, dtype=torch.float64)))


def test_interpolating_integers_other_than_nearest_is_an_error():
    img = np.arange(16, dtype=np.uint8).reshape(1, 1, 4, 4)          # torch: uint8 only
    close(F.interpolate(labkit.tensor(img), scale_factor=2),
          TF.interpolate(torch.tensor(img), scale_factor=2), "nearest on uint8")
    x = labkit.ones(1, 1, 4, 4, dtype=labkit.int64)
    for mode in ("bilinear", "area"):
        with pytest.raises(RuntimeError, match=r"\.float\(\)"):
            F.interpolate(x, size=3, mode=mode)


def test_avg_pool_of_integers_is_an_error_that_says_what_to_do():
    """torch truncates the integer mean; labkit asks for a float input instead."""
    with pytest.raises(RuntimeError, match=r"\.float\(\)"):
        F.avg_pool2d(labkit.ones(1, 1, 4, 4, dtype=labkit.int64), 2)
