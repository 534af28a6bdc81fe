"""Sebastian Raschka's "Build a Large Language Model (From Scratch)", appendix E (LoRA):
LoRALayer with torch.nn.Parameter(torch.empty(in_dim, rank)) and
torch.nn.init.kaiming_uniform_(self.A, a=math.sqrt(5)), B = zeros, alpha * (x @ A @ B);
LinearWithLoRA wrapping a Linear; replace_linear_with_lora walking model.named_children() and
setattr(model, name, LinearWithLoRA(module, rank, alpha)) recursively; freezing every original
parameter, counting trainable parameters before/after, and training only A and B."""
import math

import torch
import torch.nn as nn


class LoRALayer(torch.nn.Module):
    def __init__(self, in_dim, out_dim, rank, alpha):
        super().__init__()
        self.A = torch.nn.Parameter(torch.empty(in_dim, rank))
        torch.nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))  # similar to standard weight initialization
        self.B = torch.nn.Parameter(torch.zeros(rank, out_dim))
        self.alpha = alpha

    def forward(self, x):
        x = self.alpha * (x @ self.A @ self.B)
        return x


class LinearWithLoRA(torch.nn.Module):
    def __init__(self, linear, rank, alpha):
        super().__init__()
        self.linear = linear
        self.lora = LoRALayer(linear.in_features, linear.out_features, rank, alpha)

    def forward(self, x):
        return self.linear(x) + self.lora(x)


def replace_linear_with_lora(model, rank, alpha):
    for name, module in model.named_children():
        if isinstance(module, torch.nn.Linear):
            # Replace the Linear layer with LinearWithLoRA
            setattr(model, name, LinearWithLoRA(module, rank, alpha))
        else:
            # Recursively apply the same function to child modules
            replace_linear_with_lora(module, rank, alpha)


class Classifier(nn.Module):
    def __init__(self, vocab_size=20, emb_dim=16, num_classes=2):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, emb_dim)
        self.block = nn.Sequential(nn.LayerNorm(emb_dim), nn.Linear(emb_dim, 32), nn.GELU(),
                                   nn.Linear(32, emb_dim))
        self.out_head = nn.Linear(emb_dim, num_classes)

    def forward(self, x):
        h = self.emb(x)
        h = h + self.block(h)
        return self.out_head(h[:, -1, :])


torch.manual_seed(123)
model = Classifier()
X = torch.randint(0, 20, (64, 6))
y = (X[:, -1] >= 10).long()
with torch.no_grad():
    before = model(X)

total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"Total trainable parameters before: {total_params:,}")
for param in model.parameters():
    param.requires_grad = False
total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"Total trainable parameters after: {total_params:,}")
assert total_params == 0

replace_linear_with_lora(model, rank=4, alpha=8)
total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"Total trainable LoRA parameters: {total_params:,}")
assert total_params == 4 * (16 + 32) + 4 * (32 + 16) + 4 * (16 + 2)
print(model)
assert isinstance(model.block[1], LinearWithLoRA) and isinstance(model.out_head, LinearWithLoRA)

with torch.no_grad():
    after = model(X)
assert torch.equal(before, after)  # B starts at zero: the model is unchanged

layer = LoRALayer(16, 32, 4, 8)
print(layer.A.shape, layer.A.abs().max() <= 1 / math.sqrt(4))  # fan_in of A (16, 4) is 4
assert layer.A.abs().max().item() <= 1 / math.sqrt(4) + 1e-6

optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
frozen = model.emb.weight.clone()
for epoch in range(60):
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(X), y)
    loss.backward()
    optimizer.step()
    if epoch % 20 == 0:
        print(f"epoch {epoch:2d} loss {loss.item():.4f}")
acc = (model(X).argmax(dim=-1) == y).float().mean().item()
print(f"accuracy {acc:.2f}")
assert torch.equal(model.emb.weight, frozen) and model.emb.weight.grad is None
assert acc > 0.8
names = [n for n, p in model.named_parameters() if p.requires_grad]
print(names)
