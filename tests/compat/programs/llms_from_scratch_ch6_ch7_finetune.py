"""Sebastian Raschka's "Build a Large Language Model (From Scratch)", chapters 6-7 at toy size.
Ch. 6 (classification finetuning): SpamDataset padding every text to the longest with
pad_token_id, freezing the model (param.requires_grad = False), replacing out_head with a
2-class torch.nn.Linear, unfreezing trf_blocks[-1] and final_norm, logits[:, -1, :] for the last
token, calc_accuracy_loader with torch.argmax and (predicted_labels == target_batch).sum().item().
Ch. 7 (instruction finetuning): format_input, custom_collate_fn (pad with 50256-style end token,
targets shifted by one, all padding but the first replaced by ignore_index=-100, truncation to
allowed_max_length, .to(device)) bound with functools.partial, and cross_entropy ignoring -100."""
from functools import partial

import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(123)
cfg = {"vocab_size": 30, "context_length": 24, "emb_dim": 16, "n_heads": 2, "n_layers": 2,
       "drop_rate": 0.0}
PAD = cfg["vocab_size"] - 1


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = nn.MultiheadAttention(cfg["emb_dim"], cfg["n_heads"], batch_first=True)
        self.ff = nn.Sequential(nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), nn.GELU(),
                                nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))
        self.norm1 = nn.LayerNorm(cfg["emb_dim"])
        self.norm2 = nn.LayerNorm(cfg["emb_dim"])
        self.register_buffer("mask", torch.triu(torch.ones(cfg["context_length"],
                                                           cfg["context_length"]), diagonal=1).bool())

    def forward(self, x):
        T = x.shape[1]
        h = self.norm1(x)
        x = x + self.att(h, h, h, attn_mask=self.mask[:T, :T], need_weights=False)[0]
        return x + self.ff(self.norm2(x))


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = nn.LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        x = self.tok_emb(in_idx) + self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        x = self.trf_blocks(x)
        return self.out_head(self.final_norm(x))


# ---- chapter 6: a spam classifier on the last token
words = "win cash prize free now claim hello how are you see at meeting lunch today call me".split()
vocab = {w: i for i, w in enumerate(words)}
spam = ["win cash now", "free prize claim now", "claim free cash", "win free prize now now"]
ham = ["hello how are you", "see you at lunch", "meeting today", "call me today", "how are you"]


class SpamDataset(Dataset):
    def __init__(self, texts, labels, max_length=None, pad_token_id=PAD):
        self.encoded_texts = [[vocab.get(w, 0) for w in t.split()] for t in texts]
        self.labels = labels
        if max_length is None:
            self.max_length = self._longest_encoded_length()
        else:
            self.max_length = max_length
            self.encoded_texts = [e[:self.max_length] for e in self.encoded_texts]
        self.encoded_texts = [e + [pad_token_id] * (self.max_length - len(e))
                              for e in self.encoded_texts]

    def __getitem__(self, index):
        encoded = self.encoded_texts[index]
        label = self.labels[index]
        return (torch.tensor(encoded, dtype=torch.long), torch.tensor(label, dtype=torch.long))

    def __len__(self):
        return len(self.labels)

    def _longest_encoded_length(self):
        return max(len(e) for e in self.encoded_texts)


train_dataset = SpamDataset(spam + ham, [1] * len(spam) + [0] * len(ham))
print(train_dataset.max_length)
train_loader = DataLoader(dataset=train_dataset, batch_size=3, shuffle=True, num_workers=0,
                          drop_last=True)
for input_batch, target_batch in train_loader:
    pass
print("Input batch dimensions:", input_batch.shape)
print("Label batch dimensions", target_batch.shape)
print(f"{len(train_loader)} training batches")

model = GPTModel(cfg)
for param in model.parameters():
    param.requires_grad = False
torch.manual_seed(123)
num_classes = 2
model.out_head = torch.nn.Linear(in_features=cfg["emb_dim"], out_features=num_classes)
for param in model.trf_blocks[-1].parameters():
    param.requires_grad = True
for param in model.final_norm.parameters():
    param.requires_grad = True
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("trainable:", trainable)

inputs = torch.tensor([[vocab["win"], vocab["cash"], vocab["now"]]])
print("Inputs:", inputs)
print("Inputs dimensions:", inputs.shape)
with torch.no_grad():
    outputs = model(inputs)
print("Outputs:\n", outputs)
print("Outputs dimensions:", outputs.shape)
print("Last output token:", outputs[:, -1, :])
probas = torch.softmax(outputs[:, -1, :], dim=-1)
label = torch.argmax(probas)
print("Class label:", label.item())


def calc_accuracy_loader(data_loader, model, device, num_batches=None):
    model.eval()
    correct_predictions, num_examples = 0, 0
    num_batches = len(data_loader) if num_batches is None else min(num_batches, len(data_loader))
    for i, (input_batch, target_batch) in enumerate(data_loader):
        if i < num_batches:
            input_batch, target_batch = input_batch.to(device), target_batch.to(device)
            with torch.no_grad():
                logits = model(input_batch)[:, -1, :]
            predicted_labels = torch.argmax(logits, dim=-1)
            num_examples += predicted_labels.shape[0]
            correct_predictions += (predicted_labels == target_batch).sum().item()
        else:
            break
    return correct_predictions / num_examples


