"""nn.TransformerEncoderLayer/Encoder, DecoderLayer/Decoder and nn.Transformer against torch
with torch's weights loaded (float64): values, gradients of inputs and every parameter,
masks and padding, norm_first, activations, state_dict keys; LayerNorm too."""
import numpy as np
import pytest

import labkit
import labkit.nn as nn

torch = pytest.importorskip("torch")

from conftest import check_op, rand_array  # noqa: E402
from test_attention import compare_module, load_from_torch  # noqa: E402


def pair(name, *args, **kwargs):
    """The same layer built by torch (seeded) and labkit, torch's weights loaded into labkit."""
    torch.manual_seed(0)
    ref = getattr(torch.nn, name)(*args, **kwargs)
    return load_from_torch(getattr(nn, name)(*args, **kwargs), ref)


def padding(N, S, cut):
    kpm = np.zeros((N, S), bool)
    for n, c in enumerate(cut):
        kpm[n, c:] = True
    return kpm


def causal(L):
    return np.triu(np.full((L, L), -np.inf), 1)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_layer(norm_first, activation, batch_first, device):
    mine, ref = pair("TransformerEncoderLayer", 8, 2, 16, dropout=0.0, activation=activation,
                     norm_first=norm_first, batch_first=batch_first)
    x = rand_array((3, 5, 8) if batch_first else (5, 3, 8), 1)
    compare_module(mine, ref, [x, causal(5), padding(3, 5, [5, 3, 1])],
                   lambda m, x, a, p: m(x, src_mask=a, src_key_padding_mask=p), device=device)


def test_encoder_layer_module_activation_and_bool_masks():
    """activation given as a module (nn.GELU(approximate='tanh')) or a function; bool masks."""
    torch.manual_seed(0)
    ref = torch.nn.TransformerEncoderLayer(6, 3, 12, dropout=0.0,
                                           activation=torch.nn.GELU(approximate="tanh"))
    mine, ref = load_from_torch(nn.TransformerEncoderLayer(
        6, 3, 12, dropout=0.0, activation=nn.GELU(approximate="tanh")), ref)
    mask = np.triu(np.ones((4, 4), bool), 1)
    compare_module(mine, ref, [rand_array((4, 2, 6), 1), mask, padding(2, 4, [4, 2])],
                   lambda m, x, a, p: m(x, src_mask=a, src_key_padding_mask=p))
    mine, ref = pair("TransformerEncoderLayer", 6, 3, 12, dropout=0.0, activation=torch.tanh)
    mine.activation = labkit.tanh
    compare_module(mine, ref, [rand_array((4, 2, 6), 2)])


def test_encoder_stack_with_norm_and_is_causal():
    torch.manual_seed(0)
    ref = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 4, 16, dropout=0.0),
                                      3, norm=torch.nn.LayerNorm(8), enable_nested_tensor=False)
    mine, ref = load_from_torch(nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 4, 16, dropout=0.0), 3, norm=nn.LayerNorm(8)), ref)
    assert "layers.2.norm2.bias" in mine.state_dict() and "norm.weight" in mine.state_dict()
    compare_module(mine, ref, [rand_array((6, 2, 8), 1), causal(6), padding(2, 6, [6, 4])],
                   lambda m, x, a, p: m(x, mask=a, src_key_padding_mask=p, is_causal=True))


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer(norm_first, device):
    mine, ref = pair("TransformerDecoderLayer", 8, 2, 16, dropout=0.0, norm_first=norm_first)
    compare_module(
        mine, ref, [rand_array((4, 3, 8), 1), rand_array((6, 3, 8), 2), causal(4),
                    padding(3, 4, [4, 3, 2]), padding(3, 6, [6, 5, 1])],
        lambda m, t, mem, a, tp, mp: m(t, mem, tgt_mask=a, tgt_key_padding_mask=tp,
                                       memory_key_padding_mask=mp), device=device)


