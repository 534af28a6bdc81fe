"""train() versus eval(): BatchNorm1d uses batch statistics and updates running_mean/var in
training, the running ones in eval; Dropout zeroes and rescales in training, is the identity in eval."""
import torch
import torch.nn as nn

torch.manual_seed(0)
bn = nn.BatchNorm1d(4, momentum=0.1)
x = torch.randn(64, 4) * 3 + 2
assert bn.training
y = bn(x)
assert torch.allclose(y.mean(0), torch.zeros(4), atol=1e-5)
assert torch.allclose(bn.running_mean, 0.1 * x.mean(0), atol=1e-5)
assert torch.allclose(bn.running_var, 0.9 + 0.1 * x.var(0, unbiased=True), atol=1e-4)
bn.eval()
assert not bn.training
y_eval = bn(x)
expected = (x - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps) * bn.weight + bn.bias
assert torch.allclose(y_eval, expected, atol=1e-5)

drop = nn.Dropout(p=0.5)
ones = torch.ones(1000)
out = drop(ones)
kept = (out != 0).float().mean().item()
assert 0.4 < kept < 0.6 and set(out.unique().tolist()) <= {0.0, 2.0}
drop.eval()
assert torch.equal(drop(ones), ones)

model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 1))
model.eval()
assert all(not m.training for m in model.modules())
with torch.no_grad():
    assert torch.equal(model(x[:5]), model(x[:5]))
model.train()
assert model[3].training
