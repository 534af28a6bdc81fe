"""Sebastian Raschka's "PyTorch Performance Tips for Faster LLM Training" single-device script
(LLMs-from-scratch ch05/10_llm-training-speed/01_opt_single_gpu.py) at toy size on a synthetic
text with a character tokenizer standing in for tiktoken: GPTDatasetV1 (encode(txt,
allowed_special={"<|endoftext|>"}), sliding windows by stride), the DataLoader with
pin_memory=True, PyTorchMultiHeadAttention with one fused qkv Linear, qkv.view(b, n, 3, heads,
head_dim).permute(2, 0, 3, 1, 4) unpacked as `queries, keys, values = qkv`,
F.scaled_dot_product_attention(dropout_p=... if self.training, is_causal=True), nn.GELU(
approximate="tanh"), nn.LayerNorm, the vocabulary padded to a multiple of 64, torch.compile(
model) followed by model.to(device).to(torch.bfloat16), AdamW(fused=True),
torch.set_float32_matmul_precision("high") behind the CUDA capability check, the training loop
with time.time() intervals and tokens/sec, evaluate_model, generate_text_simple, and
plot_losses with torch.linspace and matplotlib (saved to a file). Two settings differ:
num_workers=0 (the script uses 4) and torch.compile's backend="eager" (no C++ compiler
needed in a test)."""
import time

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.utils.data import DataLoader, Dataset  # noqa: E402


class CharTokenizer:
    """Stands in for tiktoken.get_encoding("gpt2")."""

    def __init__(self, text):
        self.chars = sorted(set(text))

    def encode(self, text, allowed_special=None):
        return [self.chars.index(c) for c in text]

    def decode(self, ids):
        return "".join(self.chars[i] if i < len(self.chars) else "?" for i in ids)


class GPTDatasetV1(Dataset):
    def __init__(self, txt, tokenizer, max_length, stride):
        self.input_ids = []
        self.target_ids = []
        token_ids = tokenizer.encode(txt, allowed_special={"<|endoftext|>"})
        for i in range(0, len(token_ids) - max_length, stride):
            input_chunk = token_ids[i:i + max_length]
            target_chunk = token_ids[i + 1: i + max_length + 1]
            self.input_ids.append(torch.tensor(input_chunk))
            self.target_ids.append(torch.tensor(target_chunk))

    def __len__(self):
        return len(self.input_ids)

    def __getitem__(self, idx):
        return self.input_ids[idx], self.target_ids[idx]


def create_dataloader_v1(txt, tokenizer, batch_size=4, max_length=256, stride=128, shuffle=True, drop_last=True,
                         num_workers=0):
    dataset = GPTDatasetV1(txt, tokenizer, max_length, stride)
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last, num_workers=num_workers,
                      pin_memory=torch.cuda.is_available())


class PyTorchMultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, num_heads, dropout=0.0, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out is indivisible by num_heads"
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.d_out = d_out
        self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)
        self.proj = nn.Linear(d_out, d_out)
        self.dropout = dropout

    def forward(self, x):
        batch_size, num_tokens, embed_dim = x.shape
        qkv = self.qkv(x)
        qkv = qkv.view(batch_size, num_tokens, 3, self.num_heads, self.head_dim)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        queries, keys, values = qkv
        use_dropout = 0. if not self.training else self.dropout
        context_vec = nn.functional.scaled_dot_product_attention(
            queries, keys, values, attn_mask=None, dropout_p=use_dropout, is_causal=True)
        context_vec = context_vec.transpose(1, 2).contiguous().view(batch_size, num_tokens, self.d_out)
        return self.proj(context_vec)


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), nn.GELU(approximate="tanh"),
                                    nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))

    def forward(self, x):
        return self.layers(x)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = PyTorchMultiHeadAttention(d_in=cfg["emb_dim"], d_out=cfg["emb_dim"], num_heads=cfg["n_heads"],
                                             dropout=cfg["drop_rate"], qkv_bias=cfg["qkv_bias"])
        self.ff = FeedForward(cfg)
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