def test_decoder_stack_memory_mask():
    torch.manual_seed(0)
    ref = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(
        6, 2, 10, dropout=0.0, batch_first=True), 2, norm=torch.nn.LayerNorm(6))
    mine, ref = load_from_torch(nn.TransformerDecoder(nn.TransformerDecoderLayer(
        6, 2, 10, dropout=0.0, batch_first=True), 2, norm=nn.LayerNorm(6)), ref)
    mem_mask = np.random.default_rng(0).standard_normal((3, 5))
    compare_module(mine, ref, [rand_array((2, 3, 6), 1), rand_array((2, 5, 6), 2), causal(3),
                               mem_mask],
                   lambda m, t, mem, a, mm: m(t, mem, tgt_mask=a, memory_mask=mm,
                                              tgt_is_causal=True))


@pytest.mark.parametrize("batch_first,norm_first", [(False, False), (True, True)])
def test_transformer(batch_first, norm_first):
    mine, ref = pair("Transformer", d_model=8, nhead=2, num_encoder_layers=2,
                     num_decoder_layers=2, dim_feedforward=12, dropout=0.0,
                     batch_first=batch_first, norm_first=norm_first, activation="gelu")
    src = rand_array((2, 5, 8) if batch_first else (5, 2, 8), 1)
    tgt = rand_array((2, 4, 8) if batch_first else (4, 2, 8), 2)
    mask = nn.Transformer.generate_square_subsequent_mask(4, dtype=labkit.float64)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    np.testing.assert_array_equal(mask.numpy(), tmask.numpy())
    compare_module(mine, ref, [src, tgt, mask.numpy(), padding(2, 5, [5, 3]),
                               padding(2, 4, [4, 2])],
                   lambda m, s, t, a, sp, tp: m(s, t, tgt_mask=a, src_key_padding_mask=sp,
                                                tgt_key_padding_mask=tp,
                                                memory_key_padding_mask=sp))


def test_transformer_unbatched():
    mine, ref = pair("Transformer", d_model=4, nhead=2, num_encoder_layers=1,
                     num_decoder_layers=1, dim_feedforward=8, dropout=0.0)
    compare_module(mine, ref, [rand_array((5, 4), 1), rand_array((3, 4), 2)])


def test_transformer_defaults_and_init():
    """torch's defaults (d_model 512, 8 heads, 6 + 6 layers), keys and xavier init."""
    m = nn.Transformer()
    t = torch.nn.Transformer()
    assert list(m.state_dict()) == list(t.state_dict())
    assert [tuple(v.shape) for v in m.state_dict().values()] == \
        [tuple(v.shape) for v in t.state_dict().values()]
    w = m.encoder.layers[0].linear1.weight            # xavier: bound sqrt(6 / (512 + 2048))
    assert w.abs().max().item() <= (6 / 2560) ** 0.5 and w.abs().max().item() > 0.04
    assert repr(m.encoder.layers[0]) == repr(t.encoder.layers[0])


def test_square_subsequent_mask():
    m = nn.Transformer.generate_square_subsequent_mask(3)
    t = torch.nn.Transformer.generate_square_subsequent_mask(3)
    assert m.dtype == labkit.float32 and str(t.dtype) == "torch.float32"
    np.testing.assert_array_equal(m.numpy(), t.numpy())
    assert nn.Transformer.generate_square_subsequent_mask(0).shape == (0, 0)


def test_dropout_only_in_training():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = labkit.randn(4, 2, 8)
    layer.eval()
    assert labkit.equal(layer(x), layer(x))
    layer.train()
    labkit.manual_seed(0)
    a = layer(x)
    labkit.manual_seed(1)
    assert not labkit.allclose(a, layer(x))


