"""scaled_dot_product_attention and nn.MultiheadAttention against torch (float64): values,
gradients of inputs and parameters, masks and padding, state_dict keys, errors."""
import numpy as np
import pytest

import labkit
import labkit.nn as nn
import labkit.nn.functional as F

torch = pytest.importorskip("torch")

from conftest import assert_close, check_op, rand_array  # noqa: E402


def load_from_torch(mine, ref):
    """Copy a torch module's state_dict (as float64) into a labkit module; keys must match."""
    sd = {k: labkit.tensor(v.detach().double().numpy()) for k, v in ref.state_dict().items()}
    assert list(sd) == list(mine.state_dict()), "state_dict keys differ from torch's"
    mine.double().load_state_dict(sd)
    ref.double()
    return mine, ref


def compare_module(mine, ref, inputs, call=lambda m, *xs: m(*xs), seed=3, device="cpu",
                   atol=1e-10, grads=True):
    """Run both modules on the same float64 inputs (numpy arrays; others passed as they are),
    compare outputs, then the gradients of float inputs and of every parameter for a random
    upstream gradient on each output."""
    mine.to(device)
    lk_in, t_in = [], []
    for a in inputs:
        if isinstance(a, np.ndarray) and a.dtype == np.float64:
            lk_in.append(labkit.tensor(a, device=device, requires_grad=True))
            t_in.append(torch.tensor(a, requires_grad=True))
        elif isinstance(a, np.ndarray):
            lk_in.append(labkit.tensor(a, device=device))
            t_in.append(torch.tensor(a))
        else:
            lk_in.append(a)
            t_in.append(a)
    out_m, out_t = call(mine, *lk_in), call(ref, *t_in)
    out_m = out_m if isinstance(out_m, tuple) else (out_m,)
    out_t = out_t if isinstance(out_t, tuple) else (out_t,)
    rng = np.random.default_rng(seed)
    lk_o, t_o, lk_g, t_g = [], [], [], []
    for i, (m, r) in enumerate(zip(out_m, out_t)):
        if r is None:
            assert m is None, f"output {i}: torch gives None"
            continue
        assert_close(m, r, rtol=1e-7, atol=atol, what=f"output {i}")
        g = rng.standard_normal(tuple(r.shape))
        r_ok = ~torch.isnan(r)      # a nan output (fully masked row) gets no upstream gradient
        g = np.where(r_ok.numpy(), g, 0.0)
        lk_o.append(m)
        t_o.append(r)
        lk_g.append(labkit.tensor(g, device=device))
        t_g.append(torch.tensor(g))
    if not grads:
        return out_m, out_t
    lk_leaves = [x for x in lk_in if isinstance(x, labkit.Tensor) and x.requires_grad]
    t_leaves = [x for x in t_in if isinstance(x, torch.Tensor) and x.requires_grad]
    names = [n for n, _ in ref.named_parameters()]
    assert names == [n for n, _ in mine.named_parameters()]
    lk_leaves += list(mine.parameters())
    t_leaves += list(ref.parameters())
    gm = labkit.autograd.grad(lk_o, lk_leaves, lk_g, allow_unused=True)
    gt = torch.autograd.grad(t_o, t_leaves, t_g, allow_unused=True)
    for i, (a, b, x) in enumerate(zip(gm, gt, t_leaves)):
        b = torch.zeros_like(x) if b is None else b
        a = np.zeros(tuple(x.shape)) if a is None else a
        what = f"gradient of input {i}" if i < len(t_leaves) - len(names) \
            else f"gradient of {names[i - len(t_leaves) + len(names)]}"
        assert_close(a, b, rtol=1e-7, atol=atol, what=what)
    return out_m, out_t


# --- scaled_dot_product_attention --------------------------------------------------------

SDPA_SHAPES = [((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)),   # batch, heads, L != S, Ev != E
               ((4, 8), (4, 8), (4, 8)),                       # no batch dims
               ((1, 1, 1, 3), (1, 1, 1, 3), (1, 1, 1, 3)),     # size-1 everything
               ((2, 5, 4), (1, 6, 4), (1, 6, 2))]              # broadcast batch dim


@pytest.mark.parametrize("shapes", SDPA_SHAPES)
@pytest.mark.parametrize("is_causal", [False, True])
def test_sdpa_matches_torch(shapes, is_causal, device):
    arrays = [rand_array(s, seed=i) for i, s in enumerate(shapes)]
    check_op(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=is_causal),
             lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(
                 q, k, v, is_causal=is_causal), arrays, device=device)


