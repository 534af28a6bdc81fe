"""Image-tensor manipulations from data-augmentation code: HWC -> CHW with permute/movedim,
horizontal flip with torch.flip, reflect padding with F.pad, random crops by slicing, torch.roll,
unflatten of a flat batch, and nn.Dropout2d zeroing whole channels."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
hwc = torch.rand(8, 8, 3)
chw = hwc.permute(2, 0, 1)
assert torch.equal(chw, torch.movedim(hwc, -1, 0)) and chw.shape == (3, 8, 8)
batch = torch.stack([chw, chw])
flipped = torch.flip(batch, dims=[3])
assert torch.equal(flipped[..., 0], batch[..., -1])
padded = F.pad(batch, (2, 2, 2, 2), mode='reflect')
assert padded.shape == (2, 3, 12, 12) and torch.equal(padded[..., 2:-2, 2:-2], batch)
assert torch.equal(padded[..., 2, 0], batch[..., 0, 2])
i, j = torch.randint(0, 5, (2,)).tolist()
crop = padded[:, :, i:i + 8, j:j + 8]
assert crop.shape == batch.shape
shifted = torch.roll(batch, shifts=1, dims=2)
assert torch.equal(shifted[:, :, 0], batch[:, :, -1])
flat = batch.flatten(1)
assert torch.equal(flat.unflatten(1, (3, 8, 8)), batch)
assert F.pad(torch.ones(1, 2), (1, 1), value=0.0).tolist() == [[0, 1, 1, 0]]
drop = nn.Dropout2d(p=0.5)
out = drop(torch.ones(4, 16, 3, 3))
per_channel = out.sum(dim=(2, 3))
assert torch.all((per_channel == 0) | (per_channel == 18))
