"""A DataLoader with worker processes: num_workers=2, a worker_init_fn seeding each worker,
get_worker_info() inside __getitem__; every sample arrives exactly once, in order."""
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Squares(Dataset):
    def __len__(self):
        return 20

    def __getitem__(self, i):
        info = get_worker_info()
        return torch.tensor([float(i) ** 2]), -1 if info is None else info.id


def worker_init_fn(worker_id):
    torch.manual_seed(1234 + worker_id)


if __name__ == "__main__":
    loader = DataLoader(Squares(), batch_size=4, shuffle=False, num_workers=2,
                        worker_init_fn=worker_init_fn)
    values, workers = [], set()
    for xb, wid in loader:
        values += xb.view(-1).tolist()
        workers |= set(wid.tolist())
    assert values == [float(i) ** 2 for i in range(20)]
    assert workers == {0, 1}
