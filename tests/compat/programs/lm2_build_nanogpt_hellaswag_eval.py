"""Karpathy's build-nanogpt HellaSwag evaluation (hellaswag.py: render_example, iterate_examples,
the completion-style scoring; train_gpt2.py: get_most_likely_row and the eval inside the training
loop under torch.autocast(device_type, dtype=torch.bfloat16)) at toy size: a synthetic
HellaSwag-format jsonl written to the cache directory (so nothing downloads), a character
tokenizer for tiktoken, and a small GPT from train_gpt2.py (SDPA causal attention, tanh GELU,
weight tying, NANOGPT_SCALE_INIT) trained for a few steps on the correct completions. Checked:
the 4 x N token and mask tensors, the per-row masked average of
F.cross_entropy(..., reduction='none') against a direct computation, acc_norm after training
above chance, and the sum-loss vs length-normalised predictions."""
import json
import math
import os
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F


# ---------------------------------------------------------------- train_gpt2.py (model)
class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.c_proj.NANOGPT_SCALE_INIT = 1
        self.n_head = config.n_head
        self.n_embd = config.n_embd

    def forward(self, x):
        B, T, C = x.size()
        qkv = self.c_attn(x)
        q, k, v = qkv.split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # flash attention
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.gelu = nn.GELU(approximate='tanh')
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)
        self.c_proj.NANOGPT_SCALE_INIT = 1

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50257
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=nn.LayerNorm(config.n_embd),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight   # weight sharing scheme
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            std = 0.02
            if hasattr(module, 'NANOGPT_SCALE_INIT'):
                std *= (2 * self.config.n_layer) ** -0.5
            torch.nn.init.normal_(module.weight, mean=0.0, std=std)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        B, T = idx.size()
        assert T <= self.config.block_size, f"Cannot forward sequence of length {T}, block size is only {self.config.block_size}"
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        logits = self.lm_head(x)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


# ---------------------------------------------------------------- hellaswag.py
DATA_CACHE_DIR = os.path.join(os.getcwd(), "hellaswag")


class CharEncoding:
    """Stands in for tiktoken.get_encoding("gpt2")."""
    chars = " .abcdefghijklmnopqrstuvwxyz"

    def encode(self, s):
        return [self.chars.index(c) for c in s]


enc = CharEncoding()


def render_example(example):
    """tokens (4 x N: context + each completion), mask (1 over the completion), label."""
    ctx = example["ctx"]
    label = example["label"]
    endings = example["endings"]
    data = {"label": label, "ctx_tokens": None, "ending_tokens": []}
    ctx_tokens = enc.encode(ctx)
    data["ctx_tokens"] = ctx_tokens
    tok_rows = []
    mask_rows = []
    for end in endings:
        end_tokens = enc.encode(" " + end)  # note: prepending " " because GPT-2 tokenizer
        tok_rows.append(ctx_tokens + end_tokens)
        mask_rows.append([0] * len(ctx_tokens) + [1] * len(end_tokens))
        data["ending_tokens"].append(end_tokens)
    max_len = max(len(row) for row in tok_rows)
    tokens = torch.zeros((4, max_len), dtype=torch.long)
    mask = torch.zeros((4, max_len), dtype=torch.long)
    for i, (tok_row, mask_row) in enumerate(zip(tok_rows, mask_rows)):
        tokens[i, :len(tok_row)] = torch.tensor(tok_row)
        mask[i, :len(mask_row)] = torch.tensor(mask_row)
    return data, tokens, mask, label


def iterate_examples(split):
    with open(os.path.join(DATA_CACHE_DIR, f"hellaswag_{split}.jsonl"), "r") as f:
        for line in f:
            yield json.loads(line)


