"""Threads do not interfere, graphs are freed by reference counting, and an impossible
allocation says what asked for how much.

Grad mode, the jit tracer and the op observers are per thread, as torch's grad mode is: two
threads training their own models and a third evaluating under no_grad give exactly the
results each gives alone. Anomaly mode is process-wide, as torch's is. With the cycle
collector off, every training step returns memory and objects to where they were."""
import gc
import sys
import threading

import numpy as np
import pytest

import labkit
from labkit import jit, nn, optim
from labkit.engine import function
from labkit.nn import functional as F


@pytest.fixture
def fast_switching():
    """Switch threads every microsecond, so their ops interleave as much as they can."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _setup(seed, make_opt):
    """Model, optimizer and data, made in the calling thread (the random generator is one
    per process, in torch as here: threads drawing from it at once would interleave)."""
    labkit.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
    rng = np.random.default_rng(seed)
    x = labkit.from_numpy(rng.standard_normal((32, 3)).astype(np.float32))
    y = labkit.from_numpy(rng.standard_normal((32, 1)).astype(np.float32))
    return model, make_opt(model.parameters()), x, y


def _train(setup, steps=60):
    model, opt, x, y = setup
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()                               # its no_grad must not reach other threads
        losses.append(loss.item())
    return losses, [p.detach().numpy().copy() for p in model.parameters()]


def _evaluate(model, x, stop, seen):
    while not stop.is_set():
        with labkit.no_grad():
            out = model(x)
        seen.append(out.requires_grad or out.grad_fn is not None)


def _in_threads(targets):
    results, errors = {}, []

    def run(name, fn):
        try:
            results[name] = fn()
        except BaseException as e:                    # noqa: BLE001 (reported below)
            errors.append((name, e))
    threads = [threading.Thread(target=run, args=item) for item in targets.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    return results


@pytest.mark.parametrize("trial", range(3))
def test_two_threads_training_and_one_evaluating_match_solo_runs(trial, fast_switching):
    sgd = lambda p: optim.SGD(p, lr=0.1, momentum=0.9)          # noqa: E731
    adam = lambda p: optim.Adam(p, lr=1e-2)                     # noqa: E731
    solo = {"sgd": _train(_setup(trial, sgd)), "adam": _train(_setup(trial + 10, adam))}
    runs = {"sgd": _setup(trial, sgd), "adam": _setup(trial + 10, adam)}
    stop, seen = threading.Event(), []
    evaluator = threading.Thread(target=_evaluate,
                                 args=(nn.Linear(3, 2), labkit.randn(8, 3), stop, seen))
    evaluator.start()
    try:
        both = _in_threads({"sgd": lambda: _train(runs["sgd"]),
                            "adam": lambda: _train(runs["adam"])})
    finally:
        stop.set()
        evaluator.join(60)
    for name in solo:
        assert both[name][0] == solo[name][0], f"{name}: losses differ from the solo run"
        for a, b in zip(both[name][1], solo[name][1]):
            np.testing.assert_array_equal(a, b)
    assert seen and not any(seen), "the evaluation thread recorded a graph under no_grad"


def test_no_grad_and_set_grad_enabled_stay_in_their_thread():
    inside, release = threading.Event(), threading.Event()
    modes = []

    def hold_no_grad():
        with labkit.no_grad():
            labkit.set_grad_enabled(False)
            modes.append(labkit.is_grad_enabled())
            inside.set()
            release.wait(10)
    t = threading.Thread(target=hold_no_grad)
    t.start()
    inside.wait(10)
    try:
        x = labkit.ones(2, requires_grad=True)
        assert labkit.is_grad_enabled() and (x * 2).grad_fn is not None
    finally:
        release.set()
        t.join()
    assert modes == [False]
    fresh = []
    worker = threading.Thread(target=lambda: fresh.append(labkit.is_grad_enabled()))
    with labkit.no_grad():
        worker.start()                         # a new thread starts with grad mode on (torch)
        worker.join()
    assert fresh == [True]


def test_anomaly_mode_is_process_wide_as_in_torch():
    torch = pytest.importorskip("torch")
    from labkit.engine.grad_mode import mode
    for lib, is_on in ((labkit, lambda: mode.anomaly), (torch, torch.is_anomaly_enabled)):
        t = threading.Thread(target=lambda lib=lib: lib.autograd.set_detect_anomaly(True))
        t.start()
        t.join()
        try:
            assert is_on(), lib.__name__
        finally:
            lib.autograd.set_detect_anomaly(False)


def test_a_trace_in_one_thread_records_none_of_another_threads_ops(monkeypatch):
    from labkit.jit.tracer import Tracer
    recorders = []
    real_record, real_backward = Tracer.record, Tracer._on_backward_node

    def record(self, *args):
        recorders.append(threading.get_ident())
        return real_record(self, *args)

    def on_backward(self, *args):
        recorders.append(threading.get_ident())
        return real_backward(self, *args)
    monkeypatch.setattr(Tracer, "record", record)
    monkeypatch.setattr(Tracer, "_on_backward_node", on_backward)
    started, done = threading.Event(), threading.Event()

    def f(x):
        y = x * 2
        started.set()
        done.wait(10)                  # the other thread runs its ops now
        return y + 1
    out = {}

    def trace():
        out["tracer"] = threading.get_ident()
        out["g"] = jit.trace(f, labkit.ones(3))
    t = threading.Thread(target=trace)
    t.start()
    started.wait(10)
    w = labkit.ones(3, requires_grad=True)
    for _ in range(20):
        (w.exp() * 3).sum().backward()
    done.set()
    t.join()
    assert recorders and set(recorders) == {out["tracer"]}
    assert [n.kind for n in out["g"].graph.nodes] == ["mul", "add"]


def test_op_observers_are_per_thread():
    seen = []

    def observe(node, args, outputs):
        seen.append(type(node).__name__)
    function.observers.append(observe)
    try:
        x = labkit.ones(2, requires_grad=True)
        t = threading.Thread(target=lambda: (x * 2).exp())
        t.start()
        t.join()
        assert seen == []
        (x * 2).sum()
        assert seen == ["MulBackward0", "SumBackward0"]
    finally:
        function.observers.remove(observe)
    assert len(function.observers) == 0


# --- memory: graphs freed by reference counting -------------------------------------------

def _steps(device):
    labkit.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3)).to(device)
    x = labkit.randn(16, 4).to(device)
    target = labkit.tensor([0, 1, 2, 0] * 4).to(device)
    opts = {"sgd momentum": optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
            "adam": optim.Adam(model.parameters(), lr=1e-2),
            "rmsprop": optim.RMSprop(model.parameters(), lr=1e-2),
            "adagrad": optim.Adagrad(model.parameters(), lr=1e-2)}
    out = {}
    for name, opt in opts.items():
        def step(opt=opt):
            opt.zero_grad()
            F.cross_entropy(model(x), target).backward()
            opt.step()
        out[name] = step

    def fresh_leaves():
        w = labkit.randn(3, 3, requires_grad=True).to(device)
        (w.tanh() @ w).sum().backward()

    def double_backward():
        w = labkit.randn(3, requires_grad=True).to(device)
        g, = labkit.autograd.grad((w ** 3).sum(), w, create_graph=True)
        g.sum().backward()

    def retain_grad():
        h = model[0](x)
        h.retain_grad()
        h.sum().backward()
    out.update(fresh_leaves=fresh_leaves, double_backward=double_backward,
               retain_grad=retain_grad)
    return out


def _device_bytes(device):
    if device != "cuda":
        return 0
    import cupy
    return cupy.get_default_memory_pool().used_bytes()


def _young():
    """gc-tracked objects made since the last collection and still alive (with gc off,
    nothing leaves generation 0 until the next gc.collect())."""
    return len(gc.get_objects(generation=0))


def test_each_step_leaves_nothing_for_the_cycle_collector(device):
    """gc off: objects tracked by gc and device bytes return to their level after each step
    (the fake CuPy's pool counts live device arrays under LABKIT_FAKE_CUDA=1)."""
    steps = _steps(device)
    gc.collect()
    gc.disable()
    try:
        for name, step in steps.items():
            for _ in range(3):                 # optimizer state and caches made once
                step()
            objects, device_bytes = _young(), _device_bytes(device)
            for i in range(5):
                step()
                assert _young() == objects, f"{name}: step {i} left objects"
                assert _device_bytes(device) == device_bytes, f"{name}: device memory grew"
            assert gc.collect() == 0, f"{name}: steps left reference cycles"
    finally:
        gc.enable()


def test_a_graph_is_freed_as_soon_as_its_last_tensor_goes():
    import weakref
    gc.disable()
    try:
        w = labkit.randn(4, requires_grad=True)
        y = (w * 2).exp().sum()
        node, leaf_node = weakref.ref(y.grad_fn), weakref.ref(w._accum)
        del y
        assert node() is None                  # the graph went with y, no collector needed
        assert leaf_node() is not None         # the leaf keeps its node (hooks live there)
        leaf = weakref.ref(w)
        del w
        assert leaf() is None and leaf_node() is None
    finally:
        gc.enable()


# --- an impossible allocation -----------------------------------------------------------

def test_an_impossible_tensor_names_the_call_the_bytes_and_a_fix():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):                  # torch's type for a failed CPU alloc
        torch.zeros(10 ** 12)
    for make, call, nbytes in ((lambda: labkit.zeros(10 ** 12), "labkit.zeros", 4 * 10 ** 12),
                               (lambda: labkit.ones(10 ** 6, 10 ** 6, dtype=labkit.float64),
                                "labkit.ones", 8 * 10 ** 12),
                               (lambda: labkit.empty(10 ** 12), "labkit.empty", 4 * 10 ** 12)):
        with pytest.raises(RuntimeError, match=call) as info:
            make()
        assert isinstance(info.value, MemoryError)
        assert f"{nbytes} bytes" in str(info.value) and "smaller batch" in str(info.value)
