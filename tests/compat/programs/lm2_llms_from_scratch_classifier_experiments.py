"""Sebastian Raschka's ch06 bonus "additional experiments" script for classification fine-tuning
(LLMs-from-scratch ch06/02_bonus_additional-experiments/additional_experiments.py and its
previous_chapters.py) at toy size on a synthetic spam / ham CSV, with a character tokenizer for
tiktoken and the csv module for pandas (the script reads with pd.read_csv and .iloc): the
chapter-4 GPTModel with disable_causal_mask (the "mask" buffer registered only when causal), the
frozen model with a new out_head = torch.nn.Linear(in_features, 2), trainable_layers
"last_block" / "lora" / "lora_alternative" (replace_linear_with_lora walking named_children with
setattr; LoRALayer with kaiming_uniform_(a=math.sqrt(5)) and zero B; LinearWithLoRAMerged
computing F.linear(x, weight + alpha * (A @ B).T, bias)), trainable_token_pos -1 / 0 /
"flexible" (the last real token from (input_batch != pad_token_id).sum(dim=1) - 1 and
logits[torch.arange(batch_size), last_token_pos]), average_embeddings (model_output.mean(dim=1)),
ignore_index, calc_accuracy_loader under @torch.no_grad(), and gradient accumulation in
train_classifier_simple (loss /= accumulation_steps, is_update_step), checked against the
script's claim that batch_size=4 with accumulation 1 matches batch_size=1 with accumulation 4."""
import copy
import csv
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False, disable_causal_mask=False):
        super().__init__()
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        if not disable_causal_mask:
            self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
        self.disable_causal_mask = disable_causal_mask

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        if not self.disable_causal_mask:
            mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
            attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2).reshape(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


class LayerNorm(nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.eps = 1e-5
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        return self.scale * (x - mean) / torch.sqrt(var + self.eps) + self.shift


class GELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))))


class TransformerBlock(nn.Module):
    def __init__(self, cfg, disable_causal_mask=False):
        super().__init__()
        self.att = MultiHeadAttention(d_in=cfg["emb_dim"], d_out=cfg["emb_dim"], context_length=cfg["context_length"],
                                      num_heads=cfg["n_heads"], dropout=cfg["drop_rate"], qkv_bias=cfg["qkv_bias"],
                                      disable_causal_mask=disable_causal_mask)
        self.ff = nn.Sequential(nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), GELU(),
                                nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_resid = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):
        x = x + self.drop_resid(self.att(self.norm1(x)))
        return x + self.drop_resid(self.ff(self.norm2(x)))


class GPTModel(nn.Module):
    def __init__(self, cfg, disable_causal_mask=False):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg, disable_causal_mask) for _ in range(cfg["n_layers"])])
        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        x = self.tok_emb(in_idx) + self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        x = self.trf_blocks(self.drop_emb(x))
        return self.out_head(self.final_norm(x))


class LoRALayer(torch.nn.Module):
    def __init__(self, in_dim, out_dim, rank, alpha):
        super().__init__()
        self.A = torch.nn.Parameter(torch.empty(in_dim, rank))
        torch.nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))
        self.B = torch.nn.Parameter(torch.zeros(rank, out_dim))
        self.alpha = alpha

    def forward(self, x):
        return self.alpha * (x @ self.A @ self.B)


class LinearWithLoRA(torch.nn.Module):
    def __init__(self, linear, rank, alpha):
        super().__init__()
        self.linear = linear
        self.lora = LoRALayer(linear.in_features, linear.out_features, rank, alpha)

    def forward(self, x):
        return self.linear(x) + self.lora(x)


class LinearWithLoRAMerged(torch.nn.Module):
    def __init__(self, linear, rank, alpha):
        super().__init__()
        self.linear = linear
        self.lora = LoRALayer(linear.in_features, linear.out_features, rank, alpha)

    def forward(self, x):
        lora = self.lora.A @ self.lora.B
        combined_weight = self.linear.weight + self.lora.alpha * lora.T
        return torch.nn.functional.linear(x, combined_weight, self.linear.bias)


