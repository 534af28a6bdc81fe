"""nn.utils against torch: the hook form of spectral_norm (names, buffers, the power
iteration in train and eval, remove_spectral_norm), BatchNorm folding (fuse_conv_bn_eval,
fuse_linear_bn_eval and their _weights forms), skip_init, Module.to_empty and
convert_conv2d_weight_memory_format."""
import pytest

from snippets import check

pytest.importorskip("torch")


@pytest.mark.parametrize("make,shape", [
    ("L.nn.Linear(4, 3)", "2, 4"), ("L.nn.Conv2d(2, 3, 3)", "2, 2, 5, 5"),
    ("L.nn.ConvTranspose2d(3, 2, 2)", "1, 3, 4, 4"), ("L.nn.Conv1d(2, 4, 3)", "2, 2, 6")])
@pytest.mark.parametrize("iters", [1, 3])
def test_spectral_norm_hook_form(make, shape, iters):
    check(f"L.manual_seed(0); m = L.nn.utils.spectral_norm({make}, n_power_iterations={iters}); "
          f"x = L.randn({shape}); names = ([n for n, _ in m.named_parameters()], "
          "[n for n, _ in m.named_buffers()], list(m.state_dict())); "
          "y1 = m(x); y2 = m(x); u = m.weight_u.clone(); m.eval(); y3 = m(x); "
          "leaves = [m.weight_orig]; "
          "out = (names, y1, y2, y3, u, m.weight_v, m.weight, m.weight.requires_grad)")


def test_remove_spectral_norm_and_errors():
    check("L.manual_seed(0); m = L.nn.utils.spectral_norm(L.nn.Linear(4, 3)); x = L.randn(2, 4); "
          "m(x); L.nn.utils.remove_spectral_norm(m); "
          "out = ([n for n, _ in m.named_parameters()], list(m.state_dict()), m.weight, m(x), "
          "len(m._forward_pre_hooks))")
    check("m = L.nn.utils.spectral_norm(L.nn.Linear(4, 3)); out = L.nn.utils.spectral_norm(m)")
    check("m = L.nn.Linear(4, 3); out = L.nn.utils.remove_spectral_norm(m)")
    check("out = L.nn.utils.spectral_norm(L.nn.Linear(4, 3), n_power_iterations=0)")


def test_spectral_norm_trains():
    check("L.manual_seed(0); m = L.nn.utils.spectral_norm(L.nn.Linear(3, 2)); "
          "opt = L.optim.SGD(m.parameters(), lr=0.1); x = L.randn(4, 3)\n"
          "for _ in range(3):\n"
          "    opt.zero_grad(); m(x).pow(2).sum().backward(); opt.step()\n"
          "out = (m.weight_orig, m.weight_u, m(x))")


CONV_BN = ("L.manual_seed(0); conv = L.nn.{conv}; bn = L.nn.BatchNorm{d}({c}); "
           "bn.train(); bn(conv(L.randn({shape})) * 3 + 1); conv.eval(); bn.eval(); "
           "x = L.randn({shape}); ")


@pytest.mark.parametrize("conv,d,c,shape,transpose", [
    ("Conv2d(2, 3, 3)", "2d", 3, "2, 2, 5, 5", False),
    ("Conv2d(2, 3, 3, bias=False)", "2d", 3, "2, 2, 5, 5", False),
    ("Conv1d(2, 4, 3)", "1d", 4, "2, 2, 7", False),
    ("ConvTranspose2d(2, 3, 2)", "2d", 3, "1, 2, 3, 3", True),
])
def test_fuse_conv_bn_eval(conv, d, c, shape, transpose):
    check(CONV_BN.format(conv=conv, d=d, c=c, shape=shape) +
          f"f = L.nn.utils.fuse_conv_bn_eval(conv, bn, transpose={transpose}); "
          "out = (f(x), bn(conv(x)), f is conv, type(f.weight).__name__, f.weight.requires_grad, "
          "conv.weight)")


def test_fuse_linear_bn_and_errors():
    check("L.manual_seed(0); lin = L.nn.Linear(4, 3); bn = L.nn.BatchNorm1d(3); "
          "bn(lin(L.randn(8, 4)) * 2 - 1); lin.eval(); bn.eval(); x = L.randn(5, 4); "
          "f = L.nn.utils.fuse_linear_bn_eval(lin, bn); out = (f(x), bn(lin(x)))")
    check("lin = L.nn.Linear(4, 3); bn = L.nn.BatchNorm1d(3); "
          "out = L.nn.utils.fuse_linear_bn_eval(lin, bn)")             # still training
    check("lin = L.nn.Linear(4, 3).eval(); bn = L.nn.BatchNorm1d(2).eval(); "
          "out = L.nn.utils.fuse_linear_bn_eval(lin, bn)")             # 3 != 2
    check("conv = L.nn.Conv2d(1, 2, 1).eval(); bn = L.nn.BatchNorm2d(2, "
          "track_running_stats=False).eval(); out = L.nn.utils.fuse_conv_bn_eval(conv, bn)")


def test_fuse_weights_functions():
    check("L.manual_seed(0); w = L.randn(3, 2, 2, 2, requires_grad=True); rm = L.randn(3); "
          "rv = L.rand(3) + 0.5; g = L.randn(3); b = L.randn(3); "
          "out = (L.nn.utils.fuse_conv_bn_weights(w, None, rm, rv, 1e-5, g, b), "
          "L.nn.utils.fuse_conv_bn_weights(w, L.randn(3), rm, rv, 1e-3, None, None), "
          "L.nn.utils.fuse_linear_bn_weights(L.randn(3, 5), None, rm, rv, 1e-5, g, b))")


def test_skip_init_to_empty_and_memory_format():
    check("m = L.nn.utils.skip_init(L.nn.Linear, 3, 4); "
          "out = (m.weight.shape, m.weight.device.type, m.bias.shape, type(m.weight).__name__)")
    check("m = L.nn.Linear(3, 4, device='meta'); w = m.weight; m.to_empty(device='cpu'); "
          "out = (m.weight.shape, m.weight.device.type, m.weight is w)")
    check("m = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.BatchNorm1d(4)); w = m[0].weight; "
          "m.to_empty(device='cpu', recurse=False); a = m[0].weight is w; m.to_empty(device='cpu'); "
          "out = (a, m[0].weight is w, m[1].running_mean.shape, m[1].num_batches_tracked.dtype)")
    check("class M(L.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
          "out = L.nn.utils.skip_init(M)")
    check("L.manual_seed(0); m = L.nn.Sequential(L.nn.Conv2d(3, 4, 3), L.nn.ReLU(), "
          "L.nn.Sequential(L.nn.ConvTranspose2d(4, 2, 2)), L.nn.Linear(2, 2)); "
          "w = m[0].weight; L.nn.utils.convert_conv2d_weight_memory_format(m, L.channels_last); "
          "out = (m[0].weight.stride(), m[2][0].weight.stride(), m[3].weight.stride(), "
          "m[0].weight is w, m[0].weight)")


@pytest.mark.parametrize("dst", ["L.float64", "L.FloatTensor", "'torch.DoubleTensor'",
                                 "L.float16"])
def test_module_type_casts_every_tensor(dst):
    check(f"m = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.BatchNorm1d(2)); w = m[0].weight; "
          f"r = m.type({dst}); out = (r is m, m[0].weight.dtype, m[1].running_mean.dtype, "
          "m[1].num_batches_tracked.dtype, m[0].weight is w)")
