"""Stanford CS336 (Spring 2025) assignment 1, the training half: the handout's SGD example
optimizer, a hand-written AdamW (torch.optim.Optimizer subclass), cross-entropy via the
log-sum-exp trick, the cosine learning-rate schedule with warmup, gradient clipping, get_batch
from an np.memmap'ed uint16 token file, checkpointing to a path and to io.BytesIO, and top-p
decoding with temperature that stops at the end-of-text token. Toy model, synthetic tokens.

APIs: torch.optim.Optimizer.__init__(params, defaults), self.param_groups / self.state[p],
@torch.no_grad() step(closure), state.get("t", 0), p.grad.data, torch.zeros_like, in-place
p.data.add_/mul_/addcdiv_, torch.sqrt, gather(-1, targets.unsqueeze(-1)).squeeze(-1),
torch.logsumexp, torch.nn.utils.clip_grad_norm_ as the reference for clipping, p.grad.mul_,
np.memmap(..., dtype=np.uint16, mode="r"), np.random.randint, torch.from_numpy(...).to(
torch.long), torch.save({"model": ..., "optimizer": ..., "iteration": ...}, path_or_file),
torch.load + load_state_dict for model and optimizer, torch.sort(descending=True),
torch.cumsum, scatter back of a sorted mask, torch.multinomial, torch.no_grad generation.
"""
import io
import math
import os
from collections.abc import Callable, Iterable
from typing import Optional

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class SGD(torch.optim.Optimizer):
    """the handout's example: lr decays as 1/sqrt(t + 1)"""

    def __init__(self, params, lr=1e-3):
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        defaults = {"lr": lr}
        super().__init__(params, defaults)

    def step(self, closure: Optional[Callable] = None):
        loss = None if closure is None else closure()
        for group in self.param_groups:
            lr = group["lr"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                t = state.get("t", 0)
                grad = p.grad.data
                p.data -= lr / math.sqrt(t + 1) * grad
                state["t"] = t + 1
        return loss


class AdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure: Optional[Callable] = None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr = group["lr"]
            beta1, beta2 = group["betas"]
            eps = group["eps"]
            weight_decay = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                m, v = state["exp_avg"], state["exp_avg_sq"]
                state["step"] += 1
                t = state["step"]
                p.mul_(1 - lr * weight_decay)          # decoupled decay, first (as torch)
                m.mul_(beta1).add_(grad, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                lr_t = lr * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
                p.addcdiv_(m, v.sqrt().add_(eps), value=-lr_t)
        return loss


def cross_entropy(inputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    inputs = inputs - inputs.max(dim=-1, keepdim=True).values
    log_sum_exp = torch.logsumexp(inputs, dim=-1)
    target_logits = inputs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return (log_sum_exp - target_logits).mean()


def get_lr_cosine_schedule(it, max_learning_rate, min_learning_rate, warmup_iters, cosine_cycle_iters):
    if it < warmup_iters:
        return it / warmup_iters * max_learning_rate
    if it > cosine_cycle_iters:
        return min_learning_rate
    progress = (it - warmup_iters) / (cosine_cycle_iters - warmup_iters)
    return min_learning_rate + 0.5 * (1 + math.cos(math.pi * progress)) * (max_learning_rate - min_learning_rate)


def gradient_clipping(parameters: Iterable[torch.nn.Parameter], max_l2_norm: float, eps: float = 1e-6):
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return
    total_norm = torch.sqrt(sum(torch.sum(g.detach() ** 2) for g in grads))
    if total_norm > max_l2_norm:
        clip_coef = max_l2_norm / (total_norm + eps)
        for g in grads:
            g.mul_(clip_coef)


def get_batch(dataset: np.ndarray, batch_size: int, context_length: int, device: str):
    starts = np.random.randint(0, len(dataset) - context_length, size=batch_size)
    x = np.stack([dataset[s:s + context_length] for s in starts])
    y = np.stack([dataset[s + 1:s + context_length + 1] for s in starts])
    x = torch.from_numpy(x.astype(np.int64)).to(device)
    y = torch.from_numpy(y.astype(np.int64)).to(torch.long).to(device)
    return x, y


def save_checkpoint(model, optimizer, iteration, out):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "iteration": iteration}, out)


def load_checkpoint(src, model, optimizer):
    checkpoint = torch.load(src)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    return checkpoint["iteration"]


@torch.no_grad()
def decode(model, prompt, max_new_tokens, end_token, temperature=1.0, top_p=1.0, context_length=16):
    tokens = prompt.clone()
    for _ in range(max_new_tokens):
        logits = model(tokens[-context_length:].unsqueeze(0))[0, -1]
        logits = logits / max(temperature, 1e-8)
        probs = torch.softmax(logits, dim=-1)
        if top_p < 1.0:
            sorted_probs, sorted_idx = torch.sort(probs, descending=True)
            cumulative = torch.cumsum(sorted_probs, dim=-1)
            remove = cumulative - sorted_probs > top_p
            sorted_probs[remove] = 0.0
            probs = torch.zeros_like(probs).scatter(-1, sorted_idx, sorted_probs)
            probs = probs / probs.sum()
        next_token = torch.multinomial(probs, num_samples=1)
        tokens = torch.cat([tokens, next_token])
        if next_token.item() == end_token:
            break
    return tokens


class TinyLM(nn.Module):
    def __init__(self, vocab_size, d_model=32):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, d_model)
        self.mix = nn.GRU(d_model, d_model, batch_first=True)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, x):
        h, _ = self.mix(self.emb(x))
        return self.head(h)


