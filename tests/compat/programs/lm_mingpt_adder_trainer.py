"""Karpathy's minGPT, mingpt/trainer.py + mingpt/utils.py + projects/adder/adder.py at toy size:
set_seed (random.seed, np.random.seed, torch.manual_seed, torch.cuda.manual_seed_all), CfgNode
with merge_from_dict and to_dict, Trainer with a DataLoader over
torch.utils.data.RandomSampler(dataset, replacement=True, num_samples=int(1e10)), pin_memory=
False, iter(train_loader) / next() restarted on StopIteration, model.zero_grad(set_to_none=True),
torch.nn.utils.clip_grad_norm_, callbacks kept in a defaultdict(list) and fired with
trigger_callbacks('on_batch_end'), iter_dt from time.time(); AdditionDataset splitting
torch.randperm(num, generator=rng) with rng = torch.Generator(); rng.manual_seed(1337), encoding
digits with the sum reversed, y[:ndigit * 2 - 1] = -1 for ignore_index, and eval_split decoding
with model.generate(d1d2, n, do_sample=False), torch.flip(d3d, [1]), factors =
torch.tensor([[10 ** i for i in range(ndigit + 1)][::-1]]), (d1d2[:, :ndigit] *
factors[:, 1:]).sum(1), correct = (d3_pred == d3_gt).cpu(); a small causal transformer stands in
for minGPT's GPT (nn.TransformerEncoder with a causal mask from
nn.Transformer.generate_square_subsequent_mask)."""
import random
import time
from collections import defaultdict

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


class CfgNode:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def __str__(self):
        return self._str_helper(0)

    def _str_helper(self, indent):
        parts = []
        for k, v in self.__dict__.items():
            if isinstance(v, CfgNode):
                parts.append("%s:\n" % k)
                parts.append(v._str_helper(indent + 1))
            else:
                parts.append("%s: %s\n" % (k, v))
        parts = [' ' * (indent * 4) + p for p in parts]
        return "".join(parts)

    def to_dict(self):
        return {k: v.to_dict() if isinstance(v, CfgNode) else v for k, v in self.__dict__.items()}

    def merge_from_dict(self, d):
        self.__dict__.update(d)


class Trainer:
    @staticmethod
    def get_default_config():
        C = CfgNode()
        C.device = 'auto'
        C.num_workers = 0
        C.max_iters = None
        C.batch_size = 64
        C.learning_rate = 3e-4
        C.betas = (0.9, 0.95)
        C.weight_decay = 0.1
        C.grad_norm_clip = 1.0
        return C

    def __init__(self, config, model, train_dataset):
        self.config = config
        self.model = model
        self.optimizer = None
        self.train_dataset = train_dataset
        self.callbacks = defaultdict(list)
        if config.device == 'auto':
            self.device = 'cuda' if torch.cuda.is_available() else 'cpu'
        else:
            self.device = config.device
        self.model = self.model.to(self.device)
        print("running on device", self.device)
        self.iter_num = 0
        self.iter_time = 0.0
        self.iter_dt = 0.0

    def add_callback(self, onevent: str, callback):
        self.callbacks[onevent].append(callback)

    def set_callback(self, onevent: str, callback):
        self.callbacks[onevent] = [callback]

    def trigger_callbacks(self, onevent: str):
        for callback in self.callbacks.get(onevent, []):
            callback(self)

    def run(self):
        model, config = self.model, self.config
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate, betas=config.betas,
                                           weight_decay=config.weight_decay)
        train_loader = DataLoader(
            self.train_dataset,
            sampler=torch.utils.data.RandomSampler(self.train_dataset, replacement=True, num_samples=int(1e10)),
            shuffle=False,
            pin_memory=False,
            batch_size=config.batch_size,
            num_workers=config.num_workers,
        )
        model.train()
        self.iter_num = 0
        self.iter_time = time.time()
        data_iter = iter(train_loader)
        while True:
            try:
                batch = next(data_iter)
            except StopIteration:
                data_iter = iter(train_loader)
                batch = next(data_iter)
            batch = [t.to(self.device) for t in batch]
            x, y = batch
            logits, self.loss = model(x, y)
            model.zero_grad(set_to_none=True)
            self.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_norm_clip)
            self.optimizer.step()
            self.trigger_callbacks('on_batch_end')
            self.iter_num += 1
            tnow = time.time()
            self.iter_dt = tnow - self.iter_time
            self.iter_time = tnow
            if config.max_iters is not None and self.iter_num >= config.max_iters:
                break


