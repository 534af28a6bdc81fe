"""Checkers for lecture 05 (data loading). `check_*` prints what is wrong (never raises),
`*_ok(fn, hidden=False)` says whether it is right, and with hidden=True also tries other sizes,
batches and worker counts, which the student does not see.
"""
import numpy as np

import labkit
from labkit.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info

from . import Verdict, compare
from ._support import call, first_failure, not_done, show


# Exercise 1: weights that balance the sources of a ConcatDataset

def _weights_case(fn, sizes):
    got, err = call("balancing_weights", fn, list(sizes))
    if err is not None:
        return err
    if got is None:
        return not_done("balancing_weights")
    k, total = len(sizes), sum(sizes)
    mistakes = {
        "these weights grow with the size of each source, which makes the imbalance worse; "
        "use 1 / size instead":
            np.concatenate([np.full(n, n / sum(m * m for m in sizes)) for n in sizes]),
        "every sample has the same weight: that is plain shuffling, and the biggest source "
        "still wins": np.full(total, 1 / total),
        "1 / size is right, but the weights must also sum to 1: divide by their sum":
            np.concatenate([np.full(n, 1 / n) for n in sizes]),
    }
    want = np.concatenate([np.full(n, 1 / (k * n)) for n in sizes])
    return compare(f"balancing_weights({list(sizes)})", got, want, mistakes=mistakes)


def _weights_verdicts(fn, hidden):
    yield _weights_case(fn, [500, 300, 200])
    if hidden:
        yield _weights_case(fn, [7, 1, 40, 2])
        yield _weights_case(fn, [12])


def check_balancing_weights(fn):
    """Print whether balancing_weights(sizes) draws every source equally often."""
    return show(first_failure(_weights_verdicts(fn, False)))


def balancing_weights_ok(fn, hidden=False):
    return bool(first_failure(_weights_verdicts(fn, hidden)))


# Exercise 2: a collate function that pads

class Sentences(Dataset):
    """A map-style dataset: sample i is (tokens, label), tokens a float32 tensor whose length
    is between 1 and `longest`."""

    def __init__(self, n, seed=5, longest=6):
        rng = np.random.default_rng(seed)
        self.items = [(rng.integers(1, 100, rng.integers(1, longest + 1)).astype(np.float32),
                       int(rng.integers(0, 2))) for _ in range(n)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        tokens, label = self.items[i]
        return labkit.from_numpy(tokens.copy()), label


def _collate_case(fn, batch):
    out, err = call("pad_collate", fn, list(batch))
    if err is not None:
        return err
    if out is None:
        return not_done("pad_collate")
    if not (isinstance(out, tuple) and len(out) == 3):
        return Verdict(False, "pad_collate should return three things: "
                              f"`return padded, lengths, labels` (got a {type(out).__name__}).")
    padded, lengths, labels = out
    width = max(len(t) for t, _ in batch)
    want = np.zeros((len(batch), width), np.float32)
    for row, (tokens, _) in enumerate(batch):
        want[row, :len(tokens)] = tokens.numpy()
    for verdict in (compare(f"padded (a batch of {len(batch)})", padded, want),
                    compare("lengths", lengths, [len(t) for t, _ in batch]),
                    compare("labels", labels, [label for _, label in batch])):
        if not verdict:
            return verdict
    for name, t, dtype in (("padded", padded, "float32"), ("lengths", lengths, "int64"),
                           ("labels", labels, "int64")):
        if str(getattr(t, "dtype", "")).rsplit(".", 1)[-1] != dtype:
            return Verdict(False, f"{name} should be a {dtype} tensor, got "
                                  f"{type(t).__name__} of dtype {getattr(t, 'dtype', None)}.")
    return Verdict(True, "correct: pad_collate pads, and returns the lengths and labels.")


def _in_a_loader(fn, data):
    loader = DataLoader(data, batch_size=3, collate_fn=fn)
    try:
        shapes = [tuple(p.shape) for p, _, _ in loader]
    except Exception as e:  # noqa: BLE001 (a student-facing message)
        return Verdict(False, f"in a DataLoader(batch_size=3) pad_collate raised "
                              f"{type(e).__name__}: {e}")
    return Verdict(True, "correct: pad_collate pads, and returns the lengths and labels; in a "
                         f"DataLoader with batch_size=3 the padded batches have shapes {shapes}.")


def _collate_verdicts(fn, hidden):
    data = Sentences(10)
    yield _collate_case(fn, [data[i] for i in range(4)])
    yield _in_a_loader(fn, data)
    if hidden:
        other = Sentences(9, seed=11, longest=12)
        yield _collate_case(fn, [other[i] for i in range(9)])
        yield _collate_case(fn, [other[3]])                      # a batch of one
        same = [(t[:1].clone(), y) for t, y in (other[i] for i in range(3))]
        yield _collate_case(fn, same)                            # nothing to pad


def check_pad_collate(fn):
    """Print whether pad_collate(batch) returns (padded, lengths, labels)."""
    return show(first_failure(_collate_verdicts(fn, False)))


def pad_collate_ok(fn, hidden=False):
    return bool(first_failure(_collate_verdicts(fn, hidden)))


# Exercise 3: one contiguous block per worker

class Blocks(IterableDataset):
    """An IterableDataset of the numbers 0 .. n-1 in which each worker yields its block
    range(*block_of(n, worker_id, num_workers))."""

    def __init__(self, n, block_of):
        self.n, self.block_of = n, block_of

    def __iter__(self):
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(*self.block_of(self.n, worker_id, num_workers)))


