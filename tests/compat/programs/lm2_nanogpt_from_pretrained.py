"""nanoGPT's GPT.from_pretrained (model.py) fed by a Hugging Face-free GPT-2: the checkpoint comes
from "The Annotated GPT-2" style model (Conv1D with torch.addmm(self.bias, x.view(-1, x.size(-1)),
self.weight) and weights stored transposed, gelu_new with torch.pow(x, 3.0), split_heads /
merge_heads with permute(0, 2, 1, 3).contiguous(), the additive (1.0 - mask) * -1e4 look-ahead
mask on an int torch.triu mask, a position_ids buffer torch.arange(n).expand((1, -1))), renamed
to the keys GPT2LMHeadModel's state_dict has (transformer.h.N..., the attn.bias / attn.masked_bias
buffers, lm_head.weight). nanoGPT side: the GPTConfig dataclass, LayerNorm with optional bias
through F.layer_norm, flash attention (F.scaled_dot_product_attention(is_causal=True)),
nn.ModuleDict transformer, weight tying, _init_weights via apply and the c_proj scaled init,
get_num_params(non_embedding=True), then from_pretrained's key filtering (endswith
'.attn.masked_bias' / '.attn.bias'), the transposed-key list with sd[k].copy_(sd_hf[k].t())
under torch.no_grad(), override_args dropout, logits[:, [-1], :] at inference, crop_block_size
(nn.Parameter(wpe.weight[:block_size]), hasattr(block.attn, 'bias')), sample.py's nullcontext /
torch.backends.cuda.matmul.allow_tf32 / generate(temperature, top_k), and train.py's checkpoint
dict (model, optimizer, model_args, iter_num, best_val_loss) saved, loaded and resumed after
stripping the '_orig_mod.' prefix torch.compile puts on state_dict keys. The model table has a
toy entry: the real GPT-2 sizes are far too big for a test."""
import math
import os
from contextlib import nullcontext
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F