class AdditionDataset(Dataset):
    @staticmethod
    def get_default_config():
        C = CfgNode()
        C.ndigit = 2
        return C

    def __init__(self, config, split):
        self.config = config
        self.split = split
        ndigit = self.config.ndigit
        assert ndigit <= 3, "the lines below would be very memory inefficient, in future maybe refactor to support"
        num = (10 ** ndigit) ** 2
        rng = torch.Generator()
        rng.manual_seed(1337)
        perm = torch.randperm(num, generator=rng)
        num_test = min(int(num * 0.2), 500)
        self.ixes = perm[:num_test] if split == 'test' else perm[num_test:]

    def get_vocab_size(self):
        return 10

    def get_block_size(self):
        return 3 * self.config.ndigit + 1 - 1

    def __len__(self):
        return self.ixes.nelement()

    def __getitem__(self, idx):
        ndigit = self.config.ndigit
        idx = self.ixes[idx].item()
        nd = 10 ** ndigit
        a = idx // nd
        b = idx % nd
        c = a + b
        astr = f'%0{ndigit}d' % a
        bstr = f'%0{ndigit}d' % b
        cstr = (f'%0{ndigit + 1}d' % c)[::-1]
        render = astr + bstr + cstr
        dix = [int(s) for s in render]
        x = torch.tensor(dix[:-1], dtype=torch.long)
        y = torch.tensor(dix[1:], dtype=torch.long)
        y[:ndigit * 2 - 1] = -1
        return x, y


class TinyGPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_embd=48, n_head=4, n_layer=2):
        super().__init__()
        self.block_size = block_size
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        layer = nn.TransformerEncoderLayer(n_embd, n_head, 4 * n_embd, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layer, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device).unsqueeze(0)
        mask = nn.Transformer.generate_square_subsequent_mask(t, device=idx.device)
        x = self.blocks(self.wte(idx) + self.wpe(pos), mask=mask, is_causal=True)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, do_sample=False, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            probs = F.softmax(logits, dim=-1)
            if do_sample:
                idx_next = torch.multinomial(probs, num_samples=1)
            else:
                _, idx_next = torch.topk(probs, k=1, dim=-1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


set_seed(3407)
data_config = AdditionDataset.get_default_config()
train_dataset = AdditionDataset(data_config, split='train')
test_dataset = AdditionDataset(data_config, split='test')
print(len(train_dataset), len(test_dataset), train_dataset[0])
x, y = train_dataset[0]
assert x.shape == (6,) and y[:3].tolist() == [-1, -1, -1]

model = TinyGPT(train_dataset.get_vocab_size(), train_dataset.get_block_size())
train_config = Trainer.get_default_config()
train_config.merge_from_dict(dict(learning_rate=5e-3, max_iters=300, batch_size=64, device='cpu'))
print(train_config)
assert train_config.to_dict()["max_iters"] == 300
trainer = Trainer(train_config, model, train_dataset)


def eval_split(trainer, split, max_batches=None):
    dataset = {'train': train_dataset, 'test': test_dataset}[split]
    ndigit = data_config.ndigit
    results = []
    mistakes_printed_already = 0
    factors = torch.tensor([[10 ** i for i in range(ndigit + 1)][::-1]]).to(trainer.device)
    loader = DataLoader(dataset, batch_size=100, num_workers=0, drop_last=False)
    for b, (x, y) in enumerate(loader):
        x = x.to(trainer.device)
        d1d2 = x[:, :ndigit * 2]
        d1d2d3 = model.generate(d1d2, ndigit + 1, do_sample=False)
        d3 = d1d2d3[:, -(ndigit + 1):]
        d3 = d3.flip(1)
        d1i = (d1d2[:, :ndigit] * factors[:, 1:]).sum(1)
        d2i = (d1d2[:, ndigit:ndigit * 2] * factors[:, 1:]).sum(1)
        d3i_pred = (d3 * factors).sum(1)
        d3i_gt = d1i + d2i
        correct = (d3i_pred == d3i_gt).cpu()
        for i in range(x.size(0)):
            results.append(int(correct[i]))
            if not correct[i] and mistakes_printed_already < 3:
                mistakes_printed_already += 1
                print("GPT claims that %d + %d = %d but gt is %d" % (d1i[i], d2i[i], d3i_pred[i], d3i_gt[i]))
        if max_batches is not None and b + 1 >= max_batches:
            break
    rt = torch.tensor(results, dtype=torch.float)
    print("%s final score: %d/%d = %.2f%% correct" % (split, rt.sum(), len(results), 100 * rt.mean()))
    return rt.sum()


losses = []


def batch_end_callback(trainer):
    losses.append(trainer.loss.item())
    if trainer.iter_num % 100 == 0:
        assert trainer.iter_dt >= 0
        print(f"iter {trainer.iter_num}: train loss {trainer.loss.item():.5f}")


trainer.set_callback('on_batch_end', batch_end_callback)
trainer.run()
print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}")
assert len(losses) == 300 and losses[-1] < 0.5 * losses[0]
model.eval()
with torch.no_grad():
    test_score = eval_split(trainer, 'test', max_batches=2)
assert test_score >= 20