def replace_linear_with_lora(model, rank, alpha, alternative=False):
    for name, module in model.named_children():
        if isinstance(module, torch.nn.Linear):
            if alternative:
                setattr(model, name, LinearWithLoRAMerged(module, rank, alpha))
            else:
                setattr(model, name, LinearWithLoRA(module, rank, alpha))
        else:
            replace_linear_with_lora(module, rank, alpha)


class CharTokenizer:
    def __init__(self, alphabet):
        self.chars = sorted(set(alphabet))
        self.pad = len(self.chars)           # plays <|endoftext|> (50256)

    def encode(self, text):
        return [self.chars.index(c) for c in text]


class SpamDataset(Dataset):
    def __init__(self, csv_file, tokenizer, max_length=None, pad_token_id=50256, no_padding=False):
        with open(csv_file, newline="") as f:
            self.data = list(csv.DictReader(f))
        self.max_length = max_length if max_length is not None else self._longest_encoded_length(tokenizer)
        self.encoded_texts = [tokenizer.encode(row["Text"])[:self.max_length] for row in self.data]
        if not no_padding:
            self.encoded_texts = [et + [pad_token_id] * (self.max_length - len(et)) for et in self.encoded_texts]

    def __getitem__(self, index):
        encoded = self.encoded_texts[index]
        label = int(self.data[index]["Label"])
        return torch.tensor(encoded, dtype=torch.long), torch.tensor(label, dtype=torch.long)

    def __len__(self):
        return len(self.data)

    def _longest_encoded_length(self, tokenizer):
        return max(len(tokenizer.encode(row["Text"])) for row in self.data)


def calc_loss_batch(input_batch, target_batch, model, device, trainable_token_pos=-1, ignore_index=-100,
                    average_embeddings=False):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)
    if trainable_token_pos == "flexible":  # Selects the last tokens before the padding tokens
        mask = input_batch != pad_token_id
        last_token_pos = mask.sum(dim=1) - 1
        logits = model(input_batch)
        batch_size = logits.size(0)
        selected_logits = logits[torch.arange(batch_size), last_token_pos]
        return torch.nn.functional.cross_entropy(selected_logits, target_batch)
    model_output = model(input_batch)
    if average_embeddings:
        logits = model_output.mean(dim=1)
    else:
        logits = model_output[:, trainable_token_pos, :]
    return torch.nn.functional.cross_entropy(logits, target_batch, ignore_index=ignore_index)


@torch.no_grad()
def calc_accuracy_loader(data_loader, model, device, num_batches=None, trainable_token_pos=-1,
                         average_embeddings=False):
    model.eval()
    correct_predictions, num_examples = 0, 0
    num_batches = len(data_loader) if num_batches is None else min(num_batches, len(data_loader))
    for i, (input_batch, target_batch) in enumerate(data_loader):
        if i >= num_batches:
            break
        if trainable_token_pos == "flexible":
            mask = input_batch != pad_token_id
            last_token_pos = mask.sum(dim=1) - 1
            logits = model(input_batch)
            logits = logits[torch.arange(logits.size(0)), last_token_pos]
        else:
            model_output = model(input_batch)
            logits = model_output.mean(dim=1) if average_embeddings else model_output[:, trainable_token_pos, :]
        predicted_labels = torch.argmax(logits, dim=-1)
        num_examples += predicted_labels.shape[0]
        correct_predictions += (predicted_labels == target_batch).sum().item()
    return correct_predictions / num_examples