def generate_text_simple(model, idx, max_new_tokens, context_size):
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        idx_next = torch.argmax(logits[:, -1, :], dim=-1, keepdim=True)
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


def text_to_token_ids(text, tokenizer):
    return torch.tensor(tokenizer.encode(text)).unsqueeze(0)


def token_ids_to_text(token_ids, tokenizer):
    return tokenizer.decode(token_ids.squeeze(0).tolist())


def calc_loss_batch(input_batch, target_batch, model, device):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)
    logits = model(input_batch)
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())


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
            total_loss += calc_loss_batch(input_batch, target_batch, model, device).item()
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


def generate_and_print_sample(model, tokenizer, device, start_context, context_size):
    model.eval()
    encoded = text_to_token_ids(start_context, tokenizer).to(device)
    with torch.no_grad():
        token_ids = generate_text_simple(model=model, idx=encoded, max_new_tokens=20, context_size=context_size)
    decoded_text = token_ids_to_text(token_ids, tokenizer)
    print(decoded_text.replace("\n", " "))
    model.train()
    return decoded_text


def train_model_simple_with_timing(model, train_loader, val_loader, optimizer, device, num_epochs, eval_freq,
                                   eval_iter, start_context, tokenizer, context_size):
    train_losses, val_losses, track_tokens = [], [], []
    total_tokens, global_step, last_tokens = 0, -1, 0
    cumulative_tokens, cumulative_time = 0.0, 0.0
    use_cuda = device.type == "cuda"
    if use_cuda:
        t_start = torch.cuda.Event(enable_timing=True)
        t_end = torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        t_start.record()
    else:
        t0 = time.time()
    for epoch in range(num_epochs):
        model.train()
        for inp_batch, tgt_batch in train_loader:
            optimizer.zero_grad()
            global_step += 1
            loss = calc_loss_batch(inp_batch, tgt_batch, model, device)
            loss.backward()
            optimizer.step()
            total_tokens += inp_batch.numel()
            if global_step % eval_freq == 0:
                if use_cuda:
                    t_end.record()
                    torch.cuda.synchronize()
                    elapsed = t_start.elapsed_time(t_end) / 1000
                    t_start.record()
                else:
                    elapsed = time.time() - t0
                    t0 = time.time()
                tokens_interval = total_tokens - last_tokens
                last_tokens = total_tokens
                tps = tokens_interval / elapsed if elapsed > 0 else 0
                if global_step:
                    cumulative_tokens += tokens_interval
                    cumulative_time += elapsed
                avg_tps = cumulative_tokens / cumulative_time if cumulative_time > 0 else 0
                train_loss, val_loss = evaluate_model(model, train_loader, val_loader, device, eval_iter)
                train_losses.append(train_loss)
                val_losses.append(val_loss)
                track_tokens.append(total_tokens)
                print(f"Ep {epoch+1}, Step {global_step:06d}, Train: {train_loss:.3f}, Val: {val_loss:.3f}, "
                      f"Step tok/sec: {round(tps)}, Avg tok/sec: {round(avg_tps)}")
        generate_and_print_sample(model, tokenizer, device, start_context, context_size)
    return train_losses, val_losses, track_tokens


def plot_losses(epochs_seen, tokens_seen, train_losses, val_losses):
    fig, ax1 = plt.subplots()
    ax1.plot(epochs_seen, train_losses, label="Training loss")
    ax1.plot(epochs_seen, val_losses, linestyle="-.", label="Validation loss")
    ax1.set_xlabel("Epochs")
    ax1.set_ylabel("Loss")
    ax1.legend(loc="upper right")
    ax2 = ax1.twiny()
    ax2.plot(tokens_seen, train_losses, alpha=0)
    ax2.set_xlabel("Tokens seen")
    fig.tight_layout()


