"""Turning a list of samples into one batch (torch's default_collate rules).

The batch keeps the samples' structure: samples that are (image, label) tuples give a list
[images, labels]; dict samples give a dict of batches; tensors, numpy arrays and numbers are
stacked along a new first dimension. When samples do not fit together the error says which
field of which sample is the odd one out.
"""
import collections.abc

import numpy as np

from ...engine.creation import as_tensor, from_numpy, tensor
from ...engine.dtype import float64
from ...engine.ops.join import stack
from ...engine.tensor import Tensor


class _EmptyBatch(ValueError, IndexError):
    """torch fails on the missing first sample (IndexError); code catching that still works."""


def default_collate(batch):
    """Stack a list of samples into one batch, keeping their structure."""
    if len(batch) == 0:
        raise _EmptyBatch("default_collate: got an empty batch; a batch needs at least one "
                         "sample.")
    return _collate(list(batch), "")


def _where(path):
    return f" in field {path}" if path else ""


def _fix():
    return ("Make every sample the same shape in the Dataset (pad or crop), or pass "
            "DataLoader(collate_fn=...) that pads them or keeps them in a list.")


def _check_shapes(batch, path):
    first = tuple(batch[0].shape)
    for i, b in enumerate(batch):
        if tuple(b.shape) != first:
            raise RuntimeError(
                f"default_collate: samples 0 and {i} have different shapes{_where(path)}, "
                f"{list(first)} and {list(b.shape)}, so they cannot be stacked into one "
                f"batch. {_fix()}")


def _collate(batch, path):
    elem = batch[0]
    if isinstance(elem, Tensor):
        _check_shapes(batch, path)
        return stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OUSV":
            raise TypeError(f"default_collate: numpy arrays of dtype {elem.dtype}{_where(path)} "
                            "cannot become tensors; convert them to numbers in the Dataset.")
        _check_shapes(batch, path)
        return from_numpy(np.stack(batch))
    if _foreign_array(elem):      # another library's tensor (torchvision's ToTensor gives
        return _collate([_to_numpy(e) for e in batch], path)        # torch's): its values
    if isinstance(elem, np.generic) and elem.dtype.kind not in "OUSV":
        return as_tensor(np.array(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):            # bools too: they stay a bool tensor
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        keys = set(elem)
        for i, d in enumerate(batch):
            if set(d) != keys:
                raise KeyError(f"default_collate: samples 0 and {i} have different keys"
                               f"{_where(path)}: {sorted(map(str, keys))} and "
                               f"{sorted(map(str, d))}. Give every sample the same keys.")
        out = {k: _collate([d[k] for d in batch], f"{path}[{k!r}]") for k in elem}
        try:
            return type(elem)(out)
        except TypeError:                # a Mapping type that cannot be built from a dict
            return out
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):      # namedtuple
        return type(elem)(*(_collate(s, f"{path}.{f}")
                            for f, s in zip(elem._fields, zip(*batch))))
    if isinstance(elem, collections.abc.Sequence):
        for i, s in enumerate(batch):
            if len(s) != len(elem):
                raise RuntimeError(
                    f"default_collate: samples 0 and {i} are sequences of different lengths"
                    f"{_where(path)}, {len(elem)} and {len(s)}, so they cannot be stacked "
                    f"field by field. {_fix()}")
        # each field's samples stay the tuple zip makes (strings come back as a tuple, as torch)
        return [_collate(s, f"{path}[{k}]") for k, s in enumerate(zip(*batch))]
    raise TypeError(f"default_collate: a batch must contain tensors, numpy arrays, numbers, "
                    f"strings, dicts, lists or tuples; found {type(elem).__name__}"
                    f"{_where(path)}. Convert it in the Dataset's __getitem__, or pass "
                    "DataLoader(collate_fn=...) that knows how to batch it.")


def default_convert(data):
    """What a DataLoader with batch_size=None returns: each sample as it is, with numpy
    arrays and numbers turned into tensors (nothing is stacked)."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OUSV":
        return from_numpy(data)
    if isinstance(data, np.generic) and data.dtype.kind not in "OUSV":
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        out = {k: default_convert(v) for k, v in data.items()}
        try:
            return type(data)(out)
        except TypeError:
            return out
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (tuple, list)):
        return [default_convert(d) for d in data]
    return data


def _foreign_array(x):
    """An array of another library (torch, jax, cupy ...): it has a shape, a dtype and
    converts to numpy."""
    return (hasattr(x, "__array__") or hasattr(x, "numpy")) and hasattr(x, "shape") and \
        hasattr(x, "dtype") and not isinstance(x, (Tensor, np.ndarray, np.generic))


def _to_numpy(x):
    if hasattr(x, "detach") and hasattr(x, "numpy"):      # torch: no grad, on the host
        return x.detach().cpu().numpy()
    return np.asarray(x)