def train_classifier_simple(model, train_loader, optimizer, device, num_epochs, trainable_token_pos=-1,
                            accumulation_steps=1, ignore_index=-100, average_embeddings=False):
    train_losses = []
    examples_seen, global_step = 0, -1
    for epoch in range(num_epochs):
        model.train()
        for batch_idx, (input_batch, target_batch) in enumerate(train_loader):
            loss = calc_loss_batch(input_batch, target_batch, model, device, trainable_token_pos=trainable_token_pos,
                                   ignore_index=ignore_index, average_embeddings=average_embeddings)
            loss /= accumulation_steps
            loss.backward()
            is_update_step = ((batch_idx + 1) % accumulation_steps == 0) or ((batch_idx + 1) == len(train_loader))
            if is_update_step:
                optimizer.step()
                optimizer.zero_grad()
            examples_seen += input_batch.shape[0]
            global_step += 1
            train_losses.append(loss.item() * accumulation_steps)
    return train_losses, examples_seen


# ---------------------------------------------------------------- data
spam = ["win cash now", "free prize call", "win a free car", "cash prize now", "call now to win", "free cash"]
ham = ["see you at lunch", "the meeting is at ten", "call me later", "how was the trip", "see you soon",
       "lunch at noon"]
rows = [(t, 1) for t in spam] + [(t, 0) for t in ham]
with open("train.csv", "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["Text", "Label"])
    writer.writerows(rows[::2] + rows[1::2])
tokenizer = CharTokenizer("".join(t for t, _ in rows))
pad_token_id = tokenizer.pad
BASE_CONFIG = {"vocab_size": tokenizer.pad + 1, "context_length": 32, "drop_rate": 0.0, "qkv_bias": True,
               "emb_dim": 16, "n_layers": 2, "n_heads": 2}
device = torch.device("cpu")

train_dataset = SpamDataset("train.csv", max_length=None, tokenizer=tokenizer, pad_token_id=pad_token_id)
assert train_dataset.max_length == max(len(t) for t, _ in rows) and len(train_dataset) == 12
x0, y0 = train_dataset[0]
assert x0.dtype == torch.long and y0.dim() == 0 and (x0 == pad_token_id).sum() > 0
unpadded = SpamDataset("train.csv", max_length=None, tokenizer=tokenizer, pad_token_id=pad_token_id, no_padding=True)
assert len(unpadded[0][0]) == len(rows[0][0])

torch.manual_seed(123)
pretrained = GPTModel(BASE_CONFIG)
bidirectional = GPTModel(BASE_CONFIG, disable_causal_mask=True)
bidirectional.load_state_dict(pretrained.state_dict(), strict=False)
assert "trf_blocks.0.att.mask" in pretrained.state_dict() and "trf_blocks.0.att.mask" not in bidirectional.state_dict()
probe = torch.tensor([[1, 2, 3, 4]])
with torch.no_grad():     # one attention layer: only the last position already sees everything
    h = torch.randn(1, 4, BASE_CONFIG["emb_dim"])
    a, b = pretrained.trf_blocks[0].att(h), bidirectional.trf_blocks[0].att(h)
assert torch.allclose(a[:, -1], b[:, -1], atol=1e-5) and not torch.allclose(a[:, 0], b[:, 0], atol=1e-4)


def make_classifier(trainable_layers, disable_causal_mask=False):
    model = GPTModel(BASE_CONFIG, disable_causal_mask=disable_causal_mask)
    model.load_state_dict(pretrained.state_dict(), strict=False)
    for param in model.parameters():
        param.requires_grad = False
    torch.manual_seed(123)
    model.out_head = torch.nn.Linear(in_features=BASE_CONFIG["emb_dim"], out_features=2)
    if trainable_layers == "last_block":
        for param in model.trf_blocks[-1].parameters():
            param.requires_grad = True
        for param in model.final_norm.parameters():
            param.requires_grad = True
    elif trainable_layers in ("lora", "lora_alternative"):
        replace_linear_with_lora(model, rank=4, alpha=8, alternative=trainable_layers == "lora_alternative")
    model.to(device)
    return model


# LoRA: B starts at zero, the merged form computes the same thing
lora = make_classifier("lora")
lora_alt = make_classifier("lora_alternative")
lora_alt.load_state_dict(lora.state_dict())
base = make_classifier("last_layer")
with torch.no_grad():
    out = lora(probe)
    assert torch.allclose(out, base(probe), atol=1e-6) and torch.allclose(lora_alt(probe), out, atol=1e-6)
    lora.out_head.lora.B.normal_()
    lora_alt.out_head.lora.B.copy_(lora.out_head.lora.B)
    assert torch.allclose(lora(probe), lora_alt(probe), atol=1e-5)
assert isinstance(lora.trf_blocks[0].att.W_query, LinearWithLoRA)
trainable = [n for n, p in lora.named_parameters() if p.requires_grad]
lora_params = [n for n in trainable if n.endswith(("lora.A", "lora.B"))]
assert len(lora_params) == 2 * (2 * 6 + 1)                 # 13 Linear layers, A and B each
assert sorted(set(trainable) - set(lora_params)) == ["out_head.linear.bias", "out_head.linear.weight"]

# the experiments: each trains and reaches full training accuracy
results = {}
for name, kwargs, layers, causal in [("last token, last block", dict(trainable_token_pos=-1), "last_block", True),
                                     ("first token, no causal mask", dict(trainable_token_pos=0), "last_block", False),
                                     ("flexible last real token", dict(trainable_token_pos="flexible"), "last_block", True),
                                     ("average embeddings, lora", dict(average_embeddings=True), "lora", True)]:
    torch.manual_seed(0)
    model = make_classifier(layers, disable_causal_mask=not causal)
    train_loader = DataLoader(train_dataset, batch_size=4, shuffle=True, drop_last=False)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-3, weight_decay=0.1)
    losses, seen = train_classifier_simple(model, train_loader, optimizer, device, num_epochs=6, **kwargs)
    acc = calc_accuracy_loader(DataLoader(train_dataset, batch_size=4), model, device,
                               trainable_token_pos=kwargs.get("trainable_token_pos", -1),
                               average_embeddings=kwargs.get("average_embeddings", False))
    results[name] = acc
    assert seen == 6 * 12 and losses[-1] < losses[0], (name, losses)
    print(f"{name}: training accuracy {acc * 100:.1f}%")
