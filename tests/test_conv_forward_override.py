"""Conv1d/2d/3d run through _conv_forward(input, weight, bias), the hook subclasses override to
change the weights and keep forward: Whisper's Conv1d casts them to the input's dtype, BiT's
weight-standardised Conv2d normalises them. Same values and gradients as torch."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def _classes(M):
    nn, F = M.nn, M.nn.functional

    class CastConv1d(nn.Conv1d):                      # whisper/model.py
        def _conv_forward(self, x, weight, bias):
            return super()._conv_forward(x, weight.to(x.dtype), None if bias is None else bias.to(x.dtype))

    class StdConv2d(nn.Conv2d):                       # weight standardisation (BiT)
        def _conv_forward(self, x, weight, bias):
            w = (weight - weight.mean(dim=(1, 2, 3), keepdim=True)) / (weight.std(dim=(1, 2, 3), keepdim=True) + 1e-5)
            return F.conv2d(x, w, bias, self.stride, self.padding, self.dilation, self.groups)

    class ScaledConv3d(nn.Conv3d):
        def _conv_forward(self, x, weight, bias):
            return super()._conv_forward(x, 2 * weight, bias)

    return CastConv1d, StdConv2d, ScaledConv3d


@pytest.mark.parametrize("which,shape,kwargs", [
    (0, (2, 3, 9), dict(kernel_size=3, stride=2, padding=1)),
    (0, (2, 3, 9), dict(kernel_size=3, padding=1, padding_mode="reflect")),
    (1, (2, 3, 6, 6), dict(kernel_size=3, padding=1, bias=False)),
    (1, (1, 3, 5, 5), dict(kernel_size=2, padding="same", padding_mode="circular")),
    (2, (1, 3, 4, 4, 4), dict(kernel_size=2)),
])
def test_conv_forward_override_matches_torch(which, shape, kwargs):
    x = np.random.default_rng(which).standard_normal(shape).astype(np.float32)
    outs = []
    for M in (labkit, torch):
        M.manual_seed(0)
        conv = _classes(M)[which](3, 4, **kwargs)
        inp = M.tensor(x, requires_grad=True)
        out = conv(inp)
        out.backward(M.ones_like(out))
        outs.append((out.detach().numpy(), inp.grad.numpy(), conv.weight.grad.numpy()))
    for mine, ref in zip(*outs):
        np.testing.assert_allclose(mine, ref, rtol=1e-4, atol=1e-4)


def test_whisper_cast_runs_a_float64_input_through_float32_weights():
    for M in (labkit, torch):
        conv = _classes(M)[0](3, 4, kernel_size=3, padding=1)
        out = conv(M.randn(1, 3, 5, dtype=M.float64))
        assert out.dtype == M.float64 and conv.weight.dtype == M.float32
