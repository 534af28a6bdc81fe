"""Datasets: where samples come from.

Two kinds, as in PyTorch. A map-style Dataset answers `len(ds)` and `ds[i]`, so a sampler can
pick any order. An IterableDataset is a stream (`iter(ds)`): a file read line by line, a
generator, a socket; it decides the order itself, and with several workers it must split
itself between them (see get_worker_info).
"""
import bisect
import types

import numpy as np

from ...engine.distributions import randperm
from ...engine.generator import Generator, default_generator
from ...engine.tensor import Tensor


class Dataset:
    """Map-style: subclass it and define __getitem__(i) (one sample) and __len__."""
    __class_getitem__ = classmethod(types.GenericAlias)  # Dataset[T] in type hints, as torch

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(self, index) "
                                  "returning one sample, and __len__(self).")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: subclass it and define __iter__. Each DataLoader worker iterates
    its own copy, so a dataset that does not split itself (get_worker_info) is read once per
    worker."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__(self), yielding "
                                  "samples.")

    def __add__(self, other):
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Several IterableDatasets read one after the other (chained on the fly, as torch's)."""

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class _SizeMismatch(ValueError, AssertionError):
    """torch asserts the sizes match (AssertionError); code that catches that still works."""


class _NoTensors(ValueError, IndexError):
    """torch fails on the missing first tensor (IndexError); code that catches that still
    works."""


class TensorDataset(Dataset):
    """Sample i is (t[i] for each tensor): inputs and targets held in memory, row by row."""

    def __init__(self, *tensors):
        if not tensors:
            raise _NoTensors("TensorDataset: pass at least one tensor, e.g. "
                             "TensorDataset(inputs, targets).")
        for k, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset: argument {k} is a {type(t).__name__}, not a "
                                "labkit Tensor. Convert it first, e.g. labkit.from_numpy(array) "
                                "or labkit.tensor(data).")
            if t.dim() == 0:
                raise ValueError(f"TensorDataset: argument {k} is a 0-d tensor; each tensor "
                                 "needs a first dimension with one row per sample.")
        sizes = [t.shape[0] for t in tensors]
        if len(set(sizes)) > 1:
            raise _SizeMismatch(f"TensorDataset: the tensors must have the same first dimension "
                             f"(one row per sample), got sizes {sizes}. Check that the inputs "
                             "and the targets were built from the same samples.")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class ConcatDataset(Dataset):
    """Several map-style datasets read as one: index i falls in the dataset whose range
    holds it (cumulative_sizes marks the ends)."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: got no datasets; pass a list of at least one.")
        for k, d in enumerate(self.datasets):
            if isinstance(d, IterableDataset):
                raise TypeError(f"ConcatDataset: dataset {k} is an IterableDataset, which has "
                                "no indices. Chain streams inside one IterableDataset instead "
                                "(e.g. with itertools.chain in its __iter__).")
        self.cumulative_sizes = np.cumsum([len(d) for d in self.datasets]).tolist()

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"ConcatDataset: index {index} is out of range for {n} samples.")
        index %= n
        k = bisect.bisect_right(self.cumulative_sizes, index)
        return self.datasets[k][index - (self.cumulative_sizes[k - 1] if k else 0)]


class Subset(Dataset):
    """The samples of `dataset` at `indices` (a list, range or 1-D tensor), renumbered
    0..len(indices)-1."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[int(self.indices[i]) for i in index]]
        i = self.indices[index]
        return self.dataset[int(i) if isinstance(i, Tensor) else i]

    def __getitems__(self, indices):
        """A whole batch at once (the DataLoader asks so), through the dataset's own
        __getitems__ when it has one."""
        picked = [int(self.indices[i]) for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(picked)
        return [self.dataset[i] for i in picked]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Split into non-overlapping random Subsets of the given lengths, or of the given
    fractions of len(dataset) when they sum to 1 (e.g. [0.8, 0.2])."""
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError("random_split: generator must be a labkit.Generator.")
    n = len(dataset)
    lengths = list(lengths)
    if any(x < 0 for x in lengths):
        raise ValueError(f"random_split: lengths must be >= 0, got {lengths}.")
    if lengths and all(x <= 1 for x in lengths) and abs(sum(lengths) - 1) < 1e-9 \
            and sum(lengths) != n:
        counts = [int(np.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):       # hand out the remainder one by one
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError(f"random_split: the lengths add up to {sum(lengths)}, but the dataset "
                         f"has {n} samples. Pass lengths that sum to len(dataset), or "
                         "fractions that sum to 1 (e.g. [0.8, 0.2]).")
    perm = randperm(generator or default_generator, n).tolist()
    ends = np.cumsum(lengths).tolist()
    return [Subset(dataset, perm[end - k:end]) for k, end in zip(lengths, ends)]