torch.manual_seed(0)
np.random.seed(0)

# the handout's SGD experiment: loss of (weights ** 2).mean() goes down
weights = torch.nn.Parameter(5 * torch.randn((10, 10)))
opt = SGD([weights], lr=1)
first = None
for t in range(10):
    opt.zero_grad()
    loss = (weights ** 2).mean()
    first = loss.item() if first is None else first
    loss.backward()
    opt.step()
assert loss.item() < first and opt.state[weights]["t"] == 10

# our AdamW follows torch.optim.AdamW step for step
w_ref = torch.nn.Parameter(torch.randn(4, 3))
w_ours = torch.nn.Parameter(w_ref.detach().clone())
ref_opt = torch.optim.AdamW([w_ref], lr=0.1, weight_decay=0.1)
our_opt = AdamW([w_ours], lr=0.1, weight_decay=0.1)
for _ in range(5):
    for w, o in ((w_ref, ref_opt), (w_ours, our_opt)):
        o.zero_grad()
        (w.sin() * torch.arange(12.).view(4, 3)).sum().backward()
        o.step()
assert torch.allclose(w_ref, w_ours, atol=1e-5), (w_ref - w_ours).abs().max()

logits = torch.randn(6, 5) * 30
targets = torch.tensor([0, 4, 2, 2, 1, 3])
assert torch.allclose(cross_entropy(logits, targets), F.cross_entropy(logits, targets), atol=1e-5)
assert torch.isfinite(cross_entropy(logits * 1000, targets))

lrs = [get_lr_cosine_schedule(it, 1.0, 0.1, 7, 21) for it in range(25)]
assert lrs[0] == 0 and lrs[7] == 1.0 and abs(lrs[21] - 0.1) < 1e-12 and lrs[24] == 0.1

ps = [torch.nn.Parameter(torch.randn(3, 2)) for _ in range(2)]
qs = [torch.nn.Parameter(p.detach().clone()) for p in ps]
for group in (ps, qs):
    (group[0].pow(3).sum() + 4 * group[1].sum()).backward()
gradient_clipping(ps, 1.0)
torch.nn.utils.clip_grad_norm_(qs, 1.0)
assert all(torch.allclose(p.grad, q.grad, atol=1e-6) for p, q in zip(ps, qs))

# tokens on disk as uint16, read back with a memmap
vocab_size, context_length, end_token = 10, 16, 9
ids = np.array([(i * 3) % 9 for i in range(500)], dtype=np.uint16)
ids.tofile("train.bin")
dataset = np.memmap("train.bin", dtype=np.uint16, mode="r")
xb, yb = get_batch(dataset, 4, context_length, "cpu")
assert xb.dtype == torch.long and xb.shape == (4, context_length)
assert torch.equal(xb[:, 1:], yb[:, :-1])

model = TinyLM(vocab_size)
optimizer = AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
for it in range(30):
    lr = get_lr_cosine_schedule(it, 1e-2, 1e-3, 5, 30)
    for group in optimizer.param_groups:
        group["lr"] = lr
    xb, yb = get_batch(dataset, 8, context_length, "cpu")
    logits = model(xb)
    loss = cross_entropy(logits.view(-1, vocab_size), yb.view(-1))
    optimizer.zero_grad()
    loss.backward()
    gradient_clipping(model.parameters(), 1.0)
    optimizer.step()
assert loss.item() < 1.0, loss.item()

save_checkpoint(model, optimizer, 30, "ckpt.pt")
buffer = io.BytesIO()
save_checkpoint(model, optimizer, 30, buffer)
buffer.seek(0)
model2 = TinyLM(vocab_size)
optimizer2 = AdamW(model2.parameters(), lr=1e-2)
assert load_checkpoint("ckpt.pt", model2, optimizer2) == 30
assert os.path.getsize("ckpt.pt") > 0
model3 = TinyLM(vocab_size)
optimizer3 = AdamW(model3.parameters(), lr=1e-2)
assert load_checkpoint(buffer, model3, optimizer3) == 30
for p, q, r in zip(model.parameters(), model2.parameters(), model3.parameters()):
    assert torch.equal(p, q) and torch.equal(p, r)
st = optimizer3.state[next(iter(model3.parameters()))]
assert st["step"] == 30 and st["exp_avg"].shape == next(iter(model3.parameters())).shape
assert optimizer3.param_groups[0]["weight_decay"] == 0.01

# resuming gives the same next step as not stopping
xb, yb = get_batch(dataset, 8, context_length, "cpu")
for m, o in ((model, optimizer), (model2, optimizer2)):
    o.zero_grad()
    cross_entropy(m(xb).view(-1, vocab_size), yb.view(-1)).backward()
    o.step()
assert all(torch.allclose(p, q) for p, q in zip(model.parameters(), model2.parameters()))

prompt = torch.tensor([0, 3, 6], dtype=torch.long)
out = decode(model, prompt, 12, end_token, temperature=0.7, top_p=0.9)
assert out.dtype == torch.long and 3 < len(out) <= 15 and torch.equal(out[:3], prompt)
greedy = decode(model, prompt, 6, end_token, temperature=1e-9)
print("cs336 training utils ok", loss.item(), out.tolist(), greedy.tolist())