def get_most_likely_row(tokens, mask, logits):
    shift_logits = (logits[..., :-1, :]).contiguous()
    shift_tokens = (tokens[..., 1:]).contiguous()
    flat_shift_logits = shift_logits.view(-1, shift_logits.size(-1))
    flat_shift_tokens = shift_tokens.view(-1)
    shift_losses = F.cross_entropy(flat_shift_logits, flat_shift_tokens, reduction='none')
    shift_losses = shift_losses.view(tokens.size(0), -1)
    shift_mask = (mask[..., 1:]).contiguous()  # we must shift mask, so we start at the last prompt token
    masked_shift_losses = shift_losses * shift_mask
    sum_loss = masked_shift_losses.sum(dim=1)
    avg_loss = sum_loss / shift_mask.sum(dim=1)
    pred_norm = avg_loss.argmin().item()
    return pred_norm, sum_loss.argmin().item(), avg_loss


# ---------------------------------------------------------------- a synthetic HellaSwag
os.makedirs(DATA_CACHE_DIR, exist_ok=True)
animals = ["the cat", "a dog", "the bird", "a fish", "the cow", "a frog"]
verbs = {"the cat": "purrs", "a dog": "barks", "the bird": "sings", "a fish": "swims", "the cow": "moos",
         "a frog": "jumps"}
examples = []
for i, a in enumerate(animals * 2):
    others = [verbs[o] for o in animals if o != a][i % 3:i % 3 + 3]
    label = i % 4
    endings = others[:label] + [verbs[a] + " loudly."] + others[label:]
    endings = [e if e.endswith(".") else e + " softly." for e in endings]
    examples.append({"ind": i, "ctx": f"{a} is here.", "label": label, "endings": endings, "split": "val"})
with open(os.path.join(DATA_CACHE_DIR, "hellaswag_val.jsonl"), "w") as f:
    for ex in examples:
        f.write(json.dumps(ex) + "\n")

data, tokens, mask, label = render_example(examples[1])
assert tokens.shape[0] == 4 and tokens.dtype == torch.long and mask.shape == tokens.shape
assert mask[1].sum().item() == len(enc.encode(" " + examples[1]["endings"][1]))
assert mask[:, :len(data["ctx_tokens"])].sum() == 0 and label == 1

torch.manual_seed(1337)
device_type = "cpu"
model = GPT(GPTConfig(block_size=64, vocab_size=len(enc.chars), n_layer=2, n_head=4, n_embd=32))
assert model.lm_head.weight is model.transformer.wte.weight

# the masked average loss, against a direct computation
with torch.no_grad():
    logits, _ = model(tokens)
pred_norm, pred_sum, avg_loss = get_most_likely_row(tokens, mask, logits)
for row in range(4):
    n_ctx, n_end = len(data["ctx_tokens"]), len(data["ending_tokens"][row])
    logp = torch.log_softmax(logits[row], dim=-1)
    direct = -sum(logp[t - 1, tokens[row, t]].item() for t in range(n_ctx, n_ctx + n_end)) / n_end
    assert abs(avg_loss[row].item() - direct) < 1e-4, (row, avg_loss[row].item(), direct)
assert pred_norm == avg_loss.argmin().item()


def evaluate():
    num_correct_norm, num_total = 0, 0
    for i, example in enumerate(iterate_examples("val")):
        _, tokens, mask, label = render_example(example)
        with torch.no_grad():
            with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
                logits, loss = model(tokens)
            pred_norm, _, _ = get_most_likely_row(tokens, mask, logits)
        num_total += 1
        num_correct_norm += int(pred_norm == label)
    return num_correct_norm / num_total


acc_before = evaluate()
# train on the correct completions only
texts = [ex["ctx"] + " " + ex["endings"][ex["label"]] for ex in examples]
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.95), eps=1e-8)
for step in range(60):
    ex = texts[step % len(texts)]
    ids = torch.tensor([enc.encode(ex)])
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        logits, loss = model(ids[:, :-1], ids[:, 1:])
    optimizer.zero_grad()
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
assert logits.dtype == torch.bfloat16 and loss.dtype == torch.float32
acc_after = evaluate()
print(f"HellaSwag accuracy: {acc_before:.2f} -> {acc_after:.2f}")
assert acc_after >= 0.75 and acc_after > acc_before, (acc_before, acc_after)
