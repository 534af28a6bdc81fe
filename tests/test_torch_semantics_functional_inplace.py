"""F.relu_/elu_/selu_/celu_/hardtanh_/rrelu_ (in place, gradients through them, the leaf
error), upsample_nearest/upsample_bilinear (deprecated aliases, their align_corners) and
channel_shuffle / nn.ChannelShuffle against torch."""
import pytest

from snippets import check

pytest.importorskip("torch")


@pytest.mark.parametrize("call", ["relu_(h)", "elu_(h)", "elu_(h, 0.5)", "selu_(h)",
                                  "celu_(h, 2.)", "hardtanh_(h)", "hardtanh_(h, -0.5, 0.7)",
                                  "rrelu_(h)", "rrelu_(h, 0.1, 0.2)"])
def test_in_place_activations(call):
    check("L.manual_seed(0); x = L.randn(2, 3, dtype=L.float64).requires_grad_(); "
          f"leaves = [x]; h = x * 2; v = h[0]; r = L.nn.functional.{call}; "
          "out = (h, v, r is h)")
    check(f"h = L.randn(3, requires_grad=True); out = L.nn.functional.{call}")


@pytest.mark.parametrize("code", [
    "L.nn.functional.upsample_nearest(x, scale_factor=2)",
    "L.nn.functional.upsample_nearest(x, size=3)",
    "L.nn.functional.upsample_bilinear(x, scale_factor=2)",
    "L.nn.functional.upsample_bilinear(x, size=(3, 5))",
])
def test_upsample_aliases(code):
    check(f"x = L.arange(6., dtype=L.float64).reshape(1, 1, 2, 3).requires_grad_(); "
          f"leaves = [x]; out = {code}")


@pytest.mark.parametrize("shape,groups", [("1, 4, 2, 2", 2), ("2, 6, 3", 3), ("1, 6, 1, 2, 2", 6),
                                          ("2, 4, 5", 1), ("1, 4, 2, 2", 3), ("4", 2)])
def test_channel_shuffle(shape, groups):
    check(f"L.manual_seed(0); x = L.randn({shape}, dtype=L.float64).requires_grad_(); "
          f"leaves = [x]; m = L.nn.ChannelShuffle({groups}); "
          f"out = (L.nn.functional.channel_shuffle(x, {groups}), m(x), repr(m))")
