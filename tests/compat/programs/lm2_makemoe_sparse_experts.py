"""AviSoori1x/makeMoE (makeMoE.py): a char-level sparse mixture-of-experts language model, at
toy size on a synthetic text.

APIs: nn.Linear / nn.Embedding / nn.LayerNorm / nn.Dropout, register_buffer('tril', torch.tril(...)),
masked_fill(tril[:T, :T] == 0, float('-inf')), noisy top-k routing (torch.randn_like(logits) *
F.softplus(noise_logits), Tensor.topk(k, dim=-1), torch.full_like(x, float('-inf')).scatter(-1,
indices, top_k_logits), F.softmax), SparseMoE dispatch with (indices == i).any(dim=-1),
torch.nonzero(mask).squeeze(-1), selected_indices[:expert_capacity], Tensor.numel(), fancy
indexing flat_x[limited_indices] / flat_gating_output[limited_indices, i].unsqueeze(1),
updates.index_add_(0, idx, src), final_output += updates.view(...), nn.Sequential(*[...]),
init.kaiming_normal_ through model.apply, register_forward_hook with a callable class that uses
np.unique(output[1].detach().cpu().flatten(), return_counts=True), hook.remove(),
@torch.no_grad() estimate_loss with losses[k] = loss.item(), AdamW, zero_grad(set_to_none=True),
generate with torch.multinomial. The checkpoint is a state dict (torch.save(model) pickles code).
"""
import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.nn import init

# hyperparameters
batch_size = 4
block_size = 8
max_iters = 25
eval_interval = 10
learning_rate = 1e-3
device = "cuda" if torch.cuda.is_available() else "cpu"
eval_iters = 3
head_size = 4
n_embed = 16
n_head = 4
n_layer = 2
dropout = 0.1
num_experts = 4
top_k = 2
hook_router_output = True

torch.manual_seed(1337)

text = "the cat sat on the mat. the dog sat on the log. " * 6
chars = sorted(list(set(text)))
vocab_size = len(chars)
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for i, ch in enumerate(chars)}
encode = lambda s: [stoi[c] for c in s]
decode = lambda l: "".join([itos[i] for i in l])

data = torch.tensor(encode(text), dtype=torch.long)
n = int(0.9 * len(data))
train_data = data[:n]
val_data = data[n:]


def get_batch(split):
    data = train_data if split == "train" else val_data
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i: i + block_size] for i in ix])
    y = torch.stack([data[i + 1: i + block_size + 1] for i in ix])
    x, y = x.to(device), y.to(device)
    return x, y


@torch.no_grad()
def estimate_loss(model):
    out = {}
    model.eval()
    for split in ["train", "val"]:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            logits, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out


class Head(nn.Module):
    """one head of self-attention"""

    def __init__(self, head_size):
        super().__init__()
        self.key = nn.Linear(n_embed, head_size, bias=False)
        self.query = nn.Linear(n_embed, head_size, bias=False)
        self.value = nn.Linear(n_embed, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        B, T, C = x.shape
        k = self.key(x)
        q = self.query(x)
        wei = q @ k.transpose(-2, -1) * C**-0.5
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        wei = F.softmax(wei, dim=-1)
        wei = self.dropout(wei)
        v = self.value(x)
        out = wei @ v
        return out


class MultiHeadAttention(nn.Module):
    def __init__(self, num_heads, head_size):
        super().__init__()
        self.heads = nn.ModuleList([Head(head_size) for _ in range(num_heads)])
        self.proj = nn.Linear(n_embed, n_embed)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        out = torch.cat([h(x) for h in self.heads], dim=-1)
        out = self.dropout(self.proj(out))
        return out


class Expert(nn.Module):
    def __init__(self, n_embed):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_embed, 4 * n_embed),
            nn.ReLU(),
            nn.Linear(4 * n_embed, n_embed),
            nn.Dropout(dropout),
        )

    def forward(self, x):
        return self.net(x)


class NoisyTopkRouter(nn.Module):
    def __init__(self, n_embed, num_experts, top_k):
        super(NoisyTopkRouter, self).__init__()
        self.top_k = top_k
        self.topkroute_linear = nn.Linear(n_embed, num_experts)
        self.noise_linear = nn.Linear(n_embed, num_experts)

    def forward(self, mh_output):
        logits = self.topkroute_linear(mh_output)
        noise_logits = self.noise_linear(mh_output)
        noise = torch.randn_like(logits) * F.softplus(noise_logits)
        noisy_logits = logits + noise
        top_k_logits, indices = noisy_logits.topk(self.top_k, dim=-1)
        zeros = torch.full_like(noisy_logits, float("-inf"))
        sparse_logits = zeros.scatter(-1, indices, top_k_logits)
        router_output = F.softmax(sparse_logits, dim=-1)
        return router_output, indices


