"""Samplers: which dataset indices a DataLoader reads, in which order, grouped how.

A sampler yields indices; a BatchSampler groups them into lists, one list per batch. The
samplers here know a whole epoch in advance, so each builds it as one numpy array
(`_indices`): iterating the sampler and cutting batches straight out of the array
(`index_batches`) draw the same random numbers, and the second needs no Python loop per index.
"""
import numpy as np

from ...engine import distributions as _dist
from ...engine.generator import Generator, default_generator


def _check_generator(generator, who):
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"{who}: generator must be a labkit.Generator (or None for labkit's "
                        f"default one), got {type(generator).__name__}. Make one with "
                        "labkit.Generator().manual_seed(0).")


def _gen(generator):
    return generator if generator is not None else default_generator


def _epoch_generator(generator):
    """torch's RandomSampler without a generator seeds a fresh one each epoch from one
    int64 draw of the default stream; labkit does the same, so the order is torch's."""
    if generator is not None:
        return generator
    return Generator().manual_seed(int(_dist.random_full(default_generator, (), np.int64)))


def _positive_int(value, name, who):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{who}: {name} must be a positive integer, got {name}={value!r}.")
    return int(value)


def _check_bool(value, name, who, error=TypeError):
    """torch's checks: RandomSampler raises TypeError, BatchSampler and
    WeightedRandomSampler ValueError (error=ValueError)."""
    if not isinstance(value, bool):
        raise error(f"{who}: {name} must be True or False, got {name}={value!r}.")


class Sampler:
    """Base class: iterating a sampler yields dataset indices (define __iter__, and __len__
    when the count is known)."""

    def __init__(self, data_source=None):
        # torch's samplers accept and ignore data_source; code written for them calls this.
        pass

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__, yielding "
                                  "dataset indices.")


class _EpochSampler(Sampler):
    """A sampler whose epoch is one index array, built by `_indices()`, or, when an epoch may be
    too long to hold (minGPT's RandomSampler(num_samples=int(1e10))), its pieces in order,
    drawn lazily by `_chunks()`."""

    def __iter__(self):
        for chunk in self._chunks():
            yield from chunk.tolist()

    def _chunks(self):
        yield self._indices()


class SequentialSampler(_EpochSampler):
    """0, 1, ..., len(data_source) - 1, in order, every epoch."""

    def __init__(self, data_source):
        self.data_source = data_source

    def _indices(self):
        return np.arange(len(self.data_source))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(_EpochSampler):
    """A new random order every epoch. replacement=True draws num_samples indices
    independently (repeats possible); without replacement, num_samples larger than the
    dataset chains several permutations."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        _check_bool(replacement, "replacement", "RandomSampler")
        _check_generator(generator, "RandomSampler")
        self.data_source, self.replacement, self.generator = data_source, replacement, generator
        self._num_samples = num_samples
        if len(data_source) == 0:
            raise ValueError("RandomSampler: the dataset is empty (len 0), so there is nothing "
                             "to sample. Check how the dataset was built.")
        _positive_int(self.num_samples, "num_samples", "RandomSampler")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    _CHUNK = 1 << 16     # indices drawn at a time with replacement: the stream is the same

    def _chunks(self):
        n, k = len(self.data_source), self.num_samples
        gen = _epoch_generator(self.generator)
        if self.replacement:
            for start in range(0, k, self._CHUNK):
                yield _dist.randint(gen, (min(self._CHUNK, k - start),), 0, n)
            return
        for _ in range(k // n):
            yield _dist.randperm(gen, n)
        if k % n:
            yield _dist.randperm(gen, n)[:k % n]
        else:
            _dist.skip_randperm(gen, n)           # torch draws it even when k % n == 0

    def _indices(self):
        return np.concatenate(list(self._chunks()))

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(_EpochSampler):
    """The given indices, in a new random order every epoch (e.g. a validation split)."""

    def __init__(self, indices, generator=None):
        _check_generator(generator, "SubsetRandomSampler")
        self.indices, self.generator = indices, generator

    def _indices(self):
        idx = np.asarray(self.indices, dtype=np.int64)
        return idx[_dist.randperm(_gen(self.generator), len(idx))]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(_EpochSampler):
    """num_samples indices, index i drawn with probability weights[i] / sum(weights).

    Weights need not sum to 1. To draw each class (or source) equally often, give every
    sample the weight 1 / (size of its class)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        who = "WeightedRandomSampler"
        _check_bool(replacement, "replacement", who, ValueError)
        _check_generator(generator, who)
        self.num_samples = _positive_int(num_samples, "num_samples", who)
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 1 or w.size == 0:
            raise ValueError(f"{who}: weights must be a non-empty 1-D sequence (one weight per "
                             f"sample), got shape {w.shape}.")
        if not np.isfinite(w).all():
            raise ValueError(f"{who}: weights contain nan or inf (first at index "
                             f"{int(np.argmin(np.isfinite(w)))}). Every weight must be a finite "
                             "number >= 0.")
        if (w < 0).any():
            i = int(np.argmax(w < 0))
            raise ValueError(f"{who}: weights must be >= 0, but weights[{i}] = {w[i]:g}. A "
                             "weight is a relative chance of being drawn; use 0 to never draw "
                             "a sample.")
        if w.sum() == 0:
            raise ValueError(f"{who}: all {w.size} weights are 0, so no sample can be drawn. "
                             "Give at least one sample a positive weight.")
        if not replacement and self.num_samples > np.count_nonzero(w):
            raise ValueError(f"{who}: without replacement each sample can be drawn once, but "
                             f"num_samples={self.num_samples} exceeds the "
                             f"{np.count_nonzero(w)} samples with a positive weight. Lower "
                             "num_samples or pass replacement=True.")
        self.weights, self.replacement, self.generator = w, replacement, generator

    def _indices(self):
        # torch.multinomial(weights as float64, num_samples, replacement, generator)
        return _dist.multinomial(_gen(self.generator), self.weights[None, :],
                                 self.num_samples, self.replacement)[0]

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups a sampler's indices into lists of batch_size; the last one is shorter, or
    dropped when drop_last=True."""

    def __init__(self, sampler, batch_size, drop_last):
        self.batch_size = _positive_int(batch_size, "batch_size", "BatchSampler")
        _check_bool(drop_last, "drop_last", "BatchSampler", ValueError)
        self.sampler, self.drop_last = sampler, drop_last

    def __iter__(self):
        if type(self.sampler).__iter__ is _EpochSampler.__iter__:
            for batch in self._slices():
                yield batch.tolist()
            return
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def _slices(self):
        carry = None     # the indices of a batch that straddles two chunks
        for chunk in self.sampler._chunks():
            idx = chunk if carry is None else np.concatenate([carry, chunk])
            stop = len(idx) - len(idx) % self.batch_size
            for start in range(0, stop, self.batch_size):
                yield idx[start:start + self.batch_size]
            carry = idx[stop:]
        if carry is not None and len(carry) and not self.drop_last:
            yield carry

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


def index_batches(batch_sampler):
    """The batches of any batch sampler as int64 index arrays, sliced from one epoch array
    when the sampler builds one."""
    if type(batch_sampler) is BatchSampler and \
            type(batch_sampler.sampler).__iter__ is _EpochSampler.__iter__:
        yield from batch_sampler._slices()
    else:
        for batch in batch_sampler:
            yield np.asarray(batch, dtype=np.int64)
