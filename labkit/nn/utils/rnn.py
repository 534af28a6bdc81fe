"""Batches of sequences of different lengths (torch.nn.utils.rnn).

pad_sequence stacks them into one (T, B, *) tensor, shorter ones padded at the end.
pack_padded_sequence goes further: it keeps only the real steps, time-major, with batch_sizes[t]
= how many sequences are still running at step t (sequences sorted longest first), so a
recurrent layer computes nothing for the padding and each sequence's final hidden state is the
one of its own last step. pad_packed_sequence undoes it.
"""
from collections import namedtuple

import numpy as np

from ...engine.creation import full, tensor
from ...engine.dtype import int64
from ...engine.ops.join import cat, stack
from ...engine.tensor import Tensor


class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """data (sum of lengths, *): the steps, time-major; batch_sizes (T,) int64: how many
    sequences run at each step; sorted_indices / unsorted_indices: the permutation from the
    caller's batch order to longest-first and back (None when the input was already sorted)."""

    def __new__(cls, data, batch_sizes, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        return self._replace(data=self.data.to(*args, **kwargs))

    @property
    def is_cuda(self):
        return self.data.is_cuda


def invert_permutation(permutation):
    if permutation is None:
        return None
    inv = np.empty(len(permutation), dtype=np.int64)
    inv[np.asarray(permutation.tolist(), dtype=np.int64)] = np.arange(len(permutation))
    return tensor(inv, dtype=int64, device=permutation.device)


def _lengths_list(lengths):
    if isinstance(lengths, Tensor):
        if lengths.device.type != "cpu":
            raise RuntimeError("pack_padded_sequence: 'lengths' argument should be a 1D CPU "
                               "int64 tensor, but got a tensor on " + str(lengths.device) +
                               ": call lengths.cpu() (the lengths steer a Python loop).")
        if lengths.ndim != 1:
            raise RuntimeError(f"pack_padded_sequence: 'lengths' must be 1-D, got shape "
                               f"{tuple(lengths.shape)}.")
        return [int(n) for n in lengths.tolist()]
    return [int(n) for n in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Padded (T, B, *) (or (B, T, *) with batch_first) and the B true lengths -> a
    PackedSequence. With enforce_sorted=False the batch is sorted longest first for you (and
    put back in your order by pad_packed_sequence and by the recurrent layers' h_n)."""
    lengths = _lengths_list(lengths)
    if batch_first:
        input = input.transpose(0, 1)
    if len(lengths) != input.shape[1]:
        raise RuntimeError(f"pack_padded_sequence: Expected `len(lengths)` to be equal to "
                           f"batch_size, but got {len(lengths)} (batch_size={input.shape[1]}).")
    sorted_indices = None
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                f"exportability. (got lengths {lengths})")
    else:
        order = np.argsort(-np.asarray(lengths, dtype=np.int64), kind="stable")
        sorted_indices = tensor(order, dtype=int64, device=input.device)   # as torch: beside data
        lengths = [lengths[i] for i in order]
        input = input[:, sorted_indices]
    if lengths and lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if lengths and lengths[0] > input.shape[0]:
        raise RuntimeError(f"pack_padded_sequence: a length ({lengths[0]}) is longer than the "
                           f"padded sequences ({input.shape[0]} steps).")
    T = lengths[0] if lengths else 0
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(T)]
    data = cat([input[t, :b] for t, b in enumerate(batch_sizes)])
    return PackedSequence(data, tensor(batch_sizes, dtype=int64), sorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """PackedSequence -> (padded (T, B, *), lengths (B,) int64), in the caller's batch order."""
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    B, T = (batch_sizes[0], len(batch_sizes)) if batch_sizes else (0, 0)
    if total_length is not None:
        if total_length < T:
            raise ValueError(f"Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {T}")
    rows, start = [], 0
    feat = tuple(data.shape[1:])
    for b in batch_sizes:
        step = data[start:start + b]
        start += b
        if b < B:
            step = cat([step, full((B - b,) + feat, padding_value, dtype=data.dtype,
                                   device=data.device)])
        rows.append(step)
    for _ in range(T, total_length or T):
        rows.append(full((B,) + feat, padding_value, dtype=data.dtype, device=data.device))
    padded = stack(rows)
    lengths = [sum(1 for b in batch_sizes if b > i) for i in range(B)]
    if sequence.unsorted_indices is not None:
        padded = padded[:, sequence.unsorted_indices]
        lengths = [lengths[i] for i in sequence.unsorted_indices.tolist()]
    lengths = tensor(lengths, dtype=int64)          # on the cpu, as torch returns them
    return (padded.transpose(0, 1) if batch_first else padded), lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Tensors (L_i, *) -> one (max L, B, *) tensor (or (B, max L, *)), padded with
    padding_value on the right (or left)."""
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0)) if hasattr(sequences, "unbind") else \
            [sequences[i] for i in range(sequences.shape[0])]
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    feat = tuple(sequences[0].shape[1:])
    for i, s in enumerate(sequences):
        if tuple(s.shape[1:]) != feat:
            raise RuntimeError(f"pad_sequence: sequence {i} has shape {tuple(s.shape)}, but "
                               f"the trailing dimensions of all sequences must match "
                               f"{feat}; only the first (length) dimension may differ.")
    T = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        n = T - s.shape[0]
        if n:
            pad = full((n,) + feat, padding_value, dtype=s.dtype, device=s.device)
            s = cat([s, pad] if padding_side == "right" else [pad, s])
        padded.append(s)
    return stack(padded, 0 if batch_first else 1)


def pack_sequence(sequences, enforce_sorted=True):
    """A list of (L_i, *) tensors -> PackedSequence (pad_sequence, then pack_padded_sequence)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The inverse of pad_sequence: a list of the unpadded (L_i, *) tensors."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, _lengths_list(lengths))]


def unpack_sequence(packed_sequences):
    """The inverse of pack_sequence: a list of the (L_i, *) tensors, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
