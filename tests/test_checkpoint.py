"""Activation checkpointing and saved_tensors_hooks: gradients equal the un-checkpointed ones
exactly (dropout replays its mask), the hooks see what torch's see, and the memory meter shows
the sqrt(n) law."""
import math
import warnings

import numpy as np
import pytest

import labkit
from labkit.autograd.graph import SavedTensorMeter, saved_tensors_hooks
from labkit.utils.checkpoint import checkpoint, checkpoint_sequential

torch = pytest.importorskip("torch")


def _net(depth=6, width=8, p=0.3):
    labkit.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [labkit.nn.Linear(width, width), labkit.nn.Tanh(), labkit.nn.Dropout(p)]
    return labkit.nn.Sequential(*layers)


def _grads(net, x, run):
    net.zero_grad()
    x.grad = None
    labkit.manual_seed(7)
    out = run(net, x)
    up = labkit.tensor(np.random.default_rng(3).standard_normal(tuple(out.shape)), dtype=out.dtype)
    out.backward(up)
    after = labkit.rand(1).item()            # the RNG stream goes on as without checkpointing
    return [out.detach().numpy(), x.grad.numpy()] + [p.grad.numpy() for p in net.parameters()], after


@pytest.mark.parametrize("run", [
    lambda n, x: checkpoint(n, x, use_reentrant=False),
    lambda n, x: checkpoint(n, x, use_reentrant=True),
    lambda n, x: checkpoint_sequential(n, 3, x, use_reentrant=False),
    lambda n, x: checkpoint_sequential(n, 18, x, use_reentrant=False),
    lambda n, x: checkpoint_sequential(n, 2, x, use_reentrant=True),
], ids=["plain", "reentrant", "seq3", "seq_all", "seq2_reentrant"])
def test_gradients_equal_uncheckpointed_exactly_with_dropout(run):
    net = _net()
    x = labkit.randn(5, 8, requires_grad=True)
    ref, after_ref = _grads(net, x, lambda n, x: n(x))
    mine, after = _grads(net, x, run)
    assert after == after_ref
    for a, b in zip(mine, ref):
        np.testing.assert_array_equal(a, b)


def test_without_rng_preservation_dropout_differs():
    net = _net()
    x = labkit.randn(5, 8, requires_grad=True)
    ref, _ = _grads(net, x, lambda n, x: n(x))
    mine, _ = _grads(net, x, lambda n, x: checkpoint(n, x, use_reentrant=False,
                                                     preserve_rng_state=False))
    assert not all(np.array_equal(a, b) for a, b in zip(mine[1:], ref[1:]))


def test_checkpoint_under_autocast_replays_autocast():
    net = _net(p=0.0)
    x = labkit.randn(5, 8, requires_grad=True)

    def run(n, x):
        with labkit.autocast("cpu"):
            return checkpoint(n, x, use_reentrant=False).float()
    mine, _ = _grads(net, x, run)

    def plain(n, x):
        with labkit.autocast("cpu"):
            return n(x).float()
    ref, _ = _grads(net, x, plain)
    for a, b in zip(mine, ref):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("m", ["labkit", "torch"])
def test_reentrant_without_grad_inputs_warns_as_torch(m):
    mod = labkit if m == "labkit" else torch
    lin = mod.nn.Linear(3, 3)
    ck = checkpoint if m == "labkit" else torch.utils.checkpoint.checkpoint
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        out = ck(lin, mod.ones(2, 3), use_reentrant=True)
    assert not out.requires_grad


def test_non_reentrant_reaches_parameters_without_grad_inputs():
    lin = labkit.nn.Linear(3, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lin, labkit.ones(2, 3), use_reentrant=False).sum().backward()
    assert lin.weight.grad is not None


def test_checkpointed_intermediates_are_freed_after_forward():
    import weakref
    lin = labkit.nn.Linear(8, 8)
    kept = []

    def fn(x):
        h = lin(x).tanh()
        kept.append(weakref.ref(h._data))
        return (h * h).sum()
    x = labkit.randn(4, 8, requires_grad=True)
    out = checkpoint(fn, x, use_reentrant=False)
    assert kept[0]() is None                 # nothing holds the tanh output any more
    plain = fn(x)
    assert kept[1]() is not None             # without checkpointing, backward keeps it
    out.backward()
    assert x.grad is not None and plain.grad_fn is not None


def test_checkpoint_sequential_bad_segments():
    with pytest.raises(ValueError, match="segments"):
        checkpoint_sequential(_net(depth=2), 0, labkit.ones(1, 8), use_reentrant=False)