def calc_loss_batch(input_batch, target_batch, model, device):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)
    logits = model(input_batch)[:, -1, :]
    return torch.nn.functional.cross_entropy(logits, target_batch)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model.to(device)
eval_loader = DataLoader(train_dataset, batch_size=3, shuffle=False)
print(f"Training accuracy: {calc_accuracy_loader(eval_loader, model, device)*100:.2f}%")
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.1)
for epoch in range(25):
    model.train()
    for input_batch, target_batch in train_loader:
        optimizer.zero_grad()
        loss = calc_loss_batch(input_batch, target_batch, model, device)
        loss.backward()
        optimizer.step()
acc = calc_accuracy_loader(eval_loader, model, device)
print(f"Training accuracy: {acc*100:.2f}%")
assert acc >= 0.8
assert model.tok_emb.weight.grad is None and model.trf_blocks[-1].ff[0].weight.grad is not None

# ---- chapter 7: the instruction-finetuning collate function
entry = {"instruction": "Rewrite the sentence.", "input": "hello", "output": "hi"}


def format_input(entry):
    instruction_text = (f"Below is an instruction that describes a task. "
                        f"Write a response that appropriately completes the request."
                        f"\n\n### Instruction:\n{entry['instruction']}")
    input_text = f"\n\n### Input:\n{entry['input']}" if entry["input"] else ""
    return instruction_text + input_text


print(format_input(entry) + f"\n\n### Response:\n{entry['output']}")


def custom_collate_fn(batch, pad_token_id=PAD, ignore_index=-100, allowed_max_length=None,
                      device="cpu"):
    batch_max_length = max(len(item) + 1 for item in batch)
    inputs_lst, targets_lst = [], []
    for item in batch:
        new_item = item.copy()
        new_item += [pad_token_id]
        padded = new_item + [pad_token_id] * (batch_max_length - len(new_item))
        inputs = torch.tensor(padded[:-1])
        targets = torch.tensor(padded[1:])
        mask = targets == pad_token_id
        indices = torch.nonzero(mask).squeeze()
        if indices.numel() > 1:
            targets[indices[1:]] = ignore_index
        if allowed_max_length is not None:
            inputs = inputs[:allowed_max_length]
            targets = targets[:allowed_max_length]
        inputs_lst.append(inputs)
        targets_lst.append(targets)
    inputs_tensor = torch.stack(inputs_lst).to(device)
    targets_tensor = torch.stack(targets_lst).to(device)
    return inputs_tensor, targets_tensor


inputs_1 = [0, 1, 2, 3, 4]
inputs_2 = [5, 6]
inputs_3 = [7, 8, 9]
batch = (inputs_1, inputs_2, inputs_3)
inputs, targets = custom_collate_fn(batch)
print(inputs)
print(targets)
assert targets.tolist() == [[1, 2, 3, 4, PAD], [6, PAD, -100, -100, -100], [8, 9, PAD, -100, -100]]

logits_1 = torch.tensor([[-1.0, 1.0], [-0.5, 1.5]])
targets_1 = torch.tensor([0, 1])
loss_1 = torch.nn.functional.cross_entropy(logits_1, targets_1)
print(loss_1)
logits_2 = torch.tensor([[-1.0, 1.0], [-0.5, 1.5], [-0.5, 1.5]])
targets_3 = torch.tensor([0, 1, -100])
loss_3 = torch.nn.functional.cross_entropy(logits_2, targets_3)
print(loss_3)
print("loss_1 == loss_3:", loss_1 == loss_3)
assert torch.equal(loss_1, loss_3)

customized_collate_fn = partial(custom_collate_fn, device=device, allowed_max_length=8)


class InstructionDataset(Dataset):
    def __init__(self, data):
        self.encoded_texts = [[vocab[w] for w in (d["instruction"] + " " + d["output"]).split()]
                              for d in data]

    def __getitem__(self, index):
        return self.encoded_texts[index]

    def __len__(self):
        return len(self.encoded_texts)


data = [{"instruction": "hello how are", "output": "you"}, {"instruction": "win free", "output": "cash now"},
        {"instruction": "see you at", "output": "lunch today"}, {"instruction": "call me", "output": "today"}] * 3
loader = DataLoader(InstructionDataset(data), batch_size=4, collate_fn=customized_collate_fn,
                    shuffle=True, drop_last=True, num_workers=0)
lm = GPTModel(cfg)
opt = torch.optim.AdamW(lm.parameters(), lr=5e-3, weight_decay=0.1)
losses = []
for epoch in range(8):
    for inputs, targets in loader:
        opt.zero_grad()
        logits = lm(inputs)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        loss.backward()
        opt.step()
        losses.append(loss.item())
print(inputs.shape, targets.shape, f"{losses[0]:.3f} -> {losses[-1]:.3f}")
assert losses[-1] < losses[0] and inputs.shape[1] <= 8
