"""An MLP autoencoder on synthetic low-rank data: encoder/decoder Sequentials, Sigmoid output,
MSELoss, Adam; the reconstruction error falls and the code has the bottleneck size."""
import torch
import torch.nn as nn


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(32, 16), nn.ReLU(True), nn.Linear(16, 4))
        self.decoder = nn.Sequential(nn.Linear(4, 16), nn.ReLU(True), nn.Linear(16, 32), nn.Sigmoid())

    def forward(self, x):
        return self.decoder(self.encoder(x))


torch.manual_seed(0)
data = torch.sigmoid(torch.randn(256, 4) @ torch.randn(4, 32))
loader = torch.utils.data.DataLoader(data, batch_size=32, shuffle=True)
model = AutoEncoder()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-5)
epoch_loss = []
for epoch in range(15):
    total = 0.0
    for img in loader:
        output = model(img)
        loss = criterion(output, img)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * img.size(0)
    epoch_loss.append(total / len(data))
print(epoch_loss[0], epoch_loss[-1])
assert epoch_loss[-1] < epoch_loss[0] / 2
assert model.encoder(data[:3]).shape == (3, 4)
