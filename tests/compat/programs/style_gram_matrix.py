"""The neural-style tutorial's pieces: gram_matrix with input.size(), features.view(a * b, c * d),
torch.mm(features, features.t()).div(a*b*c*d), a StyleLoss module storing target.detach(), and
optimizing the input image itself (input_img.requires_grad_(True), Adam, clamp_(0, 1))."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def gram_matrix(input):
    a, b, c, d = input.size()
    features = input.view(a * b, c * d)
    G = torch.mm(features, features.t())
    return G.div(a * b * c * d)


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super(StyleLoss, self).__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, input):
        self.loss = F.mse_loss(gram_matrix(input), self.target)
        return input


torch.manual_seed(0)
conv = nn.Conv2d(3, 4, 3, padding=1)
for p in conv.parameters():
    p.requires_grad_(False)
style_img = torch.rand(1, 3, 12, 12)
style_loss = StyleLoss(conv(style_img))
G = gram_matrix(torch.ones(1, 2, 3, 3))
assert G.shape == (2, 2) and torch.allclose(G, torch.full((2, 2), 9 / 18))
input_img = torch.rand(1, 3, 12, 12).requires_grad_(True)
optimizer = torch.optim.Adam([input_img], lr=0.05)
history = []
for step in range(40):
    optimizer.zero_grad()
    style_loss(conv(input_img))
    style_loss.loss.backward()
    optimizer.step()
    with torch.no_grad():
        input_img.clamp_(0, 1)
    history.append(style_loss.loss.item())
assert history[-1] < history[0] / 2
assert conv.weight.grad is None
