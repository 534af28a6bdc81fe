"""Fetchers: how one batch is read, the same in the main process and in a worker.

A map-style fetcher reads the sampled indices one by one (or all at once, when the dataset
defines __getitems__, as torch's fetcher does) and collates them. For an in-memory
TensorDataset with the default collate a batch is just rows of each tensor, so it is read with
one fancy-index per tensor (the same values as row-by-row stacking, far less Python). An
iterable fetcher pulls the next samples from the stream.
"""
import itertools
from typing import NamedTuple

from ...engine.tensor import Tensor
from .collate import default_collate
from .dataset import TensorDataset


def uses_tensor_fast_path(dataset, auto_collation, collate_fn):
    return (auto_collation and collate_fn is default_collate
            and type(dataset).__getitem__ is TensorDataset.__getitem__)


class FetchArgs(NamedTuple):
    """What a fetcher is made from: the loader's settings, sent as they are to each worker."""
    dataset: object
    iterable: bool
    auto_collation: bool
    batch_size: object
    collate_fn: object
    drop_last: bool


def create_fetcher(dataset, iterable, auto_collation, batch_size, collate_fn, drop_last):
    """Without auto_collation (batch_size=None) each fetch is one sample through collate_fn.
    Takes the fields of a FetchArgs: create_fetcher(*args)."""
    if iterable:
        return _IterableFetcher(dataset, batch_size if auto_collation else None, collate_fn,
                                drop_last)
    if uses_tensor_fast_path(dataset, auto_collation, collate_fn):
        return _TensorFetcher(dataset)
    return _MapFetcher(dataset, auto_collation, collate_fn)


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, indices):
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)   # a batch in one call
            samples = getitems(indices) if getitems else [self.dataset[i] for i in indices]
            return self.collate_fn(samples)
        return self.collate_fn(self.dataset[indices])


class _TensorFetcher:
    def __init__(self, dataset):
        self.tensors = dataset.tensors

    def fetch(self, indices):
        return [_rows(t, indices) for t in self.tensors]


def _rows(t, indices):
    """t[indices] for an index array: a plain gather when t needs no gradient (no graph to
    record; the DataLoader epoch benchmark measures this), t[indices] otherwise, and for its
    error when an index is out of range."""
    if t.requires_grad:
        return t[indices]
    xp = t.device.xp
    try:
        return Tensor._make(xp.take(t._data, xp.asarray(indices), axis=0), t.device)
    except IndexError:
        return t[indices]


class _IterableFetcher:
    """Reads batch_size samples per fetch; StopIteration once the stream has nothing left
    (or only a partial batch, with drop_last)."""

    def __init__(self, dataset, batch_size, collate_fn, drop_last):
        try:
            self.stream = iter(dataset)
        except TypeError as e:
            raise TypeError(f"{type(dataset).__name__}.__iter__ must return an iterator (write "
                            f"it with yield): {e}") from None
        self.batch_size, self.collate_fn, self.drop_last = batch_size, collate_fn, drop_last

    def fetch(self, indices=None):
        if self.batch_size is None:
            return self.collate_fn(next(self.stream))
        samples = list(itertools.islice(self.stream, self.batch_size))
        if not samples or (self.drop_last and len(samples) < self.batch_size):
            raise StopIteration
        return self.collate_fn(samples)