assert min(results.values()) > 0.6, results
# the point of the "flexible" option: the last real token beats a padding token's position
assert results["flexible last real token"] >= results["last token, last block"], results

# ignore_index: a -100 label drops that example from the loss
logits_in, labels_in = torch.stack([train_dataset[i][0] for i in range(4)]), torch.tensor([1, -100, 0, 1])
with torch.no_grad():
    l_all = calc_loss_batch(logits_in, labels_in, base, device, ignore_index=-100)
    out_last = base(logits_in)[:, -1, :]
    manual = torch.nn.functional.cross_entropy(out_last[[0, 2, 3]], labels_in[[0, 2, 3]])
assert torch.allclose(l_all, manual, atol=1e-6)

# gradient accumulation: 4 x 1 with accumulation 4 is one update on the batch of 4
one = make_classifier("last_block")
two = copy.deepcopy(one)
batch = [train_dataset[i] for i in range(4)]
opt1 = torch.optim.SGD([p for p in one.parameters() if p.requires_grad], lr=0.1)   # (Adam would blow the
opt2 = torch.optim.SGD([p for p in two.parameters() if p.requires_grad], lr=0.1)   # key bias's ~0 gradient up)
train_classifier_simple(one, DataLoader(batch, batch_size=4), opt1, device, num_epochs=1)
train_classifier_simple(two, DataLoader(batch, batch_size=1), opt2, device, num_epochs=1, accumulation_steps=4)
for (n, p1), (_, p2) in zip(one.named_parameters(), two.named_parameters()):
    assert torch.allclose(p1, p2, atol=1e-6), n
print("classifier experiments ok", results)
