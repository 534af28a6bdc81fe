"""Sebastian Raschka's "Build a Large Language Model (From Scratch)", chapter 5: text_to_token_ids
(torch.tensor(encoded).unsqueeze(0)), token_ids_to_text (squeeze(0).tolist()), calc_loss_batch
with logits.flatten(0, 1) and target_batch.flatten(), calc_loss_loader over DataLoaders with
num_batches, evaluate_model under model.eval() + torch.no_grad(), train_model_simple with
AdamW(weight_decay=0.1), temperature scaling and top-k with torch.topk + torch.where(logits <
min_val, torch.tensor(float("-inf")).to(logits.device), logits), torch.multinomial, and saving /
loading {"model_state_dict", "optimizer_state_dict"} with torch.save / torch.load(weights_only)."""
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

GPT_CONFIG = {"vocab_size": 40, "context_length": 16, "emb_dim": 32, "n_heads": 2,
              "n_layers": 2, "drop_rate": 0.1, "qkv_bias": False}


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(cfg["emb_dim"], cfg["emb_dim"], cfg["context_length"],
                                      cfg["drop_rate"], cfg["n_heads"], cfg["qkv_bias"])
        self.ff = nn.Sequential(nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), nn.GELU(),
                                nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))
        self.norm1 = nn.LayerNorm(cfg["emb_dim"])
        self.norm2 = nn.LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):
        shortcut = x
        x = self.drop_shortcut(self.att(self.norm1(x)))
        x = x + shortcut
        shortcut = x
        x = self.drop_shortcut(self.ff(self.norm2(x)))
        return x + shortcut


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = nn.LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        tok_embeds = self.tok_emb(in_idx)
        pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        x = self.drop_emb(tok_embeds + pos_embeds)
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        return self.out_head(x)


text_data = "every effort moves you forward. every step counts. " * 10
chars = sorted(set(text_data))
stoi = {c: i for i, c in enumerate(chars)}
itos = {i: c for c, i in stoi.items()}


def text_to_token_ids(text):
    encoded = [stoi[c] for c in text]
    return torch.tensor(encoded).unsqueeze(0)  # add batch dimension


def token_ids_to_text(token_ids):
    flat = token_ids.squeeze(0)  # remove batch dimension
    return "".join(itos[i] for i in flat.tolist())


class GPTDatasetV1(Dataset):
    def __init__(self, txt, max_length, stride):
        ids = [stoi[c] for c in txt]
        self.input_ids, self.target_ids = [], []
        for i in range(0, len(ids) - max_length, stride):
            self.input_ids.append(torch.tensor(ids[i:i + max_length]))
            self.target_ids.append(torch.tensor(ids[i + 1:i + max_length + 1]))

    def __len__(self):
        return len(self.input_ids)

    def __getitem__(self, idx):
        return self.input_ids[idx], self.target_ids[idx]


def calc_loss_batch(input_batch, target_batch, model, device):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)
    logits = model(input_batch)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())
    return loss


def calc_loss_loader(data_loader, model, device, num_batches=None):
    total_loss = 0.
    if len(data_loader) == 0:
        return float("nan")
    elif num_batches is None:
        num_batches = len(data_loader)
    else:
        num_batches = min(num_batches, len(data_loader))
    for i, (input_batch, target_batch) in enumerate(data_loader):
        if i < num_batches:
            loss = calc_loss_batch(input_batch, target_batch, model, device)
            total_loss += loss.item()
        else:
            break
    return total_loss / num_batches


def evaluate_model(model, train_loader, val_loader, device, eval_iter):
    model.eval()
    with torch.no_grad():
        train_loss = calc_loss_loader(train_loader, model, device, num_batches=eval_iter)
        val_loss = calc_loss_loader(val_loader, model, device, num_batches=eval_iter)
    model.train()
    return train_loss, val_loss


def generate_text_simple(model, idx, max_new_tokens, context_size):
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        logits = logits[:, -1, :]
        idx_next = torch.argmax(logits, dim=-1, keepdim=True)
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


def train_model_simple(model, train_loader, val_loader, optimizer, device, num_epochs,
                       eval_freq, eval_iter, start_context):
    train_losses, val_losses, track_tokens_seen = [], [], []
    tokens_seen, global_step = 0, -1
    for epoch in range(num_epochs):
        model.train()
        for input_batch, target_batch in train_loader:
            optimizer.zero_grad()
            loss = calc_loss_batch(input_batch, target_batch, model, device)
            loss.backward()
            optimizer.step()
            tokens_seen += input_batch.numel()
            global_step += 1
            if global_step % eval_freq == 0:
                train_loss, val_loss = evaluate_model(model, train_loader, val_loader, device, eval_iter)
                train_losses.append(train_loss)
                val_losses.append(val_loss)
                track_tokens_seen.append(tokens_seen)
                print(f"Ep {epoch+1} (Step {global_step:06d}): "
                      f"Train loss {train_loss:.3f}, Val loss {val_loss:.3f}")
        model.eval()
        encoded = text_to_token_ids(start_context).to(device)
        with torch.no_grad():
            token_ids = generate_text_simple(model, encoded, 10, GPT_CONFIG["context_length"])
        print(token_ids_to_text(token_ids).replace("\n", " "))
        model.train()
    return train_losses, val_losses, track_tokens_seen


