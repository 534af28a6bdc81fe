"""The cubic fit with nn: x.unsqueeze(-1).pow(p), Sequential(Linear, Flatten(0, 1)), MSELoss(sum)."""
import math
import torch

x = torch.linspace(-math.pi, math.pi, 500)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
assert xx.shape == (500, 3)

torch.manual_seed(2)
model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1)
)
loss_fn = torch.nn.MSELoss(reduction='sum')
learning_rate = 1e-6
history = []
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    history.append(loss.item())
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

linear_layer = model[0]
print(f"y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + ...")
assert history[-1] < history[0]
assert y_pred.shape == (500,)
