"""nn layers added as modules around existing functions, against torch with the same seed:
ConvTranspose1d (init, output_size), LPPool1d/2d/3d, RReLU (eval), AlphaDropout and
FeatureAlphaDropout (eval, p=0), InstanceNorm3d, the 3-d and circular padding layers:
values, gradients, parameter shapes and reprs."""
import pytest

from snippets import check

pytest.importorskip("torch")

CASES = [
    ("L.nn.ConvTranspose1d(2, 3, 3, stride=2)", "1, 2, 5", ""),
    ("L.nn.ConvTranspose1d(4, 2, 2, stride=2, groups=2, bias=False)", "2, 4, 3", ""),
    ("L.nn.ConvTranspose1d(2, 3, 3, stride=2)", "1, 2, 5", ", output_size=[12]"),
    ("L.nn.ConvTranspose1d(2, 3, 3, stride=2, padding=1, output_padding=1, dilation=2)",
     "2, 2, 4", ""),
    ("L.nn.LPPool1d(2, 3, stride=2)", "1, 2, 7", ""), ("L.nn.LPPool2d(1.5, 2)", "1, 2, 4, 5", ""),
    ("L.nn.LPPool2d(3, (2, 3), ceil_mode=True)", "1, 1, 5, 7", ""),
    ("L.nn.LPPool3d(2, 2)", "1, 1, 4, 4, 4", ""),
    ("L.nn.RReLU().eval()", "2, 5", ""), ("L.nn.RReLU(0.1, 0.3).eval()", "3", ""),
    ("L.nn.AlphaDropout(0.3).eval()", "2, 5", ""), ("L.nn.AlphaDropout(0.0)", "2, 5", ""),
    ("L.nn.FeatureAlphaDropout(0.3).eval()", "2, 3, 4", ""),
    ("L.nn.InstanceNorm3d(2)", "2, 2, 3, 3, 3", ""),
    ("L.nn.InstanceNorm3d(2, affine=True)", "2, 3, 3, 3", ""),
    ("L.nn.ConstantPad3d(1, 2.5)", "1, 1, 2, 2, 2", ""),
    ("L.nn.ConstantPad3d((1, 0, 2, 1, 0, 1), -1.)", "2, 2, 2, 3", ""),
    ("L.nn.ZeroPad3d((0, 1, 1, 0, 2, 0))", "1, 1, 2, 2, 2", ""),
    ("L.nn.ReflectionPad3d(1)", "1, 1, 3, 3, 3", ""),
    ("L.nn.ReplicationPad3d((1, 2, 0, 1, 1, 0))", "1, 2, 2, 3, 2", ""),
    ("L.nn.CircularPad1d((2, 1))", "1, 2, 4", ""), ("L.nn.CircularPad3d(1)", "1, 1, 2, 3, 2", ""),
]


@pytest.mark.parametrize("make,shape,extra", CASES)
def test_module(make, shape, extra):
    check(f"L.manual_seed(0); m = {make}.double(); L.manual_seed(1); "
          f"x = L.randn({shape}, dtype=L.float64).requires_grad_(); "
          f"leaves = [x] + list(m.parameters()); "
          f"out = (m(x{extra}), repr(m), [tuple(p.shape) for p in m.parameters()])")


@pytest.mark.parametrize("make,shape", [("L.nn.LazyConv3d(4, 2)", "2, 3, 4, 4, 4"),
                                        ("L.nn.LazyConvTranspose1d(3, 3, stride=2)", "2, 5, 6"),
                                        ("L.nn.LazyConvTranspose1d(3, 2, bias=False)", "5, 6")])
def test_lazy_layers_take_in_channels_from_the_first_input(make, shape):
    check(f"L.manual_seed(0); m = {make}; x = L.randn({shape}); y = m(x); "
          "out = (type(m).__name__, y.shape, m.in_channels, [tuple(p.shape) for p in "
          "m.parameters()], repr(m))")
