"""The FGSM tutorial's attack: data.requires_grad = True, loss.backward(), data.grad.data.sign(),
perturbed = torch.clamp(image + epsilon * sign, 0, 1); accuracy drops as epsilon grows."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.rand(200, 20)
y = (X[:, :10].sum(1) > X[:, 10:].sum(1)).long()
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for _ in range(150):
    opt.zero_grad()
    F.cross_entropy(model(X), y).backward()
    opt.step()
model.eval()


def fgsm_attack(image, epsilon, data_grad):
    sign_data_grad = data_grad.sign()
    perturbed_image = image + epsilon * sign_data_grad
    return torch.clamp(perturbed_image, 0, 1)


accuracies = []
for epsilon in [0, 0.05, 0.2]:
    data = X.clone()
    data.requires_grad = True
    output = model(data)
    loss = F.nll_loss(F.log_softmax(output, dim=1), y)
    model.zero_grad()
    loss.backward()
    data_grad = data.grad.data
    perturbed_data = fgsm_attack(data, epsilon, data_grad)
    final_pred = model(perturbed_data).max(1, keepdim=True)[1]
    accuracies.append((final_pred.squeeze(1) == y).float().mean().item())
    assert perturbed_data.min() >= 0 and perturbed_data.max() <= 1
print(accuracies)
assert accuracies[0] > 0.85 and accuracies[2] < accuracies[0] - 0.2
