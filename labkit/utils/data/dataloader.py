"""DataLoader: a dataset, a sampler and a collate function, turned into a stream of batches.

    loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=2)
    for x, y in loader:          # one epoch; a new random order each time
        ...

With num_workers=0 batches are read in the main process, when asked for. With num_workers > 0
worker processes read them in the background (multiprocess.py) while the main process trains,
each keeping prefetch_factor batches ready; the batches still arrive in the sampler's order.
"""
import itertools

import numpy as np

from ...engine.distributions import random_full
from ...engine.generator import default_generator
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .fetch import FetchArgs, create_fetcher, uses_tensor_fast_path
from .pin_memory import pin_memory
from .sampler import (BatchSampler, RandomSampler, SequentialSampler, _check_bool,
                      _check_generator, _positive_int, index_batches)


class DataLoader:
    """Batches from a dataset, optionally shuffled and loaded by worker processes.

    dataset            map-style (len, [i]) or an IterableDataset (a stream)
    batch_size         samples per batch; None returns samples one by one, unbatched
    shuffle            a new random order every epoch (map-style datasets only)
    sampler            the order of indices, instead of shuffle
    batch_sampler      yields whole lists of indices, instead of batch_size/shuffle/sampler
    num_workers        worker processes (0: load in the main process)
    collate_fn         list of samples -> batch (default_collate)
    pin_memory         batches in page-locked memory for faster copies to a CUDA GPU; a no-op
                       without CUDA
    drop_last          drop the last, incomplete batch
    timeout            seconds to wait for a worker's batch before raising (0: no limit)
    worker_init_fn     called as fn(worker_id) in each worker, after seeding
    multiprocessing_context  'fork', 'spawn', 'forkserver' or a context; default fork where
                       the platform has it (the dataset is inherited, not pickled, so one
                       defined in a notebook works), else spawn
    generator          labkit.Generator for the shuffle order and the workers' seeds
    prefetch_factor    batches each worker keeps ready (default 2)
    persistent_workers keep the workers alive between epochs
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False):
        who = "DataLoader"
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"{who}: num_workers must be an integer >= 0 (0 loads in the main "
                             f"process), got num_workers={num_workers!r}.")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout < 0:
            raise ValueError(f"{who}: timeout must be a number of seconds >= 0 (0: wait as "
                             f"long as it takes), got timeout={timeout!r}.")
        if prefetch_factor is not None:
            if num_workers == 0:
                raise ValueError(f"{who}: prefetch_factor only applies to worker processes; "
                                 "set num_workers > 0, or leave prefetch_factor=None.")
            _positive_int(prefetch_factor, "prefetch_factor", who)
        if persistent_workers and num_workers == 0:
            raise ValueError(f"{who}: persistent_workers=True needs worker processes to keep; "
                             "set num_workers > 0.")
        _check_bool(drop_last, "drop_last", who, ValueError)
        _check_generator(generator, who)
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            for name, value in (("shuffle", shuffle not in (None, False)),
                                ("sampler", sampler is not None),
                                ("batch_sampler", batch_sampler is not None)):
                if value:
                    raise ValueError(f"{who}: {name} does not apply to an IterableDataset, "
                                     "which decides its own order (it has no indices). Shuffle "
                                     "inside the stream, or use a map-style Dataset.")
        else:
            try:
                len(dataset)        # an empty one gives no batches (shuffle: RandomSampler says)
            except TypeError:
                raise TypeError(f"{who}: the dataset ({type(dataset).__name__}) has no __len__. "
                                "A map-style dataset needs __len__ and __getitem__; a stream "
                                "should subclass IterableDataset.") from None
        if sampler is not None and shuffle:
            raise ValueError(f"{who}: pass either sampler or shuffle=True, not both: the sampler "
                             "already decides the order. For a random order use "
                             "sampler=RandomSampler(dataset), or drop the sampler.")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(f"{who}: batch_sampler yields whole batches, so it cannot be "
                                 "combined with batch_size, shuffle, sampler or drop_last; set "
                                 "those on the batch sampler instead.")
            batch_size = None
        elif batch_size is None:
            if drop_last:
                raise ValueError(f"{who}: drop_last=True needs batches: set batch_size.")
        else:
            batch_size = _positive_int(batch_size, "batch_size", who)
        if sampler is None and not self._iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.num_workers, self.timeout, self.generator = num_workers, timeout, generator
        self.collate_fn = collate_fn or (default_collate if self._auto_collation
                                         else default_convert)
        self.pin_memory, self.worker_init_fn = bool(pin_memory), worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.prefetch_factor = prefetch_factor or (2 if num_workers else None)
        self.persistent_workers = bool(persistent_workers)
        self._iterator = None

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    def _fetch_args(self):
        return FetchArgs(self.dataset, self._iterable, self._auto_collation, self.batch_size,
                         self.collate_fn, self.drop_last)

    def _tasks(self):
        """What each batch's fetch receives: index lists (or arrays), or None for a stream."""
        if self._iterable:
            return itertools.repeat(None)
        if not self._auto_collation:
            return iter(self.sampler)
        if uses_tensor_fast_path(self.dataset, True, self.collate_fn):
            return index_batches(self.batch_sampler)
        return iter(self.batch_sampler)

    def _base_seed(self):
        """Drawn once per iterator, with or without workers, so that the shuffle order
        after labkit.manual_seed does not depend on num_workers."""
        gen = self.generator if self.generator is not None else default_generator
        return int(random_full(gen, (), np.int64))      # torch: empty((), int64).random_()

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        from .multiprocess import MultiProcessIter
        if not self.persistent_workers:
            return MultiProcessIter(self)
        if self._iterator is None or self._iterator.closed:
            self._iterator = MultiProcessIter(self)
        else:
            self._iterator.reset(self)
        return self._iterator

    def __len__(self):
        """Batches per epoch. For an IterableDataset it comes from len(dataset) and is a
        promise the stream must keep (with several workers each may end a partial batch)."""
        if not self._iterable:
            return len(self.batch_sampler if self._auto_collation else self.sampler)
        try:
            n = len(self.dataset)
        except TypeError:
            raise TypeError("len(DataLoader): this IterableDataset has no __len__, so the "
                            "number of batches is unknown until the stream ends.") from None
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


class _SingleProcessIter:
    """Reads each batch in the main process when it is asked for."""

    def __init__(self, loader):
        loader._base_seed()
        self._fetcher = create_fetcher(*loader._fetch_args())
        self._tasks = loader._tasks()
        self._pin = loader.pin_memory

    def __iter__(self):
        return self

    def __next__(self):
        data = self._fetcher.fetch(next(self._tasks))
        return pin_memory(data) if self._pin else data