GPT_CONFIG["vocab_size"] = len(chars)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(123)
model = GPTModel(GPT_CONFIG)
model.eval()

inputs = torch.tensor([[1, 2, 3], [4, 5, 6]])
targets = torch.tensor([[2, 3, 4], [5, 6, 7]])
with torch.no_grad():
    logits = model(inputs)
probas = torch.softmax(logits, dim=-1)
print(probas.shape)
token_ids = torch.argmax(probas, dim=-1, keepdim=True)
print("Token IDs:\n", token_ids)
text_idx = 0
target_probas_1 = probas[text_idx, [0, 1, 2], targets[text_idx]]
print("Text 1:", target_probas_1)
log_probas = torch.log(torch.cat((target_probas_1, probas[1, [0, 1, 2], targets[1]])))
avg_log_probas = torch.mean(log_probas)
neg_avg_log_probas = avg_log_probas * -1
loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
print(neg_avg_log_probas, loss)
assert torch.allclose(neg_avg_log_probas, loss)
perplexity = torch.exp(loss)
print(perplexity)

split_idx = int(0.9 * len(text_data))
train_loader = DataLoader(GPTDatasetV1(text_data[:split_idx], 16, 16), batch_size=2,
                          shuffle=True, drop_last=True, num_workers=0)
val_loader = DataLoader(GPTDatasetV1(text_data[split_idx:], 16, 16), batch_size=2,
                        shuffle=False, drop_last=False, num_workers=0)
print("Train loader:")
for x, y in train_loader:
    print(x.shape, y.shape)
    break
model.to(device)
with torch.no_grad():
    train_loss = calc_loss_loader(train_loader, model, device)
    val_loss = calc_loss_loader(val_loader, model, device)
print("Training loss:", round(train_loss, 3))
print("Validation loss:", round(val_loss, 3))

torch.manual_seed(123)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.004, weight_decay=0.1)
train_losses, val_losses, tokens_seen = train_model_simple(
    model, train_loader, val_loader, optimizer, device, num_epochs=3, eval_freq=5, eval_iter=2,
    start_context="every effort")
assert train_losses[-1] < train_losses[0]
print(tokens_seen)

# temperature scaling and top-k
next_token_logits = torch.tensor([4.51, 0.89, -1.90, 6.75, 1.63, -1.62, -1.89, 6.28, 1.79])
probas = torch.softmax(next_token_logits, dim=0)
next_token_id = torch.argmax(probas).item()
print(next_token_id)
torch.manual_seed(123)
next_token_id = torch.multinomial(probas, num_samples=1).item()
print(next_token_id)


def print_sampled_tokens(probas):
    torch.manual_seed(123)
    sample = [torch.multinomial(probas, num_samples=1).item() for i in range(1_000)]
    sampled_ids = torch.bincount(torch.tensor(sample), minlength=len(probas))
    for i, freq in enumerate(sampled_ids):
        print(f"{freq} x {i}")
    return sampled_ids


counts = print_sampled_tokens(probas)
assert counts.sum().item() == 1000


def softmax_with_temperature(logits, temperature):
    scaled_logits = logits / temperature
    return torch.softmax(scaled_logits, dim=0)


temperatures = [1, 0.1, 5]
scaled_probas = [softmax_with_temperature(next_token_logits, T) for T in temperatures]
print(torch.stack(scaled_probas))
top_k = 3
top_logits, top_pos = torch.topk(next_token_logits, top_k)
print("Top logits:", top_logits)
print("Top positions:", top_pos)
new_logits = torch.where(condition=next_token_logits < top_logits[-1],
                         input=torch.tensor(float("-inf")), other=next_token_logits)
print(new_logits)
topk_probas = torch.softmax(new_logits, dim=0)
print(topk_probas)


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
            logits = logits / temperature
            probs = torch.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
        else:
            idx_next = torch.argmax(logits, dim=-1, keepdim=True)
        if idx_next == eos_id:
            break
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


torch.manual_seed(123)
token_ids = generate(model=model, idx=text_to_token_ids("every effort").to(device),
                     max_new_tokens=15, context_size=GPT_CONFIG["context_length"], top_k=5,
                     temperature=1.4)
print("Output text:\n", token_ids_to_text(token_ids))
assert token_ids.shape == (1, 12 + 15)

torch.save({"model_state_dict": model.state_dict(),
            "optimizer_state_dict": optimizer.state_dict()}, "model_and_optimizer.pth")
checkpoint = torch.load("model_and_optimizer.pth", weights_only=True)
model2 = GPTModel(GPT_CONFIG)
model2.load_state_dict(checkpoint["model_state_dict"])
optimizer2 = torch.optim.AdamW(model2.parameters(), lr=0.0005, weight_decay=0.1)
optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
model2.train()
print(optimizer2.param_groups[0]["lr"], len(optimizer2.state))
assert optimizer2.param_groups[0]["lr"] == 0.004
model.eval()
model2.eval()
x = text_to_token_ids("every step")
assert torch.equal(model(x), model2(x))
