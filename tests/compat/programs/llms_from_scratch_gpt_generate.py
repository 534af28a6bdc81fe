"""Sebastian Raschka's "Build a Large Language Model (From Scratch)", chapters 4-5: a GPT_CONFIG
dict, LayerNorm by hand (var(unbiased=False)), GELU by hand with torch.sqrt(torch.tensor(2.0 /
torch.pi)), FeedForward, shortcut connections, TransformerBlock, GPTModel (torch.arange(seq_len,
device=in_idx.device)), generate_text_simple with torch.argmax(keepdim=True), calc_loss_batch with
logits.flatten(0, 1), perplexity with torch.exp, temperature scaling and top-k via torch.where(
logits < min_val, torch.tensor(float("-inf")), logits), torch.multinomial, and train_model_simple."""
import torch
import torch.nn as nn

GPT_CONFIG = {
    "vocab_size": 30,
    "context_length": 12,
    "emb_dim": 16,
    "n_heads": 2,
    "n_layers": 2,
    "drop_rate": 0.1,
    "qkv_bias": False,
}


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = self.dropout(torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1))
        context_vec = (attn_weights @ values).transpose(1, 2)
        return self.out_proj(context_vec.contiguous().view(b, num_tokens, self.d_out))


class LayerNorm(nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.eps = 1e-5
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        norm_x = (x - mean) / torch.sqrt(var + self.eps)
        return self.scale * norm_x + self.shift


class GELU(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(
            torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))))


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]),
            GELU(),
            nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]),
        )

    def forward(self, x):
        return self.layers(x)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(d_in=cfg["emb_dim"], d_out=cfg["emb_dim"],
                                      context_length=cfg["context_length"],
                                      num_heads=cfg["n_heads"], dropout=cfg["drop_rate"],
                                      qkv_bias=cfg["qkv_bias"])
        self.ff = FeedForward(cfg)
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):
        shortcut = x
        x = self.norm1(x)
        x = self.att(x)
        x = self.drop_shortcut(x)
        x = x + shortcut
        shortcut = x
        x = self.norm2(x)
        x = self.ff(x)
        x = self.drop_shortcut(x)
        x = x + shortcut
        return x


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        tok_embeds = self.tok_emb(in_idx)
        pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        x = tok_embeds + pos_embeds
        x = self.drop_emb(x)
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        return self.out_head(x)


def generate_text_simple(model, idx, max_new_tokens, context_size):
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        logits = logits[:, -1, :]
        probas = torch.softmax(logits, dim=-1)
        idx_next = torch.argmax(probas, dim=-1, keepdim=True)
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


def generate(model, idx, max_new_tokens, context_size, temperature=0.0, top_k=None, eos_id=None):
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        logits = logits[:, -1, :]
        if top_k is not None:
            top_logits, _ = torch.topk(logits, top_k)
            min_val = top_logits[:, -1]
            logits = torch.where(logits < min_val, torch.tensor(float("-inf")).to(logits.device),
                                 logits)
        if temperature > 0.0:
            logits = logits / temperature
            probs = torch.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
        else:
            idx_next = torch.argmax(logits, dim=-1, keepdim=True)
        if idx_next == eos_id:
            break
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


def calc_loss_batch(input_batch, target_batch, model, device):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)
    logits = model(input_batch)
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())


def calc_loss_loader(batches, model, device, num_batches=None):
    total_loss = 0.
    if len(batches) == 0:
        return float("nan")
    num_batches = len(batches) if num_batches is None else min(num_batches, len(batches))
    for i, (input_batch, target_batch) in enumerate(batches):
        if i < num_batches:
            total_loss += calc_loss_batch(input_batch, target_batch, model, device).item()
        else:
            break
    return total_loss / num_batches


torch.manual_seed(123)
model = GPTModel(GPT_CONFIG)
total_params = sum(p.numel() for p in model.parameters())
print(f"Total number of parameters: {total_params:,}")
total_size_mb = total_params * 4 / (1024 * 1024)
batch = torch.tensor([[6, 1, 2, 3], [6, 4, 5, 3]])
out = model(batch)
assert out.shape == (2, 4, 30)

ln = LayerNorm(emb_dim=5)
out_ln = ln(torch.randn(2, 5))
mean = out_ln.mean(dim=-1, keepdim=True)
var = out_ln.var(dim=-1, unbiased=False, keepdim=True)
torch.set_printoptions(sci_mode=False)
assert torch.allclose(mean, torch.zeros(2, 1), atol=1e-6) and torch.allclose(var, torch.ones(2, 1), atol=1e-3)
x = torch.linspace(-3, 3, 100)
assert torch.allclose(GELU()(x), nn.GELU(approximate='tanh')(x), atol=1e-6)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model.to(device)
pattern = torch.tensor([7, 8, 9, 10, 11, 12, 13, 14] * 20)
train_batches = []
for start in range(0, 96, 12):
    x_ = torch.stack([pattern[start + j: start + j + 12] for j in range(2)])
    y_ = torch.stack([pattern[start + j + 1: start + j + 13] for j in range(2)])
    train_batches.append((x_, y_))
optimizer = torch.optim.AdamW(model.parameters(), lr=0.004, weight_decay=0.1)
model.eval()
with torch.no_grad():
    initial = calc_loss_loader(train_batches, model, device)
model.train()
for epoch in range(6):
    for input_batch, target_batch in train_batches:
        optimizer.zero_grad()
        loss = calc_loss_batch(input_batch, target_batch, model, device)
        loss.backward()
        optimizer.step()
model.eval()
with torch.no_grad():
    final = calc_loss_loader(train_batches, model, device, num_batches=4)
print(f"loss {initial:.3f} -> {final:.3f}, perplexity {torch.exp(torch.tensor(final)):.2f}")
assert final < initial - 1.0

start = torch.tensor([7, 8, 9]).unsqueeze(0)
greedy = generate_text_simple(model, start, max_new_tokens=5, context_size=12)
assert greedy.shape == (1, 8) and greedy[0, :3].tolist() == [7, 8, 9]
torch.manual_seed(123)
sampled = generate(model, start, max_new_tokens=5, context_size=12, top_k=3, temperature=1.4)
assert sampled.shape == (1, 8)
stopped = generate(model, start, max_new_tokens=5, context_size=12, eos_id=int(greedy[0, 3]))
assert stopped.shape == (1, 3)

next_token_logits = torch.tensor([4.51, 0.89, -1.90, 6.75, 1.63, -1.62, -1.89, 6.28, 1.79])
scaled = [torch.softmax(next_token_logits / T, dim=0) for T in [1, 0.1, 5]]
assert scaled[1].argmax() == 3 and scaled[2].max() < scaled[0].max()
torch.manual_seed(123)
sample = [torch.multinomial(scaled[0], num_samples=1).item() for i in range(1_000)]
sampled_ids = torch.bincount(torch.tensor(sample), minlength=9)
assert sampled_ids.sum() == 1000 and sampled_ids[3] > sampled_ids[0]
top_logits, top_pos = torch.topk(next_token_logits, 3)
new_logits = torch.where(condition=next_token_logits < top_logits[-1],
                         input=torch.tensor(float("-inf")), other=next_token_logits)
assert torch.isinf(new_logits).sum() == 6
assert top_pos.tolist() == [3, 7, 0]
