"""Sebastian Raschka's "Direct Preference Optimization (DPO) for LLM Alignment (From Scratch)"
(LLMs-from-scratch ch07/04_preference-tuning-with-dpo/dpo-from-scratch.ipynb and its
previous_chapters.py) at toy size, with a character tokenizer standing in for tiktoken and a
synthetic preference set standing in for instruction-data-with-preference.json: the chapter-4
GPTModel (MultiHeadAttention with a "mask" buffer and masked_fill_(mask_bool, -torch.inf),
LayerNorm with x.var(unbiased=False), the tanh GELU with torch.sqrt(torch.tensor(2.0 /
torch.pi)), nn.Sequential of blocks), a short supervised fine-tuning whose state_dict is saved
and loaded back as the frozen reference (torch.load(map_location=torch.device("cpu"),
weights_only=True)), format_input, PreferenceDataset, custom_collate_fn through
functools.partial (padding with pad_token_id, boolean masks built with torch.ones(n).bool()
and slice assignment, the prompt masked with mask[:prompt.shape[0]+2] = False, torch.stack,
truncation to allowed_max_length), DataLoader(shuffle=True, drop_last=True), compute_logprobs
(F.log_softmax, torch.gather(input=, dim=-1, index=labels.unsqueeze(-1)).squeeze(-1), masked
average), compute_dpo_loss (-F.logsigmoid(beta * logits), detached rewards),
compute_dpo_loss_batch / _loader, evaluate_dpo_loss_loader and train_model_dpo_simple with
AdamW(lr, weight_decay=0.01), then greedy generate() with an eos stop and extract_response."""
import os
from functools import partial

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


# ---------------------------------------------------------------- previous chapters
class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by n_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.reshape(b, num_tokens, self.d_out)
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
        norm_x = (x - mean) / torch.sqrt(var + self.eps)
        return self.scale * norm_x + self.shift


class GELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))))


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), GELU(),
                                    nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))

    def forward(self, x):
        return self.layers(x)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(d_in=cfg["emb_dim"], d_out=cfg["emb_dim"], context_length=cfg["context_length"],
                                      num_heads=cfg["n_heads"], dropout=cfg["drop_rate"], qkv_bias=cfg["qkv_bias"])
        self.ff = FeedForward(cfg)
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_resid = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):
        shortcut = x
        x = self.drop_resid(self.att(self.norm1(x)))
        x = x + shortcut
        shortcut = x
        x = self.drop_resid(self.ff(self.norm2(x)))
        return x + shortcut


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
        x = self.drop_emb(tok_embeds + pos_embeds)
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        return self.out_head(x)