# ---------------------------------------------------------------- the "Hugging Face" GPT-2
class Conv1D(nn.Module):
    """Works like a Linear layer but the weights are transposed (OpenAI's GPT-2 layout)."""

    def __init__(self, nx, nf):
        super().__init__()
        self.nf = nf
        w = torch.empty(nx, nf)
        nn.init.normal_(w, std=0.02)
        self.weight = nn.Parameter(w)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(*size_out)


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2MLP(nn.Module):
    def __init__(self, d_model, nx, dropout):
        super().__init__()
        self.c_fc = Conv1D(d_model, nx)
        self.c_proj = Conv1D(nx, d_model)
        self.act = gelu_new
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.act(self.c_fc(x))))


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_head):
        super().__init__()
        self.n_head = n_head
        self.d_model = d_model
        self.c_attn = Conv1D(d_model, d_model * 3)
        self.dropout = nn.Dropout(0.1)
        self.c_proj = Conv1D(d_model, d_model)
        self.d_k = d_model // self.n_head

    def split_heads(self, x):
        new_shape = x.size()[:-1] + (self.n_head, self.d_k)
        return x.view(*new_shape).permute(0, 2, 1, 3)

    def _attn(self, q, k, v, mask=None):
        scores = torch.matmul(q, k.transpose(-2, -1))
        scores = scores / math.sqrt(v.size(-1))
        if mask is not None:
            scores = scores + (1.0 - mask) * -1e4     # Hugging Face's additive mask
        scores = F.softmax(scores, dim=-1)
        scores = self.dropout(scores)
        return torch.matmul(scores, v), scores

    def merge_heads(self, x):
        x = x.permute(0, 2, 1, 3).contiguous()
        new_shape = x.size()[:-2] + (x.size(-2) * x.size(-1),)
        return x.view(*new_shape)

    def forward(self, x, attention_mask):
        q, k, v = self.c_attn(x).split(self.d_model, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        out, scores = self._attn(q, k, v, attention_mask)
        return self.c_proj(self.merge_heads(out)), scores


class GPT2Block(nn.Module):
    def __init__(self, d_model, n_head, dim_feedforward, dropout=0.1):
        super().__init__()
        self.attn = MultiHeadAttention(d_model=d_model, n_head=n_head)
        self.mlp = GPT2MLP(d_model=d_model, nx=dim_feedforward, dropout=dropout)
        self.ln_1 = nn.LayerNorm(d_model)
        self.ln_2 = nn.LayerNorm(d_model)

    def forward(self, x, look_ahead_mask):
        a, attn_scores = self.attn(self.ln_1(x), attention_mask=look_ahead_mask)
        x = x + a
        return x + self.mlp(self.ln_2(x)), attn_scores


class AnnotatedGPT2(nn.Module):
    def __init__(self, vocab_size, num_layers, d_model, num_heads, max_seq_length):
        super().__init__()
        self.max_seq_len = max_seq_length
        self.wte = nn.Embedding(vocab_size, d_model)
        self.wpe = nn.Embedding(self.max_seq_len, d_model)
        self.emb_dropout = nn.Dropout(0.1)
        self.register_buffer("position_ids", torch.arange(self.max_seq_len).expand((1, -1)))
        self.layers = nn.ModuleList([GPT2Block(d_model, num_heads, 4 * d_model) for _ in range(num_layers)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        self.head.weight = self.wte.weight

    def forward(self, input_ids):
        B, seq_len = input_ids.size()
        assert seq_len <= self.max_seq_len, "Input sequence length exceed model's maximum input length"
        position_ids = self.position_ids[:, :seq_len]
        x = self.emb_dropout(self.wte(input_ids) + self.wpe(position_ids))
        mask = 1 - torch.triu(torch.ones(seq_len, seq_len, dtype=torch.int), diagonal=1)
        for layer in self.layers:
            x, _ = layer(x, mask)
        return self.head(self.ln_f(x))


class GPT2LMHeadModel:
    """Stands in for transformers' class: from_pretrained gives a model whose state_dict has the
    Hugging Face names (and the old checkpoints' attn.bias / attn.masked_bias buffers)."""

    def __init__(self, model, n_ctx):
        self.model, self.n_ctx = model, n_ctx

    @classmethod
    def from_pretrained(cls, model_type):
        cfg = {"gpt2-toy": dict(num_layers=2, num_heads=4, d_model=32)}[model_type]
        torch.manual_seed(1234)
        model = AnnotatedGPT2(vocab_size=VOCAB, max_seq_length=CTX, **cfg)
        nn.init.normal_(model.wte.weight, std=0.02)     # GPT-2's initialisation
        nn.init.normal_(model.wpe.weight, std=0.01)
        with torch.no_grad():   # "pretrained": biases and norms away from their init values
            for name, p in model.named_parameters():
                if name.endswith("bias") or "ln" in name:
                    p.add_(0.05 * torch.randn_like(p))
        return cls(model, CTX)

    def state_dict(self):
        sd = {}
        for k, v in self.model.state_dict().items():
            if k == "position_ids":
                continue
            k = k.replace("layers.", "h.").replace("head.weight", "lm_head.weight")
            sd[k if k.startswith("lm_head") else "transformer." + k] = v
        for i in range(len(self.model.layers)):
            sd[f"transformer.h.{i}.attn.bias"] = torch.tril(torch.ones(self.n_ctx, self.n_ctx)).view(1, 1, self.n_ctx, self.n_ctx)
            sd[f"transformer.h.{i}.attn.masked_bias"] = torch.tensor(-1e4)
        return sd


VOCAB, CTX = 50, 24


# ---------------------------------------------------------------- nanoGPT model.py
class LayerNorm(nn.Module):
    """LayerNorm but with an optional bias. PyTorch doesn't support simply bias=False"""

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.dropout = config.dropout
        self.flash = hasattr(torch.nn.functional, 'scaled_dot_product_attention')
        if not self.flash:
            self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                 .view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if self.flash:
            y = torch.nn.functional.scaled_dot_product_attention(
                q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
            att = F.softmax(att, dim=-1)
            att = self.attn_dropout(att)
            y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50304
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    dropout: float = 0.0
    bias: bool = True


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.vocab_size is not None
        assert config.block_size is not None
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=LayerNorm(config.n_embd, bias=config.bias),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith('c_proj.weight'):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))
        print("number of parameters: %.2fM" % (self.get_num_params() / 1e6,))

    def get_num_params(self, non_embedding=True):
        n_params = sum(p.numel() for p in self.parameters())
        if non_embedding:
            n_params -= self.transformer.wpe.weight.numel()
        return n_params

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        device = idx.device
        b, t = idx.size()
        assert t <= self.config.block_size, f"Cannot forward sequence of length {t}, block size is only {self.config.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=device)
        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        else:
            logits = self.lm_head(x[:, [-1], :])   # note: using list [-1] to preserve the time dim
            loss = None
        return logits, loss

    def crop_block_size(self, block_size):
        assert block_size <= self.config.block_size
        self.config.block_size = block_size
        self.transformer.wpe.weight = nn.Parameter(self.transformer.wpe.weight[:block_size])
        for block in self.transformer.h:
            if hasattr(block.attn, 'bias'):
                block.attn.bias = block.attn.bias[:, :, :block_size, :block_size]

    @classmethod
    def from_pretrained(cls, model_type, override_args=None):
        assert model_type in {'gpt2-toy'}
        override_args = override_args or {}
        assert all(k == 'dropout' for k in override_args)
        print("loading weights from pretrained gpt: %s" % model_type)
        config_args = {
            'gpt2-toy': dict(n_layer=2, n_head=4, n_embd=32),    # stands in for gpt2 (124M)
        }[model_type]
        config_args['vocab_size'] = VOCAB
        config_args['block_size'] = CTX
        config_args['bias'] = True
        if 'dropout' in override_args:
            config_args['dropout'] = override_args['dropout']
        config = GPTConfig(**config_args)
        model = GPT(config)
        sd = model.state_dict()
        sd_keys = sd.keys()
        sd_keys = [k for k in sd_keys if not k.endswith('.attn.bias')]

        model_hf = GPT2LMHeadModel.from_pretrained(model_type)
        sd_hf = model_hf.state_dict()
        sd_keys_hf = sd_hf.keys()
        sd_keys_hf = [k for k in sd_keys_hf if not k.endswith('.attn.masked_bias')]
        sd_keys_hf = [k for k in sd_keys_hf if not k.endswith('.attn.bias')]
        transposed = ['attn.c_attn.weight', 'attn.c_proj.weight', 'mlp.c_fc.weight', 'mlp.c_proj.weight']
        assert len(sd_keys_hf) == len(sd_keys), f"mismatched keys: {len(sd_keys_hf)} != {len(sd_keys)}"
        for k in sd_keys_hf:
            if any(k.endswith(w) for w in transposed):
                assert sd_hf[k].shape[::-1] == sd[k].shape
                with torch.no_grad():
                    sd[k].copy_(sd_hf[k].t())
            else:
                assert sd_hf[k].shape == sd[k].shape
                with torch.no_grad():
                    sd[k].copy_(sd_hf[k])
        return model, model_hf

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float('Inf')
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


# ---------------------------------------------------------------- from_pretrained, checked
model, model_hf = GPT.from_pretrained('gpt2-toy', dict(dropout=0.0))
assert model.config.dropout == 0.0 and model.transformer.h[0].attn.flash
assert not hasattr(model.transformer.h[0].attn, 'bias') or not model.transformer.h[0].attn.flash
assert model.lm_head.weight is model.transformer.wte.weight
n_params = model.get_num_params()
assert n_params == sum(p.numel() for p in model.parameters()) - CTX * 32
assert len(list(model.parameters())) == len(model.state_dict()) - 1   # one tied pair

hf = model_hf.model.eval()
model.eval()
torch.manual_seed(0)
idx = torch.randint(0, VOCAB, (3, 16))
with torch.no_grad():
    ref = hf(idx)
    logits, loss = model(idx, targets=idx)          # with targets: logits at every position
    last, none = model(idx)
assert none is None and last.shape == (3, 1, VOCAB) and logits.shape == (3, 16, VOCAB)
assert torch.allclose(last[:, 0], logits[:, -1], atol=1e-6)
# nanoGPT's MLP uses the exact erf GELU, GPT-2 the tanh one: close, not equal ...
assert (logits - ref).abs().max() < 2e-2, (logits - ref).abs().max()
# ... and equal once the tanh form is swapped in
for block in model.transformer.h:
    block.mlp.gelu = nn.GELU(approximate='tanh')
with torch.no_grad():
    logits, loss = model(idx, targets=idx)
assert torch.allclose(logits, ref, atol=1e-5), (logits - ref).abs().max()
assert abs(loss.item() - F.cross_entropy(ref.view(-1, VOCAB), idx.view(-1)).item()) < 1e-5
targets = idx.clone()
targets[:, :4] = -1                                 # ignore_index=-1
_, loss_ignored = model(idx, targets=targets)
expected = F.cross_entropy(ref[:, 4:].reshape(-1, VOCAB), idx[:, 4:].reshape(-1))
assert abs(loss_ignored.item() - expected.item()) < 1e-5

# a mismatched checkpoint is refused by the key count check
full_state_dict = GPT2LMHeadModel.state_dict
GPT2LMHeadModel.state_dict = lambda self: {k: v for k, v in full_state_dict(self).items() if "ln_f" not in k}
try:
    GPT.from_pretrained('gpt2-toy')
    raise RuntimeError("a missing key must fail")
except AssertionError as e:
    assert "mismatched keys: 27 != 29" in str(e), e
finally:
    GPT2LMHeadModel.state_dict = full_state_dict

# crop_block_size: a smaller context, same predictions on short inputs
short, shifted = idx[:, :12].contiguous(), idx[:, 1:13].contiguous()
model.crop_block_size(12)
assert model.transformer.wpe.weight.shape == (12, 32) and model.config.block_size == 12
assert isinstance(model.transformer.wpe.weight, nn.Parameter)
with torch.no_grad():
    cropped, _ = model(short, targets=short)
with torch.no_grad():
    ref12 = hf(short)
assert torch.allclose(cropped, ref12, atol=1e-5)
try:
    model(idx)
    raise RuntimeError("too long")
except AssertionError as e:
    assert "block size is only 12" in str(e)

# sample.py: nullcontext on the cpu, tf32 flags, temperature / top-k sampling past the block size
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
device_type = 'cpu'
ctx = nullcontext() if device_type == 'cpu' else torch.amp.autocast(device_type=device_type, dtype=torch.bfloat16)
torch.manual_seed(1337)
x = torch.tensor([[1, 2, 3]], dtype=torch.long)
with torch.no_grad():
    with ctx:
        y = model.generate(x, 14, temperature=0.8, top_k=5)
assert y.shape == (1, 17) and y.dtype == torch.long and torch.equal(y[:, :3], x)
with torch.no_grad():
    greedy = model.generate(x, 4, temperature=1e-4, top_k=1)
    step = x
    for _ in range(4):
        lg, _ = model(step)
        step = torch.cat((step, lg[:, -1].argmax(-1, keepdim=True)), dim=1)
assert torch.equal(greedy, step), (greedy, step)

# train.py: a few steps, the checkpoint dict, and a resume through the '_orig_mod.' prefix
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)
compiled = torch.compile(model, backend="eager")   # no C compiler needed
losses = []
for iter_num in range(5):
    _, loss = compiled(short, targets=shifted)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    losses.append(loss.item())
assert losses[-1] < losses[0], losses
model_args = dict(n_layer=2, n_head=4, n_embd=32, block_size=12, bias=True, vocab_size=VOCAB, dropout=0.0)
checkpoint = {
    'model': compiled.state_dict(),
    'optimizer': optimizer.state_dict(),
    'model_args': model_args,
    'iter_num': iter_num,
    'best_val_loss': torch.tensor(losses[-1]),
    'config': {'learning_rate': 1e-3, 'init_from': 'gpt2-toy'},
}
assert all(k.startswith('_orig_mod.') for k in checkpoint['model'])
out_dir = 'out'
os.makedirs(out_dir, exist_ok=True)
torch.save(checkpoint, os.path.join(out_dir, 'ckpt.pt'))

checkpoint = torch.load(os.path.join(out_dir, 'ckpt.pt'), map_location='cpu')
checkpoint_model_args = checkpoint['model_args']
resume_args = dict(n_layer=99, n_head=99, n_embd=99, block_size=99, bias=False, vocab_size=None, dropout=0.0)
for k in ['n_layer', 'n_head', 'n_embd', 'block_size', 'bias', 'vocab_size']:
    resume_args[k] = checkpoint_model_args[k]
resumed = GPT(GPTConfig(**resume_args))
for block in resumed.transformer.h:
    block.mlp.gelu = nn.GELU(approximate='tanh')
state_dict = checkpoint['model']
unwanted_prefix = '_orig_mod.'
for k, v in list(state_dict.items()):
    if k.startswith(unwanted_prefix):
        state_dict[k[len(unwanted_prefix):]] = state_dict.pop(k)
resumed.load_state_dict(state_dict)
opt2 = torch.optim.AdamW(resumed.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)
opt2.load_state_dict(checkpoint['optimizer'])
assert checkpoint['iter_num'] == 4 and abs(checkpoint['best_val_loss'].item() - losses[-1]) < 1e-6
resumed.eval()
model.eval()
with torch.no_grad():
    a, _ = resumed(short, targets=short)
    b, _ = model(short, targets=short)
assert torch.equal(a, b)
print("nanoGPT from_pretrained ok", [round(v, 4) for v in losses])
