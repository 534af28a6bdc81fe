"""Sebastian Raschka's "Memory-efficient Model Weight Loading" (LLMs-from-scratch
ch05/08_memory_efficient_weight_loading/memory-efficient-state-dict.ipynb) at toy size on the
CPU: the chapter-4 GPTModel saved with torch.save(model.state_dict()), then loaded the ways the
notebook compares: load_state_dict(torch.load(map_location=..., weights_only=True)) before or
after model.to(device); copying parameter by parameter with param.copy_(state_dict[name]) under
torch.no_grad(); building under `with torch.device("meta"):` then model.to_empty(device=...) and
copying; the recommended torch.load(..., mmap=True) + load_state_dict(assign=True) into a meta
model; and one file per parameter (torch.save(param.cpu(), f"model_parameters/{name}.pt")), each
load measured with the notebook's psutil RSS sampling thread. The CUDA memory calls run only
where CUDA is. Found on the way: the copy loops walk named_parameters() only, so after
to_empty the causal-mask buffers stay uninitialised: here they are copied too."""
import gc
import os
import time
from threading import Thread

import psutil
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
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
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(d_in=cfg["emb_dim"], d_out=cfg["emb_dim"], context_length=cfg["context_length"],
                                      num_heads=cfg["n_heads"], dropout=cfg["drop_rate"], qkv_bias=cfg["qkv_bias"])
        self.ff = nn.Sequential(nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), GELU(),
                                nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):
        x = x + self.drop_shortcut(self.att(self.norm1(x)))
        return x + self.drop_shortcut(self.ff(self.norm2(x)))


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
        x = self.tok_emb(in_idx) + self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        x = self.trf_blocks(self.drop_emb(x))
        return self.out_head(self.final_norm(x))


def start_memory_tracking():
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()


def print_memory_usage():
    if torch.cuda.is_available():
        print(f"Maximum GPU memory allocated: {torch.cuda.max_memory_allocated() / (1024 ** 3):.1f} GB")


def memory_usage_in_gb(func, *args, **kwargs):
    process = psutil.Process(os.getpid())
    baseline_mem = process.memory_info().rss / 1024 ** 3
    mem_usage = []
    done = False

    def monitor_memory():
        while not done:
            mem_usage.append(process.memory_info().rss / 1024 ** 3)
            time.sleep(0.01)

    t = Thread(target=monitor_memory)
    t.start()
    result = func(*args, **kwargs)
    done = True
    t.join()
    return max(mem_usage + [baseline_mem]) - baseline_mem, result


BASE_CONFIG = {"vocab_size": 64, "context_length": 16, "drop_rate": 0.0, "qkv_bias": True,
               "emb_dim": 32, "n_layers": 2, "n_heads": 4}
device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
device = torch.device("cpu")         # the toy run stays on the CPU everywhere

torch.manual_seed(123)
model = GPTModel(BASE_CONFIG)
model.to(device)
test_input = torch.tensor([[1, 2, 3]]).to(device)
model.eval()
with torch.no_grad():
    reference = model(test_input)
model.train()
torch.save(model.state_dict(), "model.pth")
saved = model.state_dict()
assert "trf_blocks.0.att.mask" in saved
del model
gc.collect()


def check(model, what):
    model.eval()
    with torch.no_grad():
        out = model(test_input)
    assert torch.allclose(out, reference, atol=1e-6), what
    return model


def baseline():
    start_memory_tracking()
    model = GPTModel(BASE_CONFIG)
    model.to(device)
    model.load_state_dict(torch.load("model.pth", map_location=device, weights_only=True))
    model.to(device)
    model.eval()
    print_memory_usage()
    return model


def load_on_cpu_first():
    model = GPTModel(BASE_CONFIG)
    model.load_state_dict(torch.load("model.pth", map_location="cpu", weights_only=True))
    model.to(device)
    return model


def load_sequentially():
    start_memory_tracking()
    model = GPTModel(BASE_CONFIG).to(device)
    state_dict = torch.load("model.pth", map_location="cpu", weights_only=True)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name in state_dict:
                param.copy_(state_dict[name].to(device))
            else:
                print(f"Warning: {name} not found in state_dict.")
    print_memory_usage()
    return model


def load_sequentially_with_meta():
    start_memory_tracking()
    with torch.device("meta"):
        model = GPTModel(BASE_CONFIG)
    assert model.out_head.weight.device.type == "meta" and model.trf_blocks[0].att.mask.device.type == "meta"
    model = model.to_empty(device=device)
    state_dict = torch.load("model.pth", map_location=device, weights_only=True)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name in state_dict:
                param.copy_(state_dict[name])
            else:
                print(f"Warning: {name} not found in state_dict.")
    print_memory_usage()
    return model, state_dict


def best_practices():
    with torch.device("meta"):
        model = GPTModel(BASE_CONFIG)
    model.load_state_dict(torch.load("model.pth", map_location=device, weights_only=True, mmap=True), assign=True)
    print_memory_usage()
    return model


for fn in (baseline, load_on_cpu_first, load_sequentially):
    peak, model = memory_usage_in_gb(fn)
    assert peak >= 0.0
    check(model, fn.__name__)
    print(f"{fn.__name__}: -> Maximum CPU memory allocated: {peak:.3f} GB")

peak, (model, state_dict) = memory_usage_in_gb(load_sequentially_with_meta)
assert all(p.device.type == device.type for p in model.parameters())
for name, param in model.named_parameters():
    assert torch.equal(param, saved[name]), name
# the parameters are back, but to_empty left the (persistent) mask buffers uninitialised:
# copy the buffers as well before using the model
with torch.no_grad():
    for name, buf in model.named_buffers():
        buf.copy_(state_dict[name])
check(model, "meta + to_empty")

peak, model = memory_usage_in_gb(best_practices)
assert model.tok_emb.weight.device.type == device.type and model.tok_emb.weight.requires_grad
assert isinstance(model.tok_emb.weight, nn.Parameter)
check(model, "meta + mmap + assign")

# one file per parameter
model = GPTModel(BASE_CONFIG)
model.load_state_dict(saved)
state_dict = model.state_dict()
os.makedirs("model_parameters", exist_ok=True)
for name, param in state_dict.items():
    torch.save(param.cpu(), f"model_parameters/{name}.pt")
del model


def load_individual_weights():
    start_memory_tracking()
    with torch.device("meta"):
        model = GPTModel(BASE_CONFIG)
    model = model.to_empty(device=device)
    param_dir = "model_parameters"
    with torch.no_grad():
        for name, param in model.named_parameters():
            weight_path = os.path.join(param_dir, f"{name}.pt")
            if os.path.exists(weight_path):
                param_data = torch.load(weight_path, map_location="cpu", weights_only=True)
                param.copy_(param_data)
                del param_data
            else:
                print(f"Warning: {name} not found in {param_dir}.")
        for name, buf in model.named_buffers():      # the masks, as above
            buf.copy_(torch.load(os.path.join(param_dir, f"{name}.pt"), weights_only=True))
    print_memory_usage()
    return model


peak, model = memory_usage_in_gb(load_individual_weights)
check(model, "one file per parameter")
assert len(os.listdir("model_parameters")) == len(saved)
print("memory-efficient loading ok", len(saved), "tensors")