PROGRAMS = {
    "mul_exp": lambda m, x, w: (x * w).exp().sum(),
    "linear_relu": lambda m, x, w: m.nn.functional.linear(x, w).relu().sum(),
    "tanh_sigmoid": lambda m, x, w: (x.tanh() + w.sigmoid()).sum(),
    "matmul_softmax": lambda m, x, w: m.softmax(x @ w.T, -1).sum(),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_saved_tensors_hooks_see_what_torch_saves(name):
    def run(m):
        packed, unpacked = [], []

        def pack(t):
            packed.append(tuple(t.shape))
            return t

        def unpack(t):
            unpacked.append(tuple(t.shape))
            return t
        x = m.tensor(np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4), requires_grad=True)
        w = m.tensor(np.linspace(1, 2, 16, dtype=np.float32).reshape(4, 4), requires_grad=True)
        with m.autograd.graph.saved_tensors_hooks(pack, unpack):
            loss = PROGRAMS[name](m, x, w)
        loss.backward()
        return sorted(packed), sorted(unpacked), x.grad.numpy(), w.grad.numpy()
    mine, ref = run(labkit), run(torch)
    assert mine[0] == ref[0] and mine[1] == ref[1]
    np.testing.assert_allclose(mine[2], ref[2], rtol=1e-5)
    np.testing.assert_allclose(mine[3], ref[3], rtol=1e-5)


def test_hooks_nest_and_unpack_must_return_a_tensor():
    x = labkit.ones(2, requires_grad=True)
    with saved_tensors_hooks(lambda t: "a", lambda p: labkit.ones(2)):
        with saved_tensors_hooks(lambda t: "b", lambda p: p):
            y = (x * x).sum()
        z = (x * x).sum()
    z.backward()
    with pytest.raises(TypeError, match="unpack_hook returned a str"):
        y.backward()


def _mlp(n, width=64):
    labkit.manual_seed(0)
    return labkit.nn.Sequential(*[m for _ in range(n) for m in (labkit.nn.Linear(width, width),
                                                                 labkit.nn.Tanh())])


def _peak(net, segments, x):
    with SavedTensorMeter() as meter:
        if segments == 0:
            out = net(x)
        else:
            out = checkpoint_sequential(net, segments, x, use_reentrant=False)
        out.sum().backward()
    assert meter.current_bytes == 0          # everything saved was let go by backward
    return meter.peak_bytes


def test_meter_counts_activations_and_shows_the_sqrt_law():
    n = 16
    net = _mlp(n)
    x = labkit.randn(32, 64)
    act = 32 * 64 * 4
    full = _peak(net, 0, x)
    assert full == act * (n + 1)        # x, and each Tanh's output (which the next Linear
    #                                     saves too: the same array, counted once)
    peaks = {k: _peak(net, k, x) for k in (1, 2, 4, 8, 16)}
    assert peaks[1] == full              # one segment: it is all recomputed at once
    best = min(peaks, key=peaks.get)
    assert best == int(math.sqrt(n)) and peaks[best] < full / 2


def test_meter_skips_parameters_unless_asked():
    lin = labkit.nn.Linear(3, 3)
    x = labkit.ones(2, 3)
    with SavedTensorMeter() as a:
        lin(x).sum().backward()
    with SavedTensorMeter(include_parameters=True) as b:
        lin(x).sum().backward()
    assert a.peak_bytes == 2 * 3 * 4 and b.peak_bytes == 2 * 3 * 4 + 3 * 3 * 4


def test_max_memory_allocated_without_gpu_says_so():
    if labkit.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
        labkit.cuda.max_memory_allocated()


def test_max_memory_allocated_sees_checkpointing_save_memory(cuda_only):
    def peak(segments):
        net = _mlp(16, width=256).to("cuda")
        x = labkit.randn(512, 256, device="cuda")
        labkit.cuda.synchronize()
        labkit.cuda.reset_peak_memory_stats()
        base = labkit.cuda.memory_allocated()
        out = net(x) if segments == 0 else checkpoint_sequential(net, segments, x,
                                                                 use_reentrant=False)
        out.sum().backward()
        labkit.cuda.synchronize()
        return labkit.cuda.max_memory_allocated() - base
    full, ck = peak(0), peak(4)
    act = 512 * 256 * 4                   # 17 activations kept without, 8 with 4 segments
    assert full - ck > 6 * act, (full, ck)
