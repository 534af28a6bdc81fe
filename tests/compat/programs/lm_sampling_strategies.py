"""Decoding strategies as lecture notebooks copy them (Thomas Wolf's top_k_top_p_filtering gist used
in HF's "How to generate text" material, Meta llama's sample_top_p, the CTRL repetition penalty,
min-p sampling) applied to a tiny bigram language model: logits[logits < torch.topk(logits,
top_k)[0][..., -1, None]] = filter_value; nucleus filtering with torch.sort(descending=True),
torch.cumsum(F.softmax(...)), the shifted mask sorted_indices_to_remove[..., 1:] =
sorted_indices_to_remove[..., :-1].clone(), and indices_to_remove =
sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove) (a bool scatter);
llama's probs_sort[mask] = 0.0, probs_sort.div_(probs_sort.sum(dim=-1, keepdim=True)),
torch.multinomial, torch.gather(probs_idx, -1, next_token); the repetition penalty with
torch.gather / torch.where / logits.scatter_; min-p with probs.max(dim=-1, keepdim=True).values;
a batched beam search with length penalty (torch.topk over beams * vocab, // and % for beam /
token ids, index_select of the histories); and greedy / sampled text from a seeded
torch.Generator."""
import torch
import torch.nn.functional as F


def top_k_top_p_filtering(logits, top_k=0, top_p=0.0, filter_value=-float('Inf')):
    top_k = min(top_k, logits.size(-1))
    if top_k > 0:
        indices_to_remove = logits < torch.topk(logits, top_k)[0][..., -1, None]
        logits[indices_to_remove] = filter_value
    if top_p > 0.0:
        sorted_logits, sorted_indices = torch.sort(logits, descending=True)
        cumulative_probs = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
        sorted_indices_to_remove = cumulative_probs > top_p
        sorted_indices_to_remove[..., 1:] = sorted_indices_to_remove[..., :-1].clone()
        sorted_indices_to_remove[..., 0] = 0
        indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
        logits[indices_to_remove] = filter_value
    return logits


def sample_top_p(probs, p, generator=None):
    probs_sort, probs_idx = torch.sort(probs, dim=-1, descending=True)
    probs_sum = torch.cumsum(probs_sort, dim=-1)
    mask = probs_sum - probs_sort > p
    probs_sort[mask] = 0.0
    probs_sort.div_(probs_sort.sum(dim=-1, keepdim=True))
    next_token = torch.multinomial(probs_sort, num_samples=1, generator=generator)
    next_token = torch.gather(probs_idx, -1, next_token)
    return next_token


def apply_repetition_penalty(logits, input_ids, penalty):
    score = torch.gather(logits, 1, input_ids)
    score = torch.where(score < 0, score * penalty, score / penalty)
    logits.scatter_(1, input_ids, score)
    return logits


def min_p_filter(logits, min_p):
    probs = torch.softmax(logits, dim=-1)
    top_probs = probs.max(dim=-1, keepdim=True).values
    return logits.masked_fill(probs < min_p * top_probs, -float("inf"))


# a bigram "language model" from counts
text = "the cat sat on the mat. the dog sat on the log. the cat saw the dog. "
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
V = len(chars)
counts = torch.full((V, V), 0.01)
for a, b in zip(text, text[1:]):
    counts[stoi[a], stoi[b]] += 1
log_probs = (counts / counts.sum(1, keepdim=True)).log()


def next_logits(ids):
    return log_probs[ids[:, -1]].clone()


print(chars)
logits = next_logits(torch.tensor([[stoi['t']]]))
filtered = top_k_top_p_filtering(logits.clone(), top_k=3)
print((filtered > -float('inf')).sum().item(), filtered.topk(3).indices.tolist())
assert (filtered > -float('inf')).sum().item() == 3
nucleus = top_k_top_p_filtering(logits.clone(), top_p=0.8)
kept = (nucleus > -float('inf')).nonzero()[:, 1]
print('nucleus keeps', [chars[i] for i in kept.tolist()])
p = F.softmax(logits, -1)[0]
assert p[kept].sum() >= 0.8 and 1 <= len(kept) < V
assert torch.equal(top_k_top_p_filtering(logits.clone(), top_k=V), logits)

g = torch.Generator().manual_seed(42)
probs = F.softmax(next_logits(torch.tensor([[stoi['h']], [stoi[' ']]])), dim=-1)
draws = torch.cat([sample_top_p(probs.clone(), 0.5, generator=g) for _ in range(50)], dim=1)
print(draws[:, :10].tolist())
assert set(draws[0].tolist()) == {stoi['e']}

ids = torch.tensor([[stoi['t'], stoi['h'], stoi['e'], stoi[' ']]])
pen = apply_repetition_penalty(next_logits(ids), ids, 1.3)
base = next_logits(ids)
assert torch.all(pen[0, ids[0]] < base[0, ids[0]]) and torch.equal(
    pen[0, [i for i in range(V) if i not in ids[0].tolist()]], base[0, [i for i in range(V) if i not in ids[0].tolist()]])
mp = min_p_filter(next_logits(torch.tensor([[stoi['s']]])), 0.2)
print('min-p keeps', [chars[i] for i in (mp[0] > -float('inf')).nonzero().flatten().tolist()])


def generate(ids, steps, strategy, generator):
    for _ in range(steps):
        logits = next_logits(ids)
        logits = apply_repetition_penalty(logits, ids[:, -3:], 1.1)
        if strategy == "greedy":
            nxt = logits.argmax(dim=-1, keepdim=True)
        elif strategy == "top_k":
            logits = top_k_top_p_filtering(logits / 0.8, top_k=2)
            nxt = torch.multinomial(F.softmax(logits, dim=-1), 1, generator=generator)
        elif strategy == "top_p":
            nxt = sample_top_p(F.softmax(logits / 0.7, dim=-1), 0.9, generator=generator)
        else:
            nxt = torch.multinomial(F.softmax(min_p_filter(logits, 0.1), dim=-1), 1, generator=generator)
        ids = torch.cat([ids, nxt], dim=1)
    return ids


for strategy in ["greedy", "top_k", "top_p", "min_p"]:
    g = torch.Generator().manual_seed(0)
    out = generate(torch.tensor([[stoi['t']], [stoi['d']]]), 20, strategy, g)
    print(strategy, ["".join(chars[i] for i in row) for row in out.tolist()])
    assert out.shape == (2, 21)


def beam_search(start, beam_size, steps, length_penalty=1.0):
    beams = torch.tensor([[start]])
    scores = torch.zeros(1)
    for t in range(steps):
        logp = F.log_softmax(next_logits(beams), dim=-1)
        cand = (scores[:, None] + logp).view(-1)
        top_scores, top_idx = torch.topk(cand, beam_size)
        beam_idx = torch.div(top_idx, V, rounding_mode='floor')
        token_idx = top_idx % V
        beams = torch.cat([beams.index_select(0, beam_idx), token_idx[:, None]], dim=1)
        scores = top_scores
    normalized = scores / (beams.size(1) ** length_penalty)
    order = normalized.argsort(descending=True)
    return beams[order], normalized[order]


beams, bscores = beam_search(stoi['t'], 4, 8)
for row, s in zip(beams.tolist(), bscores.tolist()):
    print(f"{s:.4f}", repr("".join(chars[i] for i in row)))
assert bscores[0] >= bscores[-1] and beams.shape == (4, 9)
greedy = generate(torch.tensor([[stoi['t']]]), 8, "greedy", None)
assert "".join(chars[i] for i in beams[0].tolist()).startswith("th")