def main(gpt_config, settings, text_data, tokenizer):
    torch.manual_seed(123)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device("cpu")                # the toy run stays on the CPU everywhere
    print(f"PyTorch version: {torch.__version__}")
    if torch.cuda.is_available():
        capability = torch.cuda.get_device_capability()
        if capability[0] >= 7:
            torch.set_float32_matmul_precision("high")
    model = GPTModel(gpt_config)
    model = torch.compile(model, backend="eager")
    model.to(device).to(torch.bfloat16)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings["learning_rate"],
                                  weight_decay=settings["weight_decay"], fused=True)
    train_ratio = 0.90
    split_idx = int(train_ratio * len(text_data))
    train_loader = create_dataloader_v1(text_data[:split_idx], tokenizer, batch_size=settings["batch_size"],
                                        max_length=gpt_config["context_length"], stride=gpt_config["context_length"],
                                        drop_last=True, shuffle=True, num_workers=0)
    val_loader = create_dataloader_v1(text_data[split_idx:], tokenizer, batch_size=settings["batch_size"],
                                      max_length=gpt_config["context_length"], stride=gpt_config["context_length"],
                                      drop_last=False, shuffle=False, num_workers=0)
    train_losses, val_losses, tokens_seen = train_model_simple_with_timing(
        model=model, train_loader=train_loader, val_loader=val_loader, optimizer=optimizer, device=device,
        num_epochs=settings["num_epochs"], eval_freq=4, eval_iter=1, start_context="Every effort moves",
        tokenizer=tokenizer, context_size=gpt_config["context_length"])
    return train_losses, val_losses, tokens_seen, model, train_loader


text_data = "Every effort moves you forward, and every step counts. " * 20
tokenizer = CharTokenizer(text_data)
vocab = len(tokenizer.chars)
GPT_CONFIG = {
    "vocab_size": ((vocab + 63) // 64) * 64,   # padded, as 50257 -> 50304
    "context_length": 32, "emb_dim": 32, "n_heads": 4, "n_layers": 2, "drop_rate": 0.1, "qkv_bias": False,
}
OTHER_SETTINGS = {"learning_rate": 5e-3, "num_epochs": 3, "batch_size": 8, "weight_decay": 0.1}

torch.manual_seed(0)
attn = PyTorchMultiHeadAttention(8, 8, num_heads=2).eval()
x = torch.randn(2, 5, 8)
qkv = attn.qkv(x).view(2, 5, 3, 2, 4).permute(2, 0, 3, 1, 4)
q, k, v = qkv
assert q.shape == (2, 2, 5, 4) and torch.equal(k, qkv[1])
manual = torch.softmax((q @ k.transpose(-1, -2)) / 2.0 + torch.full((5, 5), float("-inf")).triu(1), -1) @ v
assert torch.allclose(attn(x), attn.proj(manual.transpose(1, 2).reshape(2, 5, 8)), atol=1e-5)

train_losses, val_losses, tokens_seen, model, train_loader = main(GPT_CONFIG, OTHER_SETTINGS, text_data, tokenizer)
assert GPT_CONFIG["vocab_size"] == 64 and vocab < 64
assert next(model.parameters()).dtype == torch.bfloat16
assert all(p.dtype == torch.bfloat16 for p in model.parameters())
batch_x, batch_y = next(iter(train_loader))
assert batch_x.shape == (8, 32) and torch.equal(batch_x[:, 1:], batch_y[:, :-1])
assert len(train_losses) == len(val_losses) == len(tokens_seen) and tokens_seen == sorted(tokens_seen)
assert train_losses[-1] < train_losses[0], train_losses
epochs_tensor = torch.linspace(0, OTHER_SETTINGS["num_epochs"], len(train_losses))
assert epochs_tensor[0] == 0 and epochs_tensor[-1] == 3
plot_losses(epochs_tensor, tokens_seen, train_losses, val_losses)
plt.savefig("loss.png")
plt.close("all")
print("training speed ok", [round(v, 3) for v in train_losses])