@pytest.mark.parametrize("scale", [None, 0.3, 1.0])
def test_sdpa_scale(scale):
    arrays = [rand_array((2, 3, 4), seed=i) for i in range(3)]
    check_op(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, scale=scale),
             lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(
                 q, k, v, scale=scale), arrays)


@pytest.mark.parametrize("kind", ["bool", "float", "bool_row_dead", "float_row_dead",
                                  "broadcast"])
def test_sdpa_masks(kind, device):
    """Bool masks (True = attend) and float masks (added); a row with every key masked gives
    zeros and finite gradients, as torch's SDPA does."""
    rng = np.random.default_rng(0)
    L, S = 4, 5
    if kind.startswith("bool") or kind == "broadcast":
        mask = rng.random((L, S)) > 0.4
        mask[:, 0] = True
        if kind == "bool_row_dead":
            mask[2] = False
        if kind == "broadcast":
            mask = mask[None, None, :, :].repeat(2, axis=0)[:, :, :, :]
    else:
        mask = rng.standard_normal((L, S))
        if kind == "float_row_dead":
            mask[1] = -np.inf
    arrays = [rand_array((2, 3, L, 6), 1), rand_array((2, 3, S, 6), 2),
              rand_array((2, 3, S, 6), 3), mask]
    check_op(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
             lambda q, k, v, m: torch.nn.functional.scaled_dot_product_attention(
                 q, k, v, attn_mask=m), arrays, device=device,
             requires_grad=[True, True, True, mask.dtype == np.float64])   # float: its grad too


def test_sdpa_gqa():
    arrays = [rand_array((2, 4, 3, 5), 1), rand_array((2, 2, 3, 5), 2),
              rand_array((2, 2, 3, 5), 3)]
    check_op(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
             lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(
                 q, k, v, enable_gqa=True), arrays)


def test_sdpa_second_derivative():
    q = labkit.tensor(rand_array((3, 4), 1), requires_grad=True)
    qt = torch.tensor(rand_array((3, 4), 1), requires_grad=True)
    k, v = rand_array((5, 4), 2), rand_array((5, 2), 3)
    (g,) = labkit.autograd.grad(F.scaled_dot_product_attention(
        q, labkit.tensor(k), labkit.tensor(v)).pow(2).sum(), q, create_graph=True)
    (gt,) = torch.autograd.grad(torch.nn.functional.scaled_dot_product_attention(
        qt, torch.tensor(k), torch.tensor(v)).pow(2).sum(), qt, create_graph=True)
    assert_close(labkit.autograd.grad(g.sum(), q)[0], torch.autograd.grad(gt.sum(), qt)[0])


def test_sdpa_dropout():
    """Dropout zeroes whole attention weights and rescales the rest: with p=1 nothing is
    attended; with p=0.5 the output is the dropped weights times v."""
    q = labkit.randn(2, 6, 4, dtype=labkit.float64)
    out = F.scaled_dot_product_attention(q, q, q, dropout_p=1.0)
    assert out.abs().max().item() == 0.0
    labkit.manual_seed(0)
    out = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    full = F.scaled_dot_product_attention(q, q, q)
    assert not labkit.allclose(out, full)
    assert out.shape == full.shape


def test_sdpa_errors():
    q = labkit.randn(2, 3, 4)
    with pytest.raises(RuntimeError, match="either attn_mask or is_causal"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=labkit.ones(3, 3).bool(),
                                       is_causal=True)
    with pytest.raises(RuntimeError, match="same last dim"):
        F.scaled_dot_product_attention(q, labkit.randn(2, 3, 5), q)
    with pytest.raises(RuntimeError):
        torch.nn.functional.scaled_dot_product_attention(torch.randn(2, 3, 4),
                                                         torch.randn(2, 3, 5),
                                                         torch.randn(2, 3, 4))


# --- nn.MultiheadAttention ---------------------------------------------------------------

