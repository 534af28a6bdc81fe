"""Memory formats and layouts as torch has them: channels_last reorders memory (strides,
is_contiguous) but never values or gradients; clone keeps a tensor's order, contiguous and to
change it; nn.Module.to(memory_format=) reorders 4-d and 5-d parameters only; layout is
strided and the sparse/quantized questions answer False."""
import pytest

from snippets import check

pytest.importorskip("torch")

SETUP = "L.manual_seed(0); x = L.randn({shape}).requires_grad_(); leaves = [x]; "

FORMAT_CASES = [
    ("2, 3, 4, 5", "y = x.contiguous(memory_format=L.channels_last)"),
    ("2, 3, 4, 5", "y = x.to(memory_format=L.channels_last)"),
    ("2, 3, 4, 5", "y = x.to(L.float64, memory_format=L.channels_last)"),
    ("2, 3, 4, 5", "y = x.clone(memory_format=L.channels_last)"),
    ("2, 3, 4, 5", "y = x.contiguous(memory_format=L.channels_last).clone()"),
    ("2, 3, 4, 5", "y = x.contiguous(memory_format=L.channels_last) * 2 + 1"),
    ("2, 3, 4, 5", "y = x.contiguous(memory_format=L.channels_last).contiguous()"),
    ("2, 3, 4, 5", "y = x.contiguous(memory_format=L.channels_last)"
                   ".contiguous(memory_format=L.channels_last)"),
    ("2, 3, 4, 5", "y = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)"),
    ("2, 3, 4, 5", "y = x.contiguous(memory_format=L.preserve_format)"),
    ("2, 3, 4, 5", "y = x.clone(memory_format=L.contiguous_format)"),
    ("2, 1, 4, 1", "y = x.contiguous(memory_format=L.channels_last)"),
    ("1, 3, 1, 1", "y = x.contiguous(memory_format=L.channels_last)"),
    ("2, 3, 4, 5, 6", "y = x.contiguous(memory_format=L.channels_last_3d)"),
    ("2, 3, 4, 5", "y = x.transpose(2, 3).clone()"),
    ("3", "y = x.to(memory_format=L.contiguous_format)"),
]


@pytest.mark.parametrize("shape,code", FORMAT_CASES)
def test_memory_formats_change_strides_not_values(shape, code):
    check(SETUP.format(shape=shape) + code + "; out = (y, y.stride(), y.is_contiguous(), "
          "y.is_contiguous(memory_format=L.channels_last) if y.dim() == 4 else None, "
          "y.is_contiguous(memory_format=L.channels_last_3d) if y.dim() == 5 else None)")


@pytest.mark.parametrize("code", [
    "x.contiguous(memory_format=L.channels_last)",           # rank 3
    "x.to(memory_format=L.channels_last)",
    "x.clone(memory_format=L.channels_last_3d)",
    "x.is_contiguous(memory_format=3)",                      # not a memory format
    "x.contiguous(memory_format=L.channels_last).view(-1)",  # not row-major: view refuses
])
def test_memory_format_mistakes_raise_as_torch(code):
    check("x = L.randn(2, 3, 4) if 'view' not in " + repr(code) + " else L.randn(2, 3, 4, 5); "
          f"out = {code}")


def test_module_to_channels_last_reorders_conv_weights_only():
    check("L.manual_seed(0); m = L.nn.Sequential(L.nn.Conv2d(3, 4, 3), L.nn.BatchNorm2d(4)); "
          "w = m[0].weight; m = m.to(memory_format=L.channels_last); "
          "x = L.randn(2, 3, 6, 6).to(memory_format=L.channels_last); y = m(x); "
          "out = (w is m[0].weight, m[0].weight.stride(), m[0].bias.stride(), "
          "m[1].weight.stride(), y)")


def test_layout_and_dense_questions():
    check("x = L.randn(2, 3); out = (str(x.layout).split('.')[-1], x.is_sparse, x.is_sparse_csr, "
          "x.is_quantized, x.is_nested, x.is_meta, x.is_mkldnn, x.to_dense() is x, "
          "x.to_dense(L.float64), str(L.sparse_coo).split('.')[-1], "
          "x.layout == L.strided, L.empty(2, device='meta').is_meta)")
