"""Conv1d/Conv2d (groups, 'same'/'valid', padding modes, dilation) and ConvTranspose2d against
torch in float64: torch's weights loaded into labkit's layers, values, gradients of input and
weights, second derivatives of the functional forms, and torch's errors."""
import numpy as np
import pytest

import labkit
import labkit.nn.functional as F
from labkit import nn
from nn_oracle import check_fn, close, data, run_pair, twin_layers

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CONV2D = [  # in, out, kwargs, input shape
    (4, 6, dict(kernel_size=3, groups=2), (2, 4, 7, 6)),
    (4, 4, dict(kernel_size=3, groups=4, padding=1), (2, 4, 5, 5)),       # depthwise
    (6, 9, dict(kernel_size=(3, 2), groups=3, stride=2, dilation=(1, 2)), (2, 6, 9, 8)),
    (3, 5, dict(kernel_size=3, padding="same"), (2, 3, 6, 7)),
    (3, 5, dict(kernel_size=4, padding="same"), (2, 3, 6, 7)),            # odd total padding
    (3, 5, dict(kernel_size=(4, 3), padding="same", dilation=(1, 3)), (2, 3, 9, 8)),
    (3, 5, dict(kernel_size=3, padding="valid"), (2, 3, 6, 7)),
    (3, 5, dict(kernel_size=3, padding=1, padding_mode="reflect"), (2, 3, 6, 7)),
    (3, 5, dict(kernel_size=3, padding=(2, 1), padding_mode="replicate"), (2, 3, 6, 7)),
    (3, 5, dict(kernel_size=3, padding=1, padding_mode="circular"), (2, 3, 6, 7)),
    (4, 2, dict(kernel_size=4, padding="same", padding_mode="reflect", groups=2), (1, 4, 6, 7)),
    (3, 5, dict(kernel_size=1, bias=False), (0, 3, 4, 4)),                # batch 0
    (2, 3, dict(kernel_size=3, padding=1), (2, 5, 5)),                    # no batch dim
]


@pytest.mark.parametrize("cin,cout,kw,shape", CONV2D)
def test_conv2d_module(device, cin, cout, kw, shape):
    mine, ref = twin_layers(nn.Conv2d(cin, cout, **kw), torch.nn.Conv2d(cin, cout, **kw), device)
    run_pair(mine, ref, data(shape), device)
    assert repr(mine) == repr(ref)


