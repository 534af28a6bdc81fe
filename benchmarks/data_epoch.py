"""Data epoch: one shuffled epoch over an in-memory TensorDataset (60000 x 784 float32 inputs,
int64 labels, batch 64), labkit's DataLoader vs a numpy permutation + slicing loop (target:
labkit / numpy <= 1.5), and torch's DataLoader alongside when it is installed.
"""
import numpy as np

import labkit
from labkit.utils.data import DataLoader, TensorDataset
from timing import compare, report

N, D, B = 60000, 784, 64
rng = np.random.default_rng(0)
X = rng.standard_normal((N, D)).astype(np.float32)
Y = rng.integers(0, 10, N)


def numpy_epoch():
    perm = rng.permutation(N)
    for start in range(0, N, B):
        idx = perm[start:start + B]
        X[idx], Y[idx]


def loader_epoch(loader):
    def epoch():
        for _ in loader:
            pass
    return epoch


def main():
    labkit.manual_seed(0)
    lk = DataLoader(TensorDataset(labkit.from_numpy(X), labkit.from_numpy(Y)), batch_size=B,
                    shuffle=True)
    candidates = {"numpy permutation + slicing": numpy_epoch, "labkit DataLoader": loader_epoch(lk)}
    try:
        import torch
        from torch.utils.data import DataLoader as TorchLoader, TensorDataset as TorchTensors
        torch.manual_seed(0)
        tl = TorchLoader(TorchTensors(torch.from_numpy(X), torch.from_numpy(Y)), batch_size=B,
                         shuffle=True)
        candidates["torch DataLoader"] = loader_epoch(tl)
    except ImportError:
        print("(torch not installed: its row is skipped)")
    med = compare(candidates, rounds=9, number=1, warmup=1)
    report(f"one shuffled epoch, {N} x {D} float32, batch {B}:", med,
           "numpy permutation + slicing", unit="ms")
    ratio = med["labkit DataLoader"] / med["numpy permutation + slicing"]
    print(f"data_epoch labkit / numpy = {ratio:.2f}  (target <= 1.5)")


if __name__ == "__main__":
    main()
