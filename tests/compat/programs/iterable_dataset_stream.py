"""An IterableDataset streaming generated samples (__iter__ with yield), batched by DataLoader;
get_worker_info() is None in the main process."""
import math
import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class SineStream(IterableDataset):
    def __init__(self, start, end):
        super().__init__()
        self.start, self.end = start, end

    def __iter__(self):
        assert get_worker_info() is None
        for i in range(self.start, self.end):
            x = torch.tensor([i / 10.0])
            yield x, torch.sin(x)


loader = DataLoader(SineStream(0, 50), batch_size=8)
xs = []
for xb, yb in loader:
    assert xb.shape[1:] == (1,) and torch.allclose(yb, torch.sin(xb))
    xs.append(xb)
allx = torch.cat(xs)
assert allx.shape == (50, 1) and math.isclose(allx[-1].item(), 4.9, rel_tol=1e-6)
