"""Karpathy's minbpe (BasicTokenizer, as in the "Let's build the GPT Tokenizer" lecture): get_stats
and merge over lists of ints, train() with vocab_size - 256 merges and a vocab of bytes, encode()
choosing the pair with the lowest merge index via min(stats, key=lambda p: merges.get(p, inf)),
decode() with errors="replace"; then the tokens become the data tensor of the GPT lectures:
torch.tensor(encode(text), dtype=torch.long), a 90/10 split, and get_batch with torch.randint and
torch.stack."""
import torch


def get_stats(ids, counts=None):
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:]):  # iterate consecutive elements
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge(ids, pair, idx):
    newids = []
    i = 0
    while i < len(ids):
        if ids[i] == pair[0] and i < len(ids) - 1 and ids[i + 1] == pair[1]:
            newids.append(idx)
            i += 2
        else:
            newids.append(ids[i])
            i += 1
    return newids


class BasicTokenizer:

    def __init__(self):
        self.merges = {}
        self.vocab = {idx: bytes([idx]) for idx in range(256)}

    def train(self, text, vocab_size, verbose=False):
        assert vocab_size >= 256
        num_merges = vocab_size - 256
        text_bytes = text.encode("utf-8")  # raw bytes
        ids = list(text_bytes)  # list of integers in range 0..255
        merges = {}  # (int, int) -> int
        vocab = {idx: bytes([idx]) for idx in range(256)}  # int -> bytes
        for i in range(num_merges):
            stats = get_stats(ids)
            pair = max(stats, key=stats.get)
            idx = 256 + i
            ids = merge(ids, pair, idx)
            merges[pair] = idx
            vocab[idx] = vocab[pair[0]] + vocab[pair[1]]
            if verbose:
                print(f"merge {i + 1}/{num_merges}: {pair} -> {idx} ({vocab[idx]}) had {stats[pair]} occurrences")
        self.merges = merges
        self.vocab = vocab

    def decode(self, ids):
        text_bytes = b"".join(self.vocab[idx] for idx in ids)
        return text_bytes.decode("utf-8", errors="replace")

    def encode(self, text):
        text_bytes = text.encode("utf-8")
        ids = list(text_bytes)
        while len(ids) >= 2:
            stats = get_stats(ids)
            pair = min(stats, key=lambda p: self.merges.get(p, float("inf")))
            if pair not in self.merges:
                break  # nothing else can be merged anymore
            idx = self.merges[pair]
            ids = merge(ids, pair, idx)
        return ids


text = ("the quick brown fox jumps over the lazy dog. the dog sleeps. "
        "a fox is quick; a dog is lazy. héllo wörld! ") * 6
tokenizer = BasicTokenizer()
tokenizer.train(text, 256 + 20, verbose=True)
ids = tokenizer.encode(text)
print("length:", len(text.encode("utf-8")), "->", len(ids))
print(f"compression ratio: {len(text.encode('utf-8')) / len(ids):.2f}X")
assert tokenizer.decode(ids) == text
assert tokenizer.decode(tokenizer.encode("hello world")) == "hello world"
print(tokenizer.decode([128]))  # an invalid start byte is replaced

data = torch.tensor(tokenizer.encode(text), dtype=torch.long)
print(data.shape, data.dtype)
print(data[:20])
n = int(0.9 * len(data))  # first 90% will be train, rest val
train_data = data[:n]
val_data = data[n:]
vocab_size = 256 + 20
assert data.max().item() < vocab_size and data.min().item() >= 0

torch.manual_seed(1337)
batch_size = 4
block_size = 8


def get_batch(split):
    data = train_data if split == 'train' else val_data
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + block_size + 1] for i in ix])
    return x, y


xb, yb = get_batch('train')
print('inputs:')
print(xb.shape)
print(xb)
print('targets:')
print(yb.shape)
print(yb)
for b in range(2):
    for t in range(3):
        context = xb[b, :t + 1]
        target = yb[b, t]
        print(f"when input is {context.tolist()} the target: {target}")
assert torch.equal(xb[:, 1:], yb[:, :-1])
# the most frequent merged tokens, by counting with bincount and a stable sort (ties keep order)
counts = torch.bincount(data, minlength=vocab_size)
top = torch.sort(counts, descending=True, stable=True)
print(top.values[:5], top.indices[:5])
print([tokenizer.decode([i]) for i in top.indices[:5].tolist()])
assert torch.topk(counts, 5).values.tolist() == top.values[:5].tolist()
assert counts.sum().item() == len(data)