@pytest.mark.parametrize("kw,shape", [
    (dict(groups=2, stride=2, padding=1), (2, 4, 7, 6)),
    (dict(padding="same", dilation=2), (2, 4, 7, 6)),
])
def test_conv2d_second_order(device, kw, shape):
    w = data((6, shape[1] // kw.get("groups", 1), 3, 3), seed=2)
    check_fn(lambda x, w, b: F.conv2d(x, w, b, **kw), lambda x, w, b: TF.conv2d(x, w, b, **kw),
             [data(shape), w, data((6,), seed=3)], device)


@pytest.mark.parametrize("kw,shape", [
    (dict(kernel_size=3, padding=1, groups=2), (2, 4, 9)),
    (dict(kernel_size=4, padding="same", dilation=2), (2, 4, 9)),
    (dict(kernel_size=3, padding=2, padding_mode="circular", stride=2), (2, 4, 9)),
])
def test_conv1d_module(device, kw, shape):
    mine, ref = twin_layers(nn.Conv1d(4, 6, **kw), torch.nn.Conv1d(4, 6, **kw), device)
    run_pair(mine, ref, data(shape), device)


TRANSPOSE = [  # in, out, kwargs, input shape
    (3, 5, dict(kernel_size=3), (2, 3, 4, 5)),
    (3, 5, dict(kernel_size=4, stride=2, padding=1), (2, 3, 4, 5)),      # DCGAN's 2x upsampling
    (4, 6, dict(kernel_size=3, stride=2, padding=1, output_padding=1, groups=2), (2, 4, 4, 3)),
    (4, 2, dict(kernel_size=(3, 2), stride=(1, 3), dilation=(2, 1), bias=False), (1, 4, 3, 3)),
    (3, 5, dict(kernel_size=2, stride=2), (3, 4, 4)),                    # no batch dim
    (3, 5, dict(kernel_size=2, stride=2), (0, 3, 4, 4)),                 # batch 0
]


@pytest.mark.parametrize("cin,cout,kw,shape", TRANSPOSE)
def test_conv_transpose2d_module(device, cin, cout, kw, shape):
    mine, ref = twin_layers(nn.ConvTranspose2d(cin, cout, **kw),
                            torch.nn.ConvTranspose2d(cin, cout, **kw), device)
    run_pair(mine, ref, data(shape), device)
    assert repr(mine) == repr(ref)


def test_conv_transpose2d_output_size(device):
    kw = dict(kernel_size=3, stride=2, padding=1)
    mine, ref = twin_layers(nn.ConvTranspose2d(2, 3, **kw), torch.nn.ConvTranspose2d(2, 3, **kw),
                            device)
    x = data((1, 2, 4, 4))
    close(mine(labkit.tensor(x, device=device), output_size=(8, 7)),
          ref(torch.tensor(x), output_size=(8, 7)), "output_size")
    with pytest.raises(ValueError):
        ref(torch.tensor(x), output_size=(10, 7))
    with pytest.raises(ValueError, match="valid sizes"):
        mine(labkit.tensor(x, device=device), output_size=(10, 7))


def test_conv_transpose2d_second_order(device):
    kw = dict(stride=2, padding=1, output_padding=1, groups=2)
    check_fn(lambda x, w, b: F.conv_transpose2d(x, w, b, **kw),
             lambda x, w, b: TF.conv_transpose2d(x, w, b, **kw),
             [data((2, 4, 3, 3)), data((4, 3, 3, 3), seed=2), data((6,), seed=3)], device)


def test_init_matches_torch_distribution():
    """Same shapes, and weights in torch's kaiming bound (fan_in from the weight's dim 1)."""
    for lk, t in [(nn.Conv2d(6, 4, 3, groups=2), torch.nn.Conv2d(6, 4, 3, groups=2)),
                  (nn.ConvTranspose2d(6, 4, 3, groups=2),
                   torch.nn.ConvTranspose2d(6, 4, 3, groups=2))]:
        for (name, p), (tname, tp) in zip(lk.named_parameters(), t.named_parameters()):
            assert name == tname and tuple(p.shape) == tuple(tp.shape)
            bound = 1 / np.sqrt(np.prod(t.weight.shape[1:]))     # fan_in, for weight and bias
            assert float(p.abs().max()) <= bound + 1e-12


@pytest.mark.parametrize("make", [
    lambda m: m.Conv2d(4, 6, 3, groups=3),
    lambda m: m.Conv2d(4, 6, 3, groups=0),
    lambda m: m.Conv2d(4, 6, 3, padding="same", stride=2),
    lambda m: m.Conv2d(4, 6, 3, padding="full"),
    lambda m: m.Conv2d(4, 6, 3, padding_mode="mirror"),
    lambda m: m.ConvTranspose2d(4, 6, 3, padding_mode="reflect"),
])
def test_constructor_errors_match_torch(make):
    with pytest.raises(Exception) as ref:
        make(torch.nn)
    with pytest.raises(type(ref.value)):
        make(nn)


@pytest.mark.parametrize("call", [
    lambda F, t: F.conv2d(t(1, 4, 5, 5), t(6, 3, 3, 3), groups=2),       # channels don't fit
    lambda F, t: F.conv2d(t(1, 4, 5, 5), t(6, 2, 3, 3), padding="same", stride=2),
    lambda F, t: F.conv2d(t(1, 4, 5, 5), t(6, 2, 3, 3), padding="bad", groups=2),
    lambda F, t: F.conv_transpose2d(t(1, 4, 5, 5), t(3, 2, 3, 3)),
    lambda F, t: F.conv_transpose2d(t(1, 4, 5, 5), t(4, 2, 3, 3), stride=2, output_padding=2),
])
def test_functional_errors_match_torch(call):
    with pytest.raises(Exception) as ref:
        call(TF, lambda *s: torch.ones(*s, dtype=torch.float64))
    with pytest.raises(type(ref.value)):
        call(F, lambda *s: labkit.ones(*s, dtype=labkit.float64))