class SparseMoE(nn.Module):
    def __init__(self, n_embed, num_experts, top_k, capacity_factor=1.0):
        super(SparseMoE, self).__init__()
        self.router = NoisyTopkRouter(n_embed, num_experts, top_k)
        self.experts = nn.ModuleList([Expert(n_embed) for _ in range(num_experts)])
        self.top_k = top_k
        self.capacity_factor = capacity_factor
        self.num_experts = num_experts

    def forward(self, x):
        batch_size, seq_len, _ = x.shape
        gating_output, indices = self.router(x)
        final_output = torch.zeros_like(x)
        flat_x = x.view(-1, x.size(-1))
        flat_gating_output = gating_output.view(-1, gating_output.size(-1))
        tokens_per_batch = batch_size * seq_len * self.top_k
        expert_capacity = int((tokens_per_batch / self.num_experts) * self.capacity_factor)
        updates = torch.zeros_like(flat_x)
        for i, expert in enumerate(self.experts):
            expert_mask = (indices == i).any(dim=-1)
            flat_mask = expert_mask.view(-1)
            selected_indices = torch.nonzero(flat_mask).squeeze(-1)
            limited_indices = (
                selected_indices[:expert_capacity]
                if selected_indices.numel() > expert_capacity
                else selected_indices
            )
            if limited_indices.numel() > 0:
                expert_input = flat_x[limited_indices]
                expert_output = expert(expert_input)
                gating_scores = flat_gating_output[limited_indices, i].unsqueeze(1)
                weighted_output = expert_output * gating_scores
                updates.index_add_(0, limited_indices, weighted_output)
        final_output += updates.view(batch_size, seq_len, -1)
        return final_output


class Block(nn.Module):
    def __init__(self, n_embed, n_head, num_experts, top_k):
        super().__init__()
        head_size = n_embed // n_head
        self.sa = MultiHeadAttention(n_head, head_size)
        self.smoe = SparseMoE(n_embed, num_experts, top_k)
        self.ln1 = nn.LayerNorm(n_embed)
        self.ln2 = nn.LayerNorm(n_embed)

    def forward(self, x):
        x = x + self.sa(self.ln1(x))
        x = x + self.smoe(self.ln2(x))
        return x


class SparseMoELanguageModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.token_embedding_table = nn.Embedding(vocab_size, n_embed)
        self.position_embedding_table = nn.Embedding(block_size, n_embed)
        self.blocks = nn.Sequential(
            *[Block(n_embed, n_head=n_head, num_experts=num_experts, top_k=top_k)
              for _ in range(n_layer)]
        )
        self.ln_f = nn.LayerNorm(n_embed)
        self.lm_head = nn.Linear(n_embed, vocab_size)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        tok_emb = self.token_embedding_table(idx)
        pos_emb = self.position_embedding_table(torch.arange(T, device=device))
        x = tok_emb + pos_emb
        x = self.blocks(x)
        x = self.ln_f(x)
        logits = self.lm_head(x)
        if targets is None:
            loss = None
        else:
            B, T, C = logits.shape
            logits = logits.view(B * T, C)
            targets = targets.view(B * T)
            loss = F.cross_entropy(logits, targets)
        return logits, loss

    def generate(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -block_size:]
            logits, loss = self(idx_cond)
            logits = logits[:, -1, :]
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


def kaiming_init_weights(m):
    if isinstance(m, (nn.Linear)):
        init.kaiming_normal_(m.weight)


router_rows = []


class RouterOutputHook:
    def __init__(self, block_index):
        self.block_index = block_index

    def __call__(self, module, inputs, output):
        routed_indices = output[1].detach().cpu().flatten()
        expert_indices, token_counts = np.unique(routed_indices, return_counts=True)
        row = ["0"] * num_experts
        for e, cnt in zip(expert_indices, token_counts):
            row[e] = str(cnt)
        row = [str(self.block_index)] + row
        line = ",".join(row) + "\n"
        with open("router-output.log.csv", "a") as f:
            f.write(line)
        router_rows.append(row)


def main():
    model = SparseMoELanguageModel()
    if hook_router_output:
        hooks = [b.smoe.router.register_forward_hook(RouterOutputHook(i))
                 for i, b in enumerate(model.blocks)]
    try:
        model.load_state_dict(torch.load("model.pt"))
        loaded = True
    except (FileNotFoundError, RuntimeError):
        model.apply(kaiming_init_weights)
        loaded = False
    assert not loaded
    model = model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    first = None
    for iter in range(max_iters):
        if iter % eval_interval == 0 or iter == max_iters - 1:
            losses = estimate_loss(model)
            print(f"step {iter}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
            torch.save(model.state_dict(), "model.pt")
            first = losses['train'] if first is None else first
        xb, yb = get_batch("train")
        logits, loss = model(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    if hook_router_output:
        [h.remove() for h in hooks]
    n_rows = len(router_rows)
    model(xb, yb)
    assert len(router_rows) == n_rows          # the hooks are gone
    # every routed token went to exactly top_k experts, per block and forward
    assert all(sum(int(c) for c in r[1:]) == batch_size * block_size * top_k
               for r in router_rows)
    assert losses['train'] < first, (first, losses['train'])

    # the checkpoint loads into a fresh model
    torch.save(model.state_dict(), "model.pt")
    again = SparseMoELanguageModel()
    again.load_state_dict(torch.load("model.pt"))
    assert torch.equal(again.lm_head.bias, model.lm_head.bias)
    assert again.blocks[0].sa.heads[0].tril.shape == (block_size, block_size)

    model.eval()
    context = torch.zeros((1, 1), dtype=torch.long, device=device)
    out = model.generate(context, max_new_tokens=12)[0].tolist()
    assert len(out) == 13
    print(decode(out))
    return router_rows


rows = main()
assert len(rows) > 0
with open("router-output.log.csv") as f:
    lines = f.read().splitlines()
assert len(lines) == len(rows)
