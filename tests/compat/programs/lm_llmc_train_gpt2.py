"""Karpathy's llm.c, train_gpt2.py (the PyTorch reference) at toy size: import
torch._inductor.config as config; config.coordinate_descent_tuning = True; NewGELU with
math.sqrt(2.0 / math.pi), CausalSelfAttention with a FLASH switch (F.scaled_dot_product_attention(
q, k, v, is_causal=True) vs the masked manual path), self.c_proj.LLMC_RESIDUAL_SCALE_FLAG = 1 and
self.lm_head.LLMC_SKIP_INIT = 1 read back in _init_weights with hasattr, init drawn from
self.init_rng = torch.Generator(); self.init_rng.manual_seed(42) via torch.nn.init.normal_(...,
generator=self.init_rng), configure_optimizers with decay groups by p.dim() >= 2 and fused =
'fused' in inspect.signature(torch.optim.AdamW).parameters; the data shards (a 256-int32 header
with magic 20240520 then uint16 tokens) written with np.zeros(256, dtype=np.int32) / tofile and read
by _peek_data_shard / _load_data_shard (np.frombuffer, np.memmap-free np.fromfile) and
DistributedDataLoader (torch.tensor(buf.astype(np.int32), dtype=torch.long), buf[:-1].view(B, T));
write_fp32 / write_bf16 (tensor.detach().cpu().to(torch.bfloat16).view(torch.int16).numpy()
.tobytes()) and write_model's header = torch.zeros(256, dtype=torch.int32); the training loop with
torch.set_float32_matmul_precision('high'), nullcontext() on cpu, grad_accum_steps, lossf +=
loss.detach(), norm = torch.nn.utils.clip_grad_norm_(...), get_lr (warmup, then linear decay to
learning_rate_decay_frac) written into param_group['lr'], torch.compile(model), and
model.generate with top_k."""
import glob
import inspect
import math
import os
import tempfile
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
import torch
import torch._inductor.config as config
import torch.nn as nn
from torch.nn import functional as F

FLASH = 0


class NewGELU(nn.Module):
    def forward(self, input):
        return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * torch.pow(input, 3.0))))


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.c_proj.LLMC_RESIDUAL_SCALE_FLAG = 1
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                             .view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        qkv = self.c_attn(x)
        q, k, v = qkv.split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if FLASH:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
            att = F.softmax(att, dim=-1)
            y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        y = self.c_proj(y)
        return y


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.gelu = NewGELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)
        self.c_proj.LLMC_RESIDUAL_SCALE_FLAG = 1

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
        x = x + self.mlp(self.ln_2(x))
        return x


@dataclass
class GPTConfig:
    block_size: int = 16
    vocab_size: int = 64
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 32


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
        self.lm_head.LLMC_SKIP_INIT = 1
        self.transformer.wte.weight = self.lm_head.weight
        self.init_rng = torch.Generator()
        self.init_rng.manual_seed(42)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            std = 0.02 if not hasattr(module, 'LLMC_RESIDUAL_SCALE_FLAG') else 0.02 / math.sqrt(2 * self.config.n_layer)
            if not hasattr(module, 'LLMC_SKIP_INIT'):
                torch.nn.init.normal_(module.weight, mean=0.0, std=std, generator=self.init_rng)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02, generator=self.init_rng)

    def forward(self, idx, targets=None, return_logits=True):
        device = idx.device
        b, t = idx.size()
        assert t <= self.config.block_size, f"Cannot forward sequence of length {t}, block size is only {self.config.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=device)
        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)
        x = tok_emb + pos_emb
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        else:
            logits = self.lm_head(x[:, [-1], :])
            loss = None
        if not return_logits:
            logits = None
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas, device_type, zero_stage):
        param_dict = {pn: p for pn, p in self.named_parameters()}
        param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [
            {'params': decay_params, 'weight_decay': weight_decay},
            {'params': nodecay_params, 'weight_decay': 0.0}
        ]
        num_decay_params = sum(p.numel() for p in decay_params)
        num_nodecay_params = sum(p.numel() for p in nodecay_params)
        print0(f"num decayed parameter tensors: {len(decay_params)}, with {num_decay_params:,} parameters")
        print0(f"num non-decayed parameter tensors: {len(nodecay_params)}, with {num_nodecay_params:,} parameters")
        fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
        use_fused = fused_available and device_type == 'cuda'
        print0(f"using fused AdamW: {use_fused}")
        if zero_stage == 1:
            raise NotImplementedError("ZeroRedundancyOptimizer is not used at toy size")
        optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, fused=use_fused)
        return optimizer

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


def _peek_data_shard(filename):
    with open(filename, "rb") as f:
        header = np.frombuffer(f.read(256 * 4), dtype=np.int32)
    if header[0] != 20240520:
        print("ERROR: magic number mismatch in the data .bin file!")
        exit(1)
    assert header[1] == 1, "unsupported version"
    ntok = header[2]
    return ntok


