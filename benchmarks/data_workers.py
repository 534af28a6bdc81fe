"""Data workers: a dataset whose items each cost about 2 ms (simulated I/O, time.sleep) read
by labkit's DataLoader with num_workers=2 vs num_workers=0. Throughput is items per second over
whole epochs, worker start-up included (target: workers=2 / workers=0 >= 1.8 on 2 cores).
"""
import time

from labkit.utils.data import DataLoader, Dataset
from timing import compare

ITEMS, BATCH, COST_S = 512, 16, 0.002


class SlowDataset(Dataset):
    """Item i is i, after COST_S seconds of waiting, as if read from a slow disk."""

    def __len__(self):
        return ITEMS

    def __getitem__(self, i):
        time.sleep(COST_S)
        return i


def epoch(num_workers):
    loader = DataLoader(SlowDataset(), batch_size=BATCH, num_workers=num_workers)

    def run():
        for _ in loader:
            pass
    return run


def main():
    med = compare({"num_workers=0": epoch(0), "num_workers=2": epoch(2)},
                  rounds=5, number=1, warmup=1)
    print(f"{ITEMS} items of ~{COST_S * 1e3:.0f} ms each, batch {BATCH}, one epoch:")
    for name, t in med.items():
        print(f"  {name:<14s} {t * 1e3:8.1f} ms   {ITEMS / t:8.0f} items/s")
    ratio = med["num_workers=0"] / med["num_workers=2"]
    print(f"data_workers throughput workers=2 / workers=0 = {ratio:.2f}  (target >= 1.8)")


if __name__ == "__main__":
    main()
