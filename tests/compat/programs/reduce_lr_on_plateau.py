"""ReduceLROnPlateau driven by a validation loss: scheduler.step(val_loss) halves the lr after
`patience` epochs without improvement."""
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
scheduler = ReduceLROnPlateau(optimizer, mode='min', factor=0.5, patience=2)
val_losses = [1.0, 0.9, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8]
lrs = []
for epoch, val_loss in enumerate(val_losses):
    optimizer.step()
    scheduler.step(val_loss)
    lrs.append(optimizer.param_groups[0]['lr'])
print(lrs)
assert lrs[:5] == [1e-2] * 5 and lrs[5] == 5e-3 and lrs[-1] < 5e-3
