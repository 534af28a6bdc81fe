"""Programs written the way tutorials write attention, Transformers, the old API and
statistics printouts. Each takes the library as `torch` and runs twice: on PyTorch (so the
program itself is right) and on labkit (the import swap must be all it takes)."""
import numpy as np
import pytest

import labkit

real_torch = pytest.importorskip("torch")

LIBS = [pytest.param(real_torch, id="torch"), pytest.param(labkit, id="labkit")]


@pytest.fixture(autouse=True)
def one_torch_thread():
    """These tiny models run slower on several threads (and the test machine is shared)."""
    n = real_torch.get_num_threads()
    real_torch.set_num_threads(1)
    yield
    real_torch.set_num_threads(n)


def _nanogpt(torch):
    """A one-block causal self-attention language model (nanoGPT's Head/Block pattern) on a
    repeating string: embeddings + positions, F.scaled_dot_product_attention(is_causal=True)
    in a hand-written head, a residual, LayerNorm, and cross-entropy on the next character."""
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)
    text = "abcdabcdabcdabcd" * 4
    chars = sorted(set(text))
    data = torch.tensor([chars.index(c) for c in text])
    T, C, V = 8, 16, len(chars)

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.key, self.query, self.value = (nn.Linear(C, C, bias=False) for _ in range(3))

        def forward(self, x):
            return F.scaled_dot_product_attention(self.query(x), self.key(x), self.value(x),
                                                  is_causal=True)

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(V, C)
            self.pos = nn.Embedding(T, C)
            self.head = Head()
            self.ln = nn.LayerNorm(C)
            self.out = nn.Linear(C, V)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
            x = x + self.head(self.ln(x))
            return self.out(x)

    model = LM()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    starts = torch.arange(0, len(text) - T - 1, 3)
    xb = torch.stack([data[s:s + T] for s in starts.tolist()])
    yb = torch.stack([data[s + 1:s + T + 1] for s in starts.tolist()])
    for _ in range(60):
        logits = model(xb)
        loss = F.cross_entropy(logits.reshape(-1, V), yb.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    # after the first character the sequence is fully predictable from the previous one
    acc = (model(xb).argmax(-1)[:, 1:] == yb[:, 1:]).float().mean().item()
    assert acc > 0.95, acc


def _seq2seq_copy(torch):
    """nn.Transformer (batch_first) learns to copy a sequence, with the causal target mask from
    generate_square_subsequent_mask and padding masks, as in PyTorch's seq2seq tutorials."""
    nn = torch.nn
    torch.manual_seed(0)
    V, D, S = 6, 16, 5
    emb = nn.Embedding(V, D)
    model = nn.Transformer(d_model=D, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                           dim_feedforward=32, dropout=0.0, batch_first=True)
    head = nn.Linear(D, V)
    params = list(emb.parameters()) + list(model.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=5e-3)
    src = torch.randint(2, V, (16, S))
    src[8:, 4:] = 0                                   # padding id 0 in half the batch
    bos = torch.ones(16, 1, dtype=torch.long)        # id 1 starts the target
    tgt_in = torch.cat([bos, src[:, :-1]], dim=1)
    mask = nn.Transformer.generate_square_subsequent_mask(S)
    for _ in range(150):
        out = model(emb(src), emb(tgt_in), tgt_mask=mask, src_key_padding_mask=src == 0,
                    memory_key_padding_mask=src == 0)
        loss = nn.functional.cross_entropy(head(out).reshape(-1, V), src.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        pred = head(model(emb(src), emb(tgt_in), tgt_mask=mask,
                          src_key_padding_mask=src == 0,
                          memory_key_padding_mask=src == 0)).argmax(-1)
    assert (pred == src).float().mean().item() > 0.8      # chance: 0.2


def _mha_cross_attention_weights(torch):
    """Cross-attention with kdim/vdim and a key padding mask; per-head weights are
    probabilities that give padded keys nothing."""
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(8, 4, kdim=6, vdim=5, batch_first=True)
    q, k, v = torch.randn(3, 4, 8), torch.randn(3, 7, 6), torch.randn(3, 7, 5)
    pad = torch.zeros(3, 7, dtype=torch.bool)
    pad[0, 5:] = True
    out, w = mha(q, k, v, key_padding_mask=pad, average_attn_weights=False)
    assert out.shape == (3, 4, 8) and w.shape == (3, 4, 4, 7)
    assert torch.allclose(w.sum(-1), torch.ones(3, 4, 4))
    assert w[0, :, :, 5:].abs().max().item() == 0
    out.mean().backward()
    assert mha.k_proj_weight.grad.shape == (8, 6)


def _legacy_regression(torch):
    """A 2017-era linear regression: Variable, FloatTensor, .data updates, .type, nelement."""
    Variable = torch.autograd.Variable
    torch.manual_seed(1)
    x = Variable(torch.FloatTensor([[1.0], [2.0], [3.0], [4.0]]))
    y = Variable(torch.FloatTensor([[3.0], [5.0], [7.0], [9.0]]), requires_grad=False)
    w = Variable(torch.randn(1, 1), requires_grad=True)
    b = Variable(torch.zeros(1), requires_grad=True)
    for _ in range(300):
        loss = ((x.mm(w) + b - y) ** 2).mean()
        loss.backward()
        w.data -= 0.05 * w.grad.data
        b.data -= 0.05 * b.grad.data
        w.grad.data.zero_()
        b.grad.data.zero_()
    assert abs(w.data.numpy()[0, 0] - 2.0) < 1e-2 and abs(b.data.numpy()[0] - 1.0) < 3e-2
    labels = torch.LongTensor([0, 2, 1, 2])
    assert labels.type() == "torch.LongTensor" and labels.type(torch.FloatTensor).sum() == 5
    assert isinstance(x, torch.FloatTensor) and not isinstance(labels, torch.FloatTensor)
    assert x.nelement() == x.numel() == 4 and x.size() == x.shape == (4, 1)


def _statistics_printout(torch):
    """The summary cells of a data notebook, returned for comparison between libraries."""
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((200, 3)))
    labels = torch.tensor(rng.integers(0, 5, 200))
    values, counts = labels.unique(return_counts=True)
    return {
        "std0": x.std(0), "std_keep": x.std(1, keepdim=True)[:3], "var_biased": x.var(0, False),
        "histc": torch.histc(x[:, 0].float(), bins=8, min=-3, max=3),
        "hist": torch.histogram(x[:, 1], bins=5).hist,
        "kth": x.kthvalue(10, dim=0).values, "q": torch.quantile(x, 0.9, dim=0),
        "mode": labels.mode().values, "bincount": labels.bincount(), "unique": values,
        "counts": counts, "n": x.nelement(),
    }


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("program", [_nanogpt, _seq2seq_copy, _mha_cross_attention_weights,
                                     _legacy_regression])
def test_program(program, lib):
    program(lib)


def test_statistics_printout_is_torchs():
    mine, ref = _statistics_printout(labkit), _statistics_printout(real_torch)
    for key in ref:
        m, r = mine[key], ref[key]
        if key == "n":
            assert m == r
        else:
            np.testing.assert_allclose(np.asarray(m.numpy(), dtype=float),
                                       np.asarray(r.numpy(), dtype=float), rtol=1e-6,
                                       err_msg=key)