def _load_data_shard(filename):
    with open(filename, "rb") as f:
        header = np.frombuffer(f.read(256 * 4), dtype=np.int32)
        assert header[0] == 20240520, "magic number mismatch in the data .bin file"
        assert header[1] == 1, "unsupported version"
        ntok = header[2]
        tokens = np.frombuffer(f.read(), dtype=np.uint16)
    assert len(tokens) == ntok, "number of tokens read does not match header?"
    return tokens


def write_datafile(filename, toks):
    header = np.zeros(256, dtype=np.int32)
    header[0] = 20240520
    header[1] = 1
    header[2] = len(toks)
    toks_np = np.array(toks, dtype=np.uint16)
    with open(filename, "wb") as f:
        f.write(header.tobytes())
        f.write(toks_np.tobytes())


class DistributedDataLoader:
    def __init__(self, filename_pattern, B, T, process_rank, num_processes):
        self.process_rank = process_rank
        self.num_processes = num_processes
        self.B = B
        self.T = T
        self.files = sorted(glob.glob(filename_pattern))
        assert len(self.files) > 0, f"did not find any files that match the pattern {filename_pattern}"
        ntok_total = 0
        for fname in self.files:
            shard_ntok = _peek_data_shard(fname)
            assert shard_ntok >= num_processes * B * T + 1
            ntok_total += shard_ntok
        self.ntok_total = ntok_total
        print0(f"DataLoader: total number of tokens: {ntok_total:,} across {len(self.files)} files")
        self.current_shard = None
        self.reset()

    def reset(self):
        if self.current_shard != 0:
            self.current_shard = 0
            self.tokens = _load_data_shard(self.files[self.current_shard])
        self.current_position = self.process_rank * self.B * self.T

    def advance(self):
        self.current_shard = (self.current_shard + 1) % len(self.files)
        self.current_position = self.process_rank * self.B * self.T
        self.tokens = _load_data_shard(self.files[self.current_shard])

    def next_batch(self):
        B = self.B
        T = self.T
        buf = self.tokens[self.current_position: self.current_position + B * T + 1]
        buf = torch.tensor(buf.astype(np.int32), dtype=torch.long)
        x = (buf[:-1]).view(B, T)
        y = (buf[1:]).view(B, T)
        self.current_position += B * T * self.num_processes
        if self.current_position + (B * T * self.num_processes + 1) > len(self.tokens):
            self.advance()
        return x, y


def write_fp32(tensor, file):
    t = tensor.detach().cpu().to(torch.float32)
    b = t.numpy().tobytes()
    file.write(b)


def write_bf16(tensor, file):
    t = tensor.detach().cpu().to(torch.bfloat16)
    t = t.view(torch.int16)
    b = t.numpy().tobytes()
    file.write(b)


def write_tensors(model_tensors, L, file, dtype):
    assert dtype in {"float32", "bfloat16"}
    write_fun = write_fp32 if dtype == "float32" else write_bf16
    write_fun(model_tensors["transformer.wte.weight"], file)
    write_fun(model_tensors["transformer.wpe.weight"], file)
    for i in range(L):
        write_fun(model_tensors[f"transformer.h.{i}.ln_1.weight"], file)
    for i in range(L):
        write_fun(model_tensors[f"transformer.h.{i}.ln_1.bias"], file)
    for i in range(L):
        write_fun(model_tensors[f"transformer.h.{i}.attn.c_attn.weight"], file)
    write_fun(model_tensors["transformer.ln_f.weight"], file)
    write_fun(model_tensors["transformer.ln_f.bias"], file)


def write_model(model, filename, dtype):
    assert dtype in {"float32", "bfloat16"}
    version = {"float32": 3, "bfloat16": 5}[dtype]
    header = torch.zeros(256, dtype=torch.int32)
    header[0] = 20240326
    header[1] = version
    header[2] = model.config.block_size
    header[3] = model.config.vocab_size
    header[4] = model.config.n_layer
    header[5] = model.config.n_head
    header[6] = model.config.n_embd
    params = {name: param.cpu() for name, param in model.named_parameters()}
    with open(filename, "wb") as file:
        file.write(header.numpy().tobytes())
        write_tensors(params, model.config.n_layer, file, dtype)
    print(f"wrote {filename}")


def print0(*args, **kwargs):
    if int(os.environ.get("RANK", 0)) == 0:
        print(*args, **kwargs)


config.coordinate_descent_tuning = True
torch.set_float32_matmul_precision('high')
device = "cpu"
device_type = 'cuda' if 'cuda' in device else 'cpu'
ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}['float32']
ctx = torch.amp.autocast(device_type=device_type, dtype=ptdtype) if device_type == "cuda" else nullcontext()
torch.manual_seed(42)