def generate(model, idx, max_new_tokens, context_size, temperature=0.0, top_k=None, eos_id=None):
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        logits = logits[:, -1, :]
        if top_k is not None:
            top_logits, _ = torch.topk(logits, top_k)
            min_val = top_logits[:, -1]
            logits = torch.where(logits < min_val, torch.tensor(float("-inf")).to(logits.device), logits)
        if temperature > 0.0:
            probs = torch.softmax(logits / temperature, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
        else:
            idx_next = torch.argmax(logits, dim=-1, keepdim=True)
        if idx_next == eos_id:
            break
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


class CharTokenizer:
    """Stands in for tiktoken's gpt2 encoding; the last id is <|endoftext|>."""

    def __init__(self, text):
        self.chars = sorted(set(text))
        self.eot = len(self.chars)

    def encode(self, text):
        return [self.chars.index(c) for c in text]

    def decode(self, ids):
        return "".join(self.chars[i] if i < self.eot else "<|endoftext|>" for i in ids)


def text_to_token_ids(text, tokenizer):
    return torch.tensor(tokenizer.encode(text)).unsqueeze(0)


def token_ids_to_text(token_ids, tokenizer):
    return tokenizer.decode(token_ids.squeeze(0).tolist())


# ---------------------------------------------------------------- the notebook
def format_input(entry):
    instruction_text = (f"Below is an instruction that describes a task. "
                        f"Write a response that appropriately completes the request."
                        f"\n\n### Instruction:\n{entry['instruction']}")
    input_text = f"\n\n### Input:\n{entry['input']}" if entry["input"] else ""
    return instruction_text + input_text


class PreferenceDataset(Dataset):
    def __init__(self, data, tokenizer):
        self.data = data
        self.encoded_texts = []
        for entry in data:
            prompt = format_input(entry)
            rejected_response = entry["rejected"]
            chosen_response = entry["chosen"]
            prompt_tokens = tokenizer.encode(prompt)
            chosen_full_text = f"{prompt}\n\n### Response:\n{chosen_response}"
            rejected_full_text = f"{prompt}\n\n### Response:\n{rejected_response}"
            self.encoded_texts.append({"prompt": prompt_tokens,
                                       "chosen": tokenizer.encode(chosen_full_text),
                                       "rejected": tokenizer.encode(rejected_full_text)})

    def __getitem__(self, index):
        return self.encoded_texts[index]

    def __len__(self):
        return len(self.data)


def custom_collate_fn(batch, pad_token_id=50256, allowed_max_length=None, mask_prompt_tokens=True, device="cpu"):
    batch_data = {"prompt": [], "chosen": [], "rejected": [], "rejected_mask": [], "chosen_mask": []}
    max_length_common = 0
    if batch:
        for key in ["chosen", "rejected"]:
            current_max = max(len(item[key]) + 1 for item in batch)
            max_length_common = max(max_length_common, current_max)
    for item in batch:
        prompt = torch.tensor(item["prompt"])
        batch_data["prompt"].append(prompt)
        for key in ["chosen", "rejected"]:
            sequence = item[key]
            padded = sequence + [pad_token_id] * (max_length_common - len(sequence))
            mask = torch.ones(len(padded)).bool()
            mask[len(sequence):] = False
            # +2 sets the 2 newline ("\n") tokens before "### Response" to False
            if mask_prompt_tokens:
                mask[:prompt.shape[0] + 2] = False
            batch_data[key].append(torch.tensor(padded))
            batch_data[f"{key}_mask"].append(mask)
    for key in ["chosen", "rejected", "chosen_mask", "rejected_mask"]:
        tensor_stack = torch.stack(batch_data[key])
        if allowed_max_length is not None:
            tensor_stack = tensor_stack[:, :allowed_max_length]
        batch_data[key] = tensor_stack.to(device)
    return batch_data


def compute_dpo_loss(model_chosen_logprobs, model_rejected_logprobs, reference_chosen_logprobs,
                     reference_rejected_logprobs, beta=0.1):
    model_logratios = model_chosen_logprobs - model_rejected_logprobs
    reference_logratios = reference_chosen_logprobs - reference_rejected_logprobs
    logits = model_logratios - reference_logratios
    # DPO (Eq. 7 of https://arxiv.org/pdf/2305.18290.pdf)
    losses = -F.logsigmoid(beta * logits)
    chosen_rewards = (model_chosen_logprobs - reference_chosen_logprobs).detach()
    rejected_rewards = (model_rejected_logprobs - reference_rejected_logprobs).detach()
    return losses.mean(), chosen_rewards.mean(), rejected_rewards.mean()


def compute_logprobs(logits, labels, selection_mask=None):
    labels = labels[:, 1:].clone()
    logits = logits[:, :-1, :]
    log_probs = F.log_softmax(logits, dim=-1)
    selected_log_probs = torch.gather(input=log_probs, dim=-1, index=labels.unsqueeze(-1)).squeeze(-1)
    if selection_mask is not None:
        mask = selection_mask[:, 1:].clone()
        selected_log_probs = selected_log_probs * mask
        return selected_log_probs.sum(-1) / mask.sum(-1)
    return selected_log_probs.mean(-1)


def compute_dpo_loss_batch(batch, policy_model, reference_model, beta):
    policy_chosen_log_probas = compute_logprobs(logits=policy_model(batch["chosen"]), labels=batch["chosen"],
                                                selection_mask=batch["chosen_mask"])
    policy_rejected_log_probas = compute_logprobs(logits=policy_model(batch["rejected"]), labels=batch["rejected"],
                                                  selection_mask=batch["rejected_mask"])
    with torch.no_grad():
        ref_chosen_log_probas = compute_logprobs(logits=reference_model(batch["chosen"]), labels=batch["chosen"],
                                                 selection_mask=batch["chosen_mask"])
        ref_rejected_log_probas = compute_logprobs(logits=reference_model(batch["rejected"]),
                                                   labels=batch["rejected"], selection_mask=batch["rejected_mask"])
    return compute_dpo_loss(model_chosen_logprobs=policy_chosen_log_probas,
                            model_rejected_logprobs=policy_rejected_log_probas,
                            reference_chosen_logprobs=ref_chosen_log_probas,
                            reference_rejected_logprobs=ref_rejected_log_probas, beta=beta)


def compute_dpo_loss_loader(data_loader, policy_model, reference_model, beta, num_batches=None):
    total_loss, total_chosen_rewards, total_rejected_rewards = 0., 0., 0.
    if len(data_loader) == 0:
        return float("nan")
    elif num_batches is None:
        num_batches = len(data_loader)
    else:
        num_batches = min(num_batches, len(data_loader))
    for i, batch in enumerate(data_loader):
        if i < num_batches:
            loss, chosen_rewards, rejected_rewards = compute_dpo_loss_batch(
                batch=batch, policy_model=policy_model, reference_model=reference_model, beta=beta)
            total_loss += loss.item()
            total_chosen_rewards += chosen_rewards.item()
            total_rejected_rewards += rejected_rewards.item()
        else:
            break
    return total_loss / num_batches, total_chosen_rewards / num_batches, total_rejected_rewards / num_batches


def evaluate_dpo_loss_loader(policy_model, reference_model, train_loader, val_loader, beta, eval_iter):
    policy_model.eval()
    with torch.no_grad():
        train_loss, train_chosen_rewards, train_rejected_rewards = compute_dpo_loss_loader(
            data_loader=train_loader, policy_model=policy_model, reference_model=reference_model,
            beta=beta, num_batches=eval_iter)
        val_loss, val_chosen_rewards, val_rejected_rewards = compute_dpo_loss_loader(
            data_loader=val_loader, policy_model=policy_model, reference_model=reference_model,
            beta=beta, num_batches=eval_iter)
    res = {"train_loss": train_loss, "train_chosen_reward": train_chosen_rewards,
           "train_rejected_reward": train_rejected_rewards, "val_loss": val_loss,
           "val_chosen_reward": val_chosen_rewards, "val_rejected_reward": val_rejected_rewards}
    policy_model.train()
    return res


def train_model_dpo_simple(policy_model, reference_model, train_loader, val_loader, optimizer, num_epochs, beta,
                           eval_freq, eval_iter):
    tracking = {"train_losses": [], "train_chosen_rewards": [], "train_rejected_rewards": [],
                "val_losses": [], "val_chosen_rewards": [], "val_rejected_rewards": [], "tokens_seen": []}
    tokens_seen, global_step = 0, -1
    for epoch in range(num_epochs):
        policy_model.train()
        for batch in train_loader:
            optimizer.zero_grad()
            loss, chosen_rewards, rejected_rewards = compute_dpo_loss_batch(
                batch=batch, policy_model=policy_model, reference_model=reference_model, beta=beta)
            loss.backward()
            optimizer.step()
            tokens_seen += batch["chosen"].numel()
            global_step += 1
            if global_step % eval_freq == 0:
                res = evaluate_dpo_loss_loader(policy_model=policy_model, reference_model=reference_model,
                                               train_loader=train_loader, val_loader=val_loader, beta=beta,
                                               eval_iter=eval_iter)
                for k in ("train_loss", "train_chosen_reward", "train_rejected_reward", "val_loss",
                          "val_chosen_reward", "val_rejected_reward"):
                    tracking[k.replace("loss", "losses").replace("reward", "rewards")].append(res[k])
                tracking["tokens_seen"].append(tokens_seen)
                print(f"Ep {epoch+1} (Step {global_step:06d}): "
                      f"Train loss {res['train_loss']:.3f}, Val loss {res['val_loss']:.3f}, "
                      f"Train reward margins {res['train_chosen_reward'] - res['train_rejected_reward']:.3f}")
    return tracking


def extract_response(response_text, input_text):
    return response_text[len(input_text):].replace("### Response:", "").strip()


# ---------------------------------------------------------------- the run
colours = ["red", "blue", "green", "black", "white"]
data = [{"instruction": f"Name the colour {c}.", "input": "" if i % 2 else "politely",
         "output": f"It is {c}.", "chosen": f"It is {c}.", "rejected": f"no {c}!"}
        for i, c in enumerate(colours * 2)]
alphabet = "".join(format_input(e) + "\n\n### Response:\n" + e["chosen"] + e["rejected"] for e in data)
tokenizer = CharTokenizer(alphabet)
pad = tokenizer.eot

BASE_CONFIG = {"vocab_size": tokenizer.eot + 1, "context_length": 192, "emb_dim": 16, "n_heads": 2,
               "n_layers": 1, "drop_rate": 0.0, "qkv_bias": True}
device = torch.device("cpu")
customized_collate_fn = partial(custom_collate_fn, pad_token_id=pad, device=device,
                                mask_prompt_tokens=True, allowed_max_length=BASE_CONFIG["context_length"])

# the collate function on two entries
example = PreferenceDataset(data[:2], tokenizer)
batch = customized_collate_fn([example[0], example[1]])
assert batch["chosen"].shape == batch["rejected"].shape == batch["chosen_mask"].shape
assert batch["chosen_mask"].dtype == torch.bool and batch["chosen"].dtype == torch.long
L0 = len(example[0]["chosen"])
assert batch["chosen"].shape[1] == max(len(example[i][k]) for i in range(2) for k in ("chosen", "rejected")) + 1
assert (batch["chosen"][0, L0:] == pad).all() and not batch["chosen_mask"][0, L0:].any()
P0 = len(example[0]["prompt"])
assert not batch["chosen_mask"][0, :P0 + 2].any() and batch["chosen_mask"][0, P0 + 2:L0].all()
assert tokenizer.decode(batch["chosen"][0][batch["chosen_mask"][0]].tolist()) == "### Response:\n" + data[0]["chosen"]
short = custom_collate_fn([example[0]], pad_token_id=pad, allowed_max_length=20)
assert short["chosen"].shape == (1, 20) and len(short["prompt"]) == 1

# supervised fine-tuning on the chosen answers gives the reference model
torch.manual_seed(123)
model = GPTModel(BASE_CONFIG)
sft_batch = customized_collate_fn(list(PreferenceDataset(data, tokenizer)), mask_prompt_tokens=False)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
sft_losses = []
for step in range(15):
    logits = model(sft_batch["chosen"][:, :-1])
    targets = sft_batch["chosen"][:, 1:].masked_fill(~sft_batch["chosen_mask"][:, 1:], -100)
    loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    sft_losses.append(loss.item())
assert sft_losses[-1] < 0.75 * sft_losses[0], sft_losses
torch.save(model.state_dict(), "gpt-toy-sft.pth")

policy_model = model
reference_model = GPTModel(BASE_CONFIG)
reference_model.load_state_dict(torch.load("gpt-toy-sft.pth", map_location=torch.device("cpu"), weights_only=True))
reference_model.eval()
policy_model.to(device)
reference_model.to(device)
os.remove("gpt-toy-sft.pth")

# compute_logprobs against a plain loop
with torch.no_grad():
    lg = policy_model(batch["chosen"])
    got = compute_logprobs(lg, batch["chosen"], batch["chosen_mask"])
    for row in range(2):
        lp = torch.log_softmax(lg[row], dim=-1)
        picks = [lp[t - 1, batch["chosen"][row, t]].item() for t in range(1, lg.shape[1]) if batch["chosen_mask"][row, t]]
        assert abs(got[row].item() - sum(picks) / len(picks)) < 1e-5
    assert compute_logprobs(lg, batch["chosen"]).shape == (2,)
    # policy == reference: every reward is zero and the loss is log 2
    loss0, cr0, rr0 = compute_dpo_loss_batch(batch, policy_model, reference_model, beta=0.1)
assert abs(loss0.item() - 0.6931472) < 1e-5 and cr0.item() == 0.0 and rr0.item() == 0.0

torch.manual_seed(123)
train_loader = DataLoader(PreferenceDataset(data[:8], tokenizer), batch_size=2, collate_fn=customized_collate_fn,
                          shuffle=True, drop_last=True, num_workers=0)
val_loader = DataLoader(PreferenceDataset(data[8:], tokenizer), batch_size=2, collate_fn=customized_collate_fn,
                        shuffle=False, drop_last=False, num_workers=0)
assert len(train_loader) == 4 and len(val_loader) == 1

optimizer = torch.optim.AdamW(policy_model.parameters(), lr=2e-3, weight_decay=0.01)
tracking = train_model_dpo_simple(policy_model=policy_model, reference_model=reference_model,
                                  train_loader=train_loader, val_loader=val_loader, optimizer=optimizer,
                                  num_epochs=3, beta=0.1, eval_freq=4, eval_iter=1)
assert len(tracking["train_losses"]) == 3 and tracking["tokens_seen"][0] > 0
margins = [c - r for c, r in zip(tracking["train_chosen_rewards"], tracking["train_rejected_rewards"])]
assert margins[-1] > margins[0] and margins[-1] > 0, margins
assert tracking["train_losses"][-1] < 0.6931, tracking["train_losses"]
assert all(p.grad is None for p in reference_model.parameters())

# the aligned model answers the chosen way
entry = data[0]
input_text = format_input(entry) + "\n\n### Response:\n"
token_ids = generate(model=policy_model, idx=text_to_token_ids(input_text, tokenizer).to(device),
                     max_new_tokens=12, context_size=BASE_CONFIG["context_length"], eos_id=pad)
response_text = extract_response(token_ids_to_text(token_ids, tokenizer), input_text)
assert token_ids.shape[1] <= len(input_text) + 12
print("dpo ok", [round(v, 4) for v in tracking["train_losses"]], [round(m, 3) for m in margins], repr(response_text))
