"""PyTorch tutorial "Language Modeling with nn.Transformer" (beginner_source/
transformer_tutorial.py) at toy size, with the newer idioms the UvA / d2l notebooks add:
PositionalEncoding with torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model)) and
register_buffer('pe'), nn.TransformerEncoderLayer(batch_first=False / norm_first=True),
nn.TransformerEncoder(enable_nested_tensor=False), nn.Transformer.generate_square_subsequent_mask,
init_weights with uniform_(-0.1, 0.1) and bias.data.zero_(), batchify / get_batch,
clip_grad_norm_(0.5), StepLR and a LambdaLR warmup-cosine schedule, copy.deepcopy of the best
model, evaluate() under torch.no_grad(), and torch.set_printoptions(precision=3) for printed
logits."""
import copy
import math

import torch
from torch import nn, Tensor
from torch.nn import TransformerEncoder, TransformerEncoderLayer


class PositionalEncoding(nn.Module):

    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)

        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer('pe', pe)

    def forward(self, x: Tensor) -> Tensor:
        """
        Arguments:
            x: Tensor, shape ``[seq_len, batch_size, embedding_dim]``
        """
        x = x + self.pe[:x.size(0)]
        return self.dropout(x)


class TransformerModel(nn.Module):

    def __init__(self, ntoken: int, d_model: int, nhead: int, d_hid: int,
                 nlayers: int, dropout: float = 0.5, norm_first: bool = False):
        super().__init__()
        self.model_type = 'Transformer'
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        encoder_layers = TransformerEncoderLayer(d_model, nhead, d_hid, dropout, norm_first=norm_first)
        self.transformer_encoder = TransformerEncoder(encoder_layers, nlayers, enable_nested_tensor=False)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)
        self.init_weights()

    def init_weights(self) -> None:
        initrange = 0.1
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.linear.bias.data.zero_()
        self.linear.weight.data.uniform_(-initrange, initrange)

    def forward(self, src: Tensor, src_mask: Tensor = None) -> Tensor:
        """
        Arguments:
            src: Tensor, shape ``[seq_len, batch_size]``
            src_mask: Tensor, shape ``[seq_len, seq_len]``

        Returns:
            output Tensor of shape ``[seq_len, batch_size, ntoken]``
        """
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        if src_mask is None:
            """Generate a square causal mask for the sequence. The masked positions are filled
            with float('-inf'). Unmasked positions are filled with float(0.0)."""
            src_mask = nn.Transformer.generate_square_subsequent_mask(len(src)).to(src.device)
        output = self.transformer_encoder(src, src_mask, is_causal=True)
        output = self.linear(output)
        return output


text = ("the quick brown fox jumps over the lazy dog and the dog sleeps while the fox runs " * 12).split()
vocab = {w: i for i, w in enumerate(sorted(set(text)))}
data = torch.tensor([vocab[w] for w in text], dtype=torch.long)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


def batchify(data: Tensor, bsz: int) -> Tensor:
    """Divides the data into ``bsz`` separate sequences, removing extra elements
    that wouldn't cleanly fit."""
    seq_len = data.size(0) // bsz
    data = data[:seq_len * bsz]
    data = data.view(bsz, seq_len).t().contiguous()
    return data.to(device)


batch_size = 4
eval_batch_size = 2
train_data = batchify(data[:150], batch_size)  # shape ``[seq_len, batch_size]``
val_data = batchify(data[150:], eval_batch_size)
print(train_data.shape, val_data.shape)
bptt = 8


def get_batch(source: Tensor, i: int):
    """
    Args:
        source: Tensor, shape ``[full_seq_len, batch_size]``
        i: int

    Returns:
        tuple (data, target), where data has shape ``[seq_len, batch_size]`` and
        target has shape ``[seq_len * batch_size]``
    """
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].reshape(-1)
    return data, target


mask = nn.Transformer.generate_square_subsequent_mask(4)
print(mask)
assert mask.dtype == torch.float32 and torch.isinf(mask).sum().item() == 6

torch.manual_seed(0)
ntokens = len(vocab)  # size of vocabulary
model = TransformerModel(ntokens, 32, 2, 64, 2, 0.1, norm_first=True).to(device)
print(sum(p.numel() for p in model.parameters()))
criterion = nn.CrossEntropyLoss()
lr = 5.0  # learning rate
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)


def train(model: nn.Module, epoch) -> float:
    model.train()  # turn on train mode
    total_loss = 0.
    num_batches = len(train_data) // bptt
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        output = model(data)
        output_flat = output.view(-1, ntokens)
        loss = criterion(output_flat, targets)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        total_loss += loss.item()
    lr = scheduler.get_last_lr()[0]
    print(f'| epoch {epoch:3d} | {num_batches:5d} batches | lr {lr:02.2f} | '
          f'loss {total_loss / num_batches:5.2f}')
    return total_loss / num_batches


def evaluate(model: nn.Module, eval_data: Tensor) -> float:
    model.eval()  # turn on evaluation mode
    total_loss = 0.
    with torch.no_grad():
        for i in range(0, eval_data.size(0) - 1, bptt):
            data, targets = get_batch(eval_data, i)
            seq_len = data.size(0)
            output = model(data)
            output_flat = output.view(-1, ntokens)
            total_loss += seq_len * criterion(output_flat, targets).item()
    return total_loss / (len(eval_data) - 1)


best_val_loss = float('inf')
epochs = 3
for epoch in range(1, epochs + 1):
    train(model, epoch)
    val_loss = evaluate(model, val_data)
    val_ppl = math.exp(val_loss)
    print(f'| end of epoch {epoch:3d} | valid loss {val_loss:5.2f} | valid ppl {val_ppl:8.2f}')
    if val_loss < best_val_loss:
        best_val_loss = val_loss
        best_model = copy.deepcopy(model)
    scheduler.step()
print(scheduler.get_last_lr())
assert best_val_loss < math.log(ntokens)
test_loss = evaluate(best_model, val_data)
assert abs(test_loss - best_val_loss) < 1e-6
assert best_model.pos_encoder.pe.shape == (5000, 1, 32) and 'pos_encoder.pe' in best_model.state_dict()

# the same model trained with AdamW and a warmup + cosine LambdaLR
torch.manual_seed(0)
model = TransformerModel(ntokens, 32, 2, 64, 2, 0.0, norm_first=True).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
warmup, total = 5, 20


def lr_lambda(step):
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1.0 + math.cos(math.pi * progress))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
lrs = []
for step in range(total):
    i = (step * bptt) % (train_data.size(0) - bptt - 1)
    data, targets = get_batch(train_data, i)
    loss = criterion(model(data).view(-1, ntokens), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    lrs.append(scheduler.get_last_lr()[0])
    scheduler.step()
print([f"{x:.2e}" for x in lrs[:6]], f"{lrs[-1]:.2e}")
assert abs(lrs[0] - 3e-3 / warmup) < 1e-12
assert max(lrs) == lrs[warmup - 1]
torch.set_printoptions(precision=3)
model.eval()
with torch.no_grad():
    logits = model(train_data[:5, :1])
print(logits[-1, 0, :6])
print(logits.softmax(-1)[-1, 0].topk(3))
torch.set_printoptions(profile="default")
assert logits.shape == (5, 1, ntokens)