B, T = 4, 16
grad_accum_steps = 2
learning_rate, warmup_iters, learning_rate_decay_frac, num_iterations = 1e-2, 5, 0.1, 40

with tempfile.TemporaryDirectory() as d:
    # a toy "tokenized" corpus: repeating counting sequences mod 64 with a random offset per line
    rng = np.random.default_rng(0)
    toks = []
    for line in range(120):
        start = int(rng.integers(0, 64))
        toks += [(start + i) % 64 for i in range(12)]
    write_datafile(os.path.join(d, "toy_train_000000.bin"), toks[:1000])
    write_datafile(os.path.join(d, "toy_train_000001.bin"), toks[1000:])
    write_datafile(os.path.join(d, "toy_val_000000.bin"), toks[:300])
    train_loader = DistributedDataLoader(os.path.join(d, "toy_train_*.bin"), B, T, 0, 1)
    val_loader = DistributedDataLoader(os.path.join(d, "toy_val_*.bin"), B, T, 0, 1)
    x, y = train_loader.next_batch()
    print(x.dtype, x.shape, torch.equal(x[0, 1:], y[0, :-1]))
    train_loader.reset()

    model = GPT(GPTConfig())
    assert model.transformer.wte.weight is model.lm_head.weight
    w = model.transformer.h[0].mlp.c_proj.weight
    print(f"c_proj std {w.std().item():.4f}, c_fc std {model.transformer.h[0].mlp.c_fc.weight.std().item():.4f}")
    model.train()
    model = torch.compile(model)
    raw_model = model._orig_mod if hasattr(model, "_orig_mod") else model
    optimizer = raw_model.configure_optimizers(weight_decay=0.0, learning_rate=learning_rate,
                                               betas=(0.9, 0.95), device_type=device_type, zero_stage=0)

    def get_lr(it):
        min_lr = learning_rate * learning_rate_decay_frac
        if it < warmup_iters:
            return learning_rate * (it + 1) / warmup_iters
        if it > num_iterations:
            return min_lr
        decay_ratio = (it - warmup_iters) / (num_iterations - warmup_iters)
        assert 0 <= decay_ratio <= 1
        return min_lr + (1.0 - decay_ratio) * (learning_rate - min_lr)

    for step in range(num_iterations + 1):
        last_step = (step == num_iterations)
        if step % 20 == 0 or last_step:
            model.eval()
            val_loader.reset()
            with torch.no_grad():
                val_loss = 0.0
                for _ in range(4):
                    x, y = val_loader.next_batch()
                    _, loss = model(x, y, return_logits=False)
                    val_loss += loss.item()
                val_loss /= 4
            print0(f"val loss {val_loss}"[:15])
        if last_step:
            break
        model.train()
        optimizer.zero_grad(set_to_none=True)
        lossf = 0.0
        for micro_step in range(grad_accum_steps):
            x, y = train_loader.next_batch()
            with ctx:
                _, loss = model(x, y, return_logits=False)
                loss = loss / grad_accum_steps
                lossf += loss.detach()
            loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        lr = get_lr(step)
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
        optimizer.step()
        lossf = lossf.item()
        if step % 10 == 0:
            print0(f"step {step + 1:4d}/{num_iterations} | train loss {lossf:.6f} | norm {norm:.4f} | lr {lr:.2e}")
    assert val_loss < 2.5

    model.eval()
    start = torch.tensor([[10, 11, 12]])
    gen = raw_model.generate(start, 8, temperature=0.5, top_k=3)
    print(gen.tolist())
    assert gen.shape == (1, 11)

    for dt, nbytes in (("float32", 4), ("bfloat16", 2)):
        fname = os.path.join(d, f"gpt2_toy_{dt}.bin")
        write_model(raw_model, fname, dt)
        header = np.fromfile(fname, dtype=np.int32, count=256)
        print(header[:7].tolist())
        cfg = raw_model.config
        n = cfg.vocab_size * cfg.n_embd + cfg.block_size * cfg.n_embd + cfg.n_layer * (2 * cfg.n_embd + 3 * cfg.n_embd * cfg.n_embd) + 2 * cfg.n_embd
        assert os.path.getsize(fname) == 256 * 4 + n * nbytes
        body = np.fromfile(fname, dtype=np.int16 if dt == "bfloat16" else np.float32, offset=256 * 4)
        if dt == "float32":
            assert np.array_equal(body[:cfg.n_embd], raw_model.transformer.wte.weight[0].detach().numpy())
        else:
            as_f32 = (body[:cfg.n_embd].astype(np.int32) << 16).view(np.float32)
            assert np.allclose(as_f32, raw_model.transformer.wte.weight[0].detach().numpy(), rtol=1e-2, atol=1e-3)
