"""PyTorch tutorial "(Beta) Implementing High-Performance Transformers with Scaled Dot Product
Attention (SDPA)" (intermediate_source/scaled_dot_product_attention_tutorial.py) on the cpu at
toy sizes, without its NestedTensor, torch.compile and attn-bias-subclass cells:
F.scaled_dot_product_attention on (2, 3, 8) tensors, benchmark_torch_function_in_microseconds
with torch.utils.benchmark.Timer(...).blocked_autorange().mean, the sdpa_kernel(SDPBackend.MATH /
FLASH_ATTENTION / EFFICIENT_ATTENTION) sweep with its try/except RuntimeError, the nanoGPT-style
CausalSelfAttention (c_attn chunked into q, k, v, view + transpose(1, 2), is_causal only in
training), and the profiler cell (profile / record_function / key_averages().table); the results
are checked against attention written out by hand."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.benchmark as benchmark
from torch.nn.attention import SDPBackend, sdpa_kernel

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)

# Example Usage:
query, key, value = torch.randn(2, 3, 8, device=device), torch.randn(2, 3, 8, device=device), torch.randn(2, 3, 8, device=device)
out = F.scaled_dot_product_attention(query, key, value)
by_hand = torch.softmax(query @ key.transpose(-2, -1) / math.sqrt(8), dim=-1) @ value
assert out.shape == (2, 3, 8) and torch.allclose(out, by_hand, atol=1e-6)


def benchmark_torch_function_in_microseconds(f, *args, **kwargs):
    t0 = benchmark.Timer(
        stmt="f(*args, **kwargs)", globals={"args": args, "kwargs": kwargs, "f": f}
    )
    return t0.blocked_autorange(min_run_time=0.01).mean * 1e6


# Lets define the hyper-parameters of our input
batch_size = 2
max_sequence_len = 16
num_heads = 4
embed_dimension = 8

dtype = torch.float32

query = torch.rand(batch_size, num_heads, max_sequence_len, embed_dimension, device=device, dtype=dtype)
key = torch.rand(batch_size, num_heads, max_sequence_len, embed_dimension, device=device, dtype=dtype)
value = torch.rand(batch_size, num_heads, max_sequence_len, embed_dimension, device=device, dtype=dtype)

print(f"The default implementation runs in {benchmark_torch_function_in_microseconds(F.scaled_dot_product_attention, query, key, value):.3f} microseconds")
reference = F.scaled_dot_product_attention(query, key, value)
results = {}

with sdpa_kernel(SDPBackend.MATH):
    math_time=benchmark_torch_function_in_microseconds(F.scaled_dot_product_attention, query, key, value)
    print(f"The math implementation runs in {math_time:.3f} microseconds")
    results["math"] = F.scaled_dot_product_attention(query, key, value)

with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    try:
        flash_time=benchmark_torch_function_in_microseconds(F.scaled_dot_product_attention, query, key, value)
        print(f"The flash attention implementation runs in {flash_time:.3f} microseconds")
        results["flash"] = F.scaled_dot_product_attention(query, key, value)
    except RuntimeError:
        print("FlashAttention is not supported. See warnings for reasons.")

with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
    try:
        efficient_time=benchmark_torch_function_in_microseconds(F.scaled_dot_product_attention, query, key, value)
        print(f"The memory efficient implementation runs in {efficient_time:.3f} microseconds")
        results["efficient"] = F.scaled_dot_product_attention(query, key, value)
    except RuntimeError:
        print("EfficientAttention is not supported. See warnings for reasons.")

assert math_time > 0 and "math" in results
for name, res in results.items():   # every backend that ran agrees with the default
    assert torch.allclose(res, reference, atol=1e-5), name


class CausalSelfAttention(nn.Module):

    def __init__(self, num_heads: int, embed_dimension: int, bias: bool=False, is_causal: bool=False, dropout:float=0.0):
        super().__init__()
        assert embed_dimension % num_heads == 0
        # key, query, value projections for all heads, but in a batch
        self.c_attn = nn.Linear(embed_dimension, 3 * embed_dimension, bias=bias)
        # output projection
        self.c_proj = nn.Linear(embed_dimension, embed_dimension, bias=bias)
        # regularization
        self.dropout = dropout
        self.resid_dropout = nn.Dropout(dropout)
        self.num_heads = num_heads
        self.embed_dimension = embed_dimension
        # Perform causal masking
        self.is_causal = is_causal

    def forward(self, x):
        # calculate query, key, values for all heads in batch and move head forward to be the batch dim
        query_projected = self.c_attn(x)

        batch_size = query_projected.size(0)
        embed_dim = query_projected.size(2)
        head_dim = embed_dim // (self.num_heads * 3)

        query, key, value = query_projected.chunk(3, -1)
        query = query.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
        key = key.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
        value = value.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)

        if self.training:
            dropout = self.dropout
            is_causal = self.is_causal
        else:
            dropout = 0.0
            is_causal = False

        y = F.scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=dropout, is_causal=is_causal)
        y = y.transpose(1, 2).view(batch_size, -1, self.num_heads * head_dim)

        y = self.resid_dropout(self.c_proj(y))
        return y


num_heads = 4
heads_per_dim = 8
embed_dimension = num_heads * heads_per_dim
model = CausalSelfAttention(num_heads=num_heads, embed_dimension=embed_dimension, bias=False, is_causal=True, dropout=0.0).to(device).to(dtype).eval()
print(model)

batch_size = 2
max_sequence_len = 6
x = torch.rand(batch_size, max_sequence_len,
               embed_dimension, device=device, dtype=dtype)
print(
    f"The non compiled module runs in  {benchmark_torch_function_in_microseconds(model, x):.3f} microseconds")


def attention_by_hand(model, x, causal):
    q, k, v = model.c_attn(x).chunk(3, -1)
    split = lambda t: t.view(batch_size, -1, num_heads, heads_per_dim).transpose(1, 2)
    q, k, v = split(q), split(k), split(v)
    scores = q @ k.transpose(-2, -1) / math.sqrt(heads_per_dim)
    if causal:
        mask = torch.ones(max_sequence_len, max_sequence_len, dtype=torch.bool).tril()
        scores = scores.masked_fill(~mask, float("-inf"))
    y = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch_size, -1, embed_dimension)
    return model.c_proj(y)


# eval mode: is_causal is off; train mode (dropout 0): causal
assert torch.allclose(model(x), attention_by_hand(model, x, causal=False), atol=1e-5)
model.train()
y = model(x)
assert torch.allclose(y, attention_by_hand(model, x, causal=True), atol=1e-5)
# causal: the first position sees only itself, so changing later tokens leaves it unchanged
x2 = x.clone()
x2[:, 1:] += 1.0
assert torch.allclose(model(x2)[:, 0], y[:, 0], atol=1e-6)
assert not torch.allclose(model(x2)[:, -1], y[:, -1])
y.pow(2).sum().backward()
assert model.c_attn.weight.grad.shape == (3 * embed_dimension, embed_dimension)
model.eval()

from torch.profiler import profile, record_function, ProfilerActivity
activities = [ProfilerActivity.CPU]
if device == 'cuda':
    activities.append(ProfilerActivity.CUDA)

with profile(activities=activities, record_shapes=False) as prof:
    with record_function(" Non-Compilied Causal Attention"):
        for _ in range(25):
            model(x)
table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
print(table)
assert "Non-Compilied Causal Attention" in table
names = [e.key for e in prof.key_averages()]
assert " Non-Compilied Causal Attention" in names