def _loader_case(fn, n, workers):
    try:
        loader = DataLoader(Blocks(n, fn), batch_size=4, num_workers=workers)
        got = [b.tolist() for b in loader]
    except Exception as e:  # noqa: BLE001 (a student-facing message)
        return Verdict(False, f"with num_workers={workers} reading the stream raised "
                              f"{type(e).__name__}: {e}")
    items = sorted(sum(got, []))
    if items == list(range(n)):
        return Verdict(True, f"num_workers={workers}: batches {got}")
    repeated = sorted({i for i in items if items.count(i) > 1})
    missing = sorted(set(range(n)) - set(items))
    outside = sorted(set(items) - set(range(n)))
    problems = ([f"{repeated} were read more than once (blocks overlap)"] * bool(repeated)
                + [f"{missing} were never read"] * bool(missing)
                + [f"{outside} are not in range({n}): the last block must end at n"]
                * bool(outside))
    return Verdict(False, f"with n={n} and num_workers={workers}: " + "; ".join(problems))


def _blocks_case(fn, n, workers):
    want = []
    size = -(-n // workers)
    for w in range(workers):
        want.append((w * size, min(w * size + size, n)))
    got = []
    for w in range(workers):
        block, err = call("block_of", fn, n, w, workers)
        if err is not None:
            return err
        got.append(block)
    try:
        got = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return Verdict(False, f"block_of should return two numbers (start, end), got {got}.")
    return compare(f"the blocks for n={n}, {workers} workers", got, want)


def _block_verdicts(fn, hidden):
    first, err = call("block_of", fn, 10, 0, 1)
    if err is not None or first is None or (isinstance(first, tuple)
                                            and all(v is None for v in first)):
        yield err or not_done("block_of")
        return
    for workers in (0, 2, 3):
        yield _loader_case(fn, 10, workers)
    yield _blocks_case(fn, 10, 3)
    if hidden:
        yield _blocks_case(fn, 7, 4)
        yield _blocks_case(fn, 9, 3)
        yield _blocks_case(fn, 1, 1)
        yield _loader_case(fn, 11, 2)


def check_block_of(fn):
    """Print the batches each worker count reads, and whether block_of(n, id, workers) is right."""
    verdicts = []
    for v in _block_verdicts(fn, False):
        verdicts.append(v)
        if v and v.message.startswith("num_workers="):
            print(v.message)
    return show(first_failure(verdicts))


def block_of_ok(fn, hidden=False):
    return bool(first_failure(_block_verdicts(fn, hidden)))