def test_transformer_trains():
    """A tiny copy task: the loss falls under Adam (gradients reach every parameter)."""
    labkit.manual_seed(0)
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True)
    opt = labkit.optim.Adam(model.parameters(), lr=1e-2)
    src = labkit.randn(4, 5, 8)
    mask = nn.Transformer.generate_square_subsequent_mask(5)
    losses = []
    for _ in range(30):
        loss = ((model(src, src, tgt_mask=mask) - src) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert all(p.grad is not None for p in model.parameters())
    assert losses[-1] < 0.5 * losses[0]


def test_transformer_errors():
    m = nn.Transformer(4, 2, 1, 1, 8)
    with pytest.raises(RuntimeError, match="batch number"):
        m(labkit.randn(3, 2, 4), labkit.randn(3, 5, 4))
    with pytest.raises(RuntimeError, match="feature number"):
        m(labkit.randn(3, 2, 4), labkit.randn(3, 2, 6))
    with pytest.raises(RuntimeError, match="activation should be relu/gelu"):
        nn.TransformerEncoderLayer(4, 2, activation="swish")
    with pytest.raises(RuntimeError, match="activation should be relu/gelu"):
        torch.nn.TransformerEncoderLayer(4, 2, activation="swish")


@pytest.mark.parametrize("shape,normalized", [((3, 4), 4), ((2, 3, 4), (3, 4)), ((5,), 5),
                                              ((2, 0, 3), 3), ((2, 1), 1)])
def test_layer_norm(shape, normalized):
    n = normalized if isinstance(normalized, tuple) else (normalized,)
    arrays = [rand_array(shape, 1), rand_array(n, 2), rand_array(n, 3)]
    check_op(lambda x, w, b: nn.functional.layer_norm(x, n, w, b),
             lambda x, w, b: torch.nn.functional.layer_norm(x, n, w, b), arrays)
    assert list(nn.LayerNorm(normalized).state_dict()) == \
        list(torch.nn.LayerNorm(normalized).state_dict())   # the module takes an int too


def test_functional_layer_norm_refuses_an_int_shape_as_torch_does():
    x = np.ones((3, 4), np.float32)
    for lib in (labkit, torch):
        with pytest.raises(TypeError, match="'normalized_shape' .* must be tuple of ints, not int"):
            lib.nn.functional.layer_norm(lib.tensor(x), 4)


@pytest.mark.parametrize("pad_rows", [[5, 3], [5, 5], [0, 4]])
@pytest.mark.parametrize("grad", [False, True])
def test_encoder_inference_zeroes_padding_as_torch(pad_rows, grad):
    """torch's nested-tensor path: in eval mode without gradients, padded positions come out
    as zeros (then through the final norm); with gradients they are computed. Either way the
    other positions agree."""
    import warnings
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(
            8, 2, 16, batch_first=True), 2, norm=torch.nn.LayerNorm(8))
    mine, ref = load_from_torch(nn.TransformerEncoder(nn.TransformerEncoderLayer(
        8, 2, 16, batch_first=True), 2, norm=nn.LayerNorm(8)), ref)
    mine.eval(), ref.eval()
    x, pad = rand_array((2, 5, 8), 1), padding(2, 5, pad_rows)
    with torch.set_grad_enabled(grad), labkit.set_grad_enabled(grad):
        r = ref(torch.tensor(x), src_key_padding_mask=torch.tensor(pad))
        m = mine(labkit.tensor(x), src_key_padding_mask=labkit.tensor(pad))
    r = r.detach().numpy()
    m = m.detach().numpy()
    assert np.isnan(r).sum() == np.isnan(m).sum()
    np.testing.assert_allclose(np.nan_to_num(m), np.nan_to_num(r), rtol=1e-7, atol=1e-10)


def test_encoder_nested_tensor_warning_as_torch():
    import warnings

    def caught(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(4, 2), 1)
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(4, 2, batch_first=True), 1)
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(4, 1, batch_first=True), 1)
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(4, 2), 1,
                                      enable_nested_tensor=False)
        return [str(x.message) for x in w]
    assert caught(labkit) == caught(torch) and len(caught(torch)) == 2