def make_mha(*args, **kwargs):
    torch.manual_seed(0)
    ref = torch.nn.MultiheadAttention(*args, **kwargs)
    return load_from_torch(nn.MultiheadAttention(*args, **kwargs), ref)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_mha_self_attention(batch_first, need_weights, average, device):
    mine, ref = make_mha(8, 2, batch_first=batch_first)
    x = rand_array((3, 5, 8) if batch_first else (5, 3, 8), 1)
    compare_module(mine, ref, [x], lambda m, x: m(x, x, x, need_weights=need_weights,
                                                  average_attn_weights=average), device=device)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_cross_attention_kdim_vdim(need_weights):
    mine, ref = make_mha(6, 3, kdim=4, vdim=5)
    assert "q_proj_weight" in mine.state_dict() and "in_proj_weight" not in mine.state_dict()
    compare_module(mine, ref, [rand_array((4, 2, 6), 1), rand_array((7, 2, 4), 2),
                               rand_array((7, 2, 5), 3)],
                   lambda m, q, k, v: m(q, k, v, need_weights=need_weights))


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("mask_kind", ["bool", "float", "3d", "padding", "both", "dead_row"])
def test_mha_masks(need_weights, mask_kind):
    """attn_mask (bool True = blocked, float added, 2-D or per-head 3-D) and key_padding_mask
    (bool or float); a sequence that is all padding gives nan with need_weights (torch's
    softmax) and zeros without (torch hands that case to SDPA)."""
    N, L, H = 3, 4, 2
    mine, ref = make_mha(8, H)
    rng = np.random.default_rng(1)
    attn = kpm = None
    if mask_kind in ("bool", "both"):
        attn = rng.random((L, L)) > 0.6
        np.fill_diagonal(attn, False)
    if mask_kind == "float":
        attn = rng.standard_normal((L, L))
    if mask_kind == "3d":
        attn = rng.standard_normal((N * H, L, L))
    if mask_kind in ("padding", "both"):
        kpm = np.zeros((N, L), bool)
        kpm[1, 3:] = kpm[2, 1:] = True
    if mask_kind == "dead_row":
        kpm = np.zeros((N, L), bool)
        kpm[1] = True
    compare_module(mine, ref, [rand_array((L, N, 8), 1), attn, kpm],
                   lambda m, x, a, p: m(x, x, x, attn_mask=a, key_padding_mask=p,
                                        need_weights=need_weights),
                   # nan * 0 inside torch's BLAS: its gradient there is not a reference
                   grads=not (need_weights and mask_kind == "dead_row"))


def test_mha_float_padding_mask():
    mine, ref = make_mha(4, 1)
    kpm = np.zeros((2, 3))
    kpm[0, 2] = -1e9
    compare_module(mine, ref, [rand_array((3, 2, 4), 1), kpm],
                   lambda m, x, p: m(x, x, x, key_padding_mask=p))


def test_mha_unbatched():
    mine, ref = make_mha(4, 2)
    kpm = np.array([False, False, True])
    compare_module(mine, ref, [rand_array((2, 4), 1), rand_array((3, 4), 2), kpm],
                   lambda m, q, k, p: m(q, k, k, key_padding_mask=p))


@pytest.mark.parametrize("opts", [dict(add_bias_kv=True), dict(add_zero_attn=True),
                                  dict(add_bias_kv=True, add_zero_attn=True), dict(bias=False)])
def test_mha_options(opts):
    mine, ref = make_mha(6, 2, **opts)
    kpm = np.zeros((2, 4), bool)
    kpm[0, 3] = True
    compare_module(mine, ref, [rand_array((4, 2, 6), 1), kpm],
                   lambda m, x, p: m(x, x, x, key_padding_mask=p))


def test_mha_is_causal_hint():
    mine, ref = make_mha(4, 2)
    mask = np.triu(np.full((3, 3), -np.inf), 1)
    compare_module(mine, ref, [rand_array((3, 2, 4), 1), mask],
                   lambda m, x, a: m(x, x, x, attn_mask=a, is_causal=True, need_weights=False))
    with pytest.raises(RuntimeError, match="Need attn_mask"):
        mine(labkit.zeros(3, 2, 4, dtype=labkit.float64), labkit.zeros(3, 2, 4,
             dtype=labkit.float64), labkit.zeros(3, 2, 4, dtype=labkit.float64), is_causal=True)


def test_mha_state_dict_and_init():
    """Keys, shapes and initial statistics as torch's; torch's weights load unchanged."""
    m, t = nn.MultiheadAttention(16, 4), torch.nn.MultiheadAttention(16, 4)
    assert list(m.state_dict()) == list(t.state_dict())
    for (k, a), b in zip(m.state_dict().items(), t.state_dict().values()):
        assert tuple(a.shape) == tuple(b.shape), k
    bound = (6 / (16 + 48)) ** 0.5
    assert m.in_proj_weight.abs().max().item() <= bound
    assert m.in_proj_weight.std().item() > 0.5 * bound / 3 ** 0.5
    assert m.in_proj_bias.abs().max().item() == 0 and m.out_proj.bias.abs().max().item() == 0
    assert repr(m) == repr(t)


def test_mha_dropout_train_vs_eval():
    mine, _ = make_mha(8, 2, dropout=0.5)
    x = labkit.randn(5, 2, 8, dtype=labkit.float64)
    mine.eval()
    a, wa = mine(x, x, x)
    b, _ = mine(x, x, x)
    assert labkit.equal(a, b)
    mine.train()
    labkit.manual_seed(1)
    c, wc = mine(x, x, x, average_attn_weights=False)
    assert (wc == 0).any().item() and not labkit.allclose(a, c)


def test_mha_errors():
    with pytest.raises(AssertionError, match="divisible"):
        nn.MultiheadAttention(10, 3)
    with pytest.raises(AssertionError):
        torch.nn.MultiheadAttention(10, 3)
    m = nn.MultiheadAttention(4, 2)
    x = labkit.randn(3, 2, 4)
    with pytest.raises(AssertionError, match="embedding dimension of 4"):
        m(labkit.randn(3, 2, 5), x, x)
    with pytest.raises(RuntimeError, match="2D attn_mask"):
        m(x, x, x, attn_mask=labkit.zeros(2, 3))
    with pytest.raises(AssertionError, match="key_padding_mask"):
        m(x, x, x, key_padding_mask=labkit.zeros(2, 4).bool())
    with pytest.raises(AssertionError, match="bool and floating"):
        m(x, x, x, key_padding_mask=labkit.zeros(2, 3, dtype=labkit.int64))


def test_mha_mismatched_mask_types_warn_as_torch():
    m = nn.MultiheadAttention(4, 2)
    x = labkit.randn(3, 2, 4)
    with pytest.warns(UserWarning, match="mismatched key_padding_mask and attn_mask"):
        m(x, x, x, attn_mask=labkit.zeros(3, 3), key_padding_mask=labkit.zeros(2, 3).bool())
    with pytest.warns(UserWarning, match="mismatched key_padding_mask and attn_mask"):
        t = torch.nn.MultiheadAttention(4, 2)
        xt = torch.randn(3, 2, 4)
        t(xt, xt, xt, attn_mask=torch.zeros(3, 3), key_padding_mask=torch.zeros(2, 3).bool())


def test_mha_float32_like_torch():
    """The default dtype: float32 in, float32 out, close to torch's float32 result."""
    torch.manual_seed(0)
    ref = torch.nn.MultiheadAttention(8, 2, batch_first=True)
    mine = nn.MultiheadAttention(8, 2, batch_first=True)
    mine.load_state_dict({k: labkit.tensor(v.detach().numpy()) for k, v in
                          ref.state_dict().items()})
    x = rand_array((2, 4, 8), 1).astype(np.float32)
    pad = np.array([[False] * 4, [False, False, True, True]])
    out, w = mine(labkit.tensor(x), labkit.tensor(x), labkit.tensor(x),
                  key_padding_mask=labkit.tensor(pad))
    rout, rw = ref(torch.tensor(x), torch.tensor(x), torch.tensor(x),
                   key_padding_mask=torch.tensor(pad))
    assert out.dtype == labkit.float32 and w.dtype == labkit.float32
    assert_close(out, rout, rtol=1e-5, atol=1e-6)
    assert_close(w, rw, rtol=1e-5, atol=1e-6)


def test_functional_multi_head_attention_forward():
    """F.multi_head_attention_forward with a torch module's parameters passed in."""
    mine, ref = make_mha(6, 2, add_bias_kv=True)
    x = rand_array((4, 3, 6), 1)
    pad = np.zeros((3, 4), bool)
    pad[2, 3] = True

    def call(lib, m, x, p):
        return lib.nn.functional.multi_head_attention_forward(
            x, x, x, 6, 2, m.in_proj_weight, m.in_proj_bias, m.bias_k, m.bias_v, False, 0.0,
            m.out_proj.weight, m.out_proj.bias, key_padding_mask=p, average_attn_weights=False)
    compare_module(mine, ref, [x, pad], lambda m, x, p: call(
        labkit if isinstance(x, labkit.Tensor) else torch, m, x, p))
