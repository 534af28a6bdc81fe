"""The checkers of lectures 04-08 (labkit/exercises/lecture04..08): the solution passes the
visible and the hidden tests; every known wrong answer, a placeholder and an answer that
raises fail them, with a message, without raising (so one exercise never breaks the next)."""
import math
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import labkit
import labkit.func as func
from labkit import jit, nn
from labkit.exercises import lecture04, lecture04b, lecture05, lecture06, lecture07, lecture08


def graded(ok, *answer):
    """(visible, hidden) outcome of an *_ok checker."""
    return ok(*answer), ok(*answer, hidden=True)


def fails_quietly(ok, check, *answer, says=None):
    assert graded(ok, *answer) == (False, False)
    verdict = check(*answer)
    assert not verdict
    if says:
        assert says in verdict.message, verdict.message


def broken(*args):
    raise ValueError("a bug in the answer")


# --- lecture 04 ---------------------------------------------------------------------------

def residual(skip=True, relu=True, names=("linear1", "linear2")):
    class Block(nn.Module):
        def __init__(self, dim, hidden):
            super().__init__()
            setattr(self, names[0], nn.Linear(dim, hidden))
            setattr(self, names[1], nn.Linear(hidden, dim))

        def forward(self, x):
            h = getattr(self, names[0])(x)
            out = getattr(self, names[1])(h.relu() if relu else h)
            return x + out if skip else out
    return Block


def test_lecture04_residual_block():
    assert graded(lecture04.residual_block_ok, residual()) == (True, True)
    fails_quietly(lecture04.residual_block_ok, lecture04.check_residual_block,
                  residual(skip=False), says="skip connection")
    fails_quietly(lecture04.residual_block_ok, lecture04.check_residual_block,
                  residual(relu=False), says="ReLU is missing")
    fails_quietly(lecture04.residual_block_ok, lecture04.check_residual_block,
                  residual(names=("fc1", "fc2")), says="expected names")


def momentum(kind="right"):
    def sgd_momentum(w0, loss_fn, steps, lr, m):
        w, v = w0.clone().requires_grad_(), None
        for _ in range(steps):
            w.grad = None
            loss_fn(w).backward()
            with labkit.no_grad():
                g = w.grad.clone()
                if kind == "plain":
                    v = g
                else:
                    v = g if v is None else m * v + g
                w -= lr * (g + m * v if kind == "nesterov" else v)
        return w.detach()
    return sgd_momentum


def test_lecture04_sgd_momentum():
    assert graded(lecture04.sgd_momentum_ok, momentum()) == (True, True)
    for kind, says in [("plain", "plain SGD"), ("nesterov", "Nesterov")]:
        fails_quietly(lecture04.sgd_momentum_ok, lecture04.check_sgd_momentum, momentum(kind),
                      says=says)
    fails_quietly(lecture04.sgd_momentum_ok, lecture04.check_sgd_momentum,
                  lambda w0, *_: w0.clone(), says="no step")
    fails_quietly(lecture04.sgd_momentum_ok, lecture04.check_sgd_momentum, broken,
                  says="raised ValueError")


def finetuned_model(unfreeze=True):
    body = nn.Sequential(nn.Linear(2, 100), nn.ReLU(), nn.Linear(100, 100), nn.ReLU())
    model = nn.Sequential(body, nn.Linear(100, 2))
    body.requires_grad_(False)
    if unfreeze:
        model[0][2].requires_grad_(True)
    return model


def test_lecture04_n_trainable():
    model = finetuned_model()
    n = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert graded(lecture04.n_trainable_ok, n, model) == (True, True)
    for wrong, says in [(202, "only the head"), (10602, "every parameter"), (4, "tensors")]:
        fails_quietly(lecture04.n_trainable_ok, lecture04.check_n_trainable, wrong, model,
                      says=says)
    # the right number, typed in, with the model left as it was: the hidden test sees it
    assert graded(lecture04.n_trainable_ok, n, finetuned_model(unfreeze=False)) == (True, False)
    assert not lecture04.check_n_trainable(None)


# --- lecture 04b --------------------------------------------------------------------------

def attention(scale=True, mask="future", dim=-1):
    def causal_attention(q, k, v):
        s = q @ k.T / (math.sqrt(q.shape[-1]) if scale else 1.0)
        j = labkit.arange(q.shape[0])
        if mask == "future":
            s = s.masked_fill(j.unsqueeze(0) > j.unsqueeze(1), float("-inf"))
        elif mask == "past":
            s = s.masked_fill(j.unsqueeze(0) < j.unsqueeze(1), float("-inf"))
        return s.softmax(dim=dim) @ v
    return causal_attention


def test_lecture04b_causal_attention():
    ok, check = lecture04b.causal_attention_ok, lecture04b.check_causal_attention
    assert graded(ok, attention()) == (True, True)
    fails_quietly(ok, check, attention(mask=None), says="no mask")
    fails_quietly(ok, check, attention(scale=False), says="sqrt(d)")
    fails_quietly(ok, check, attention(mask="past"), says="wrong triangle")
    fails_quietly(ok, check, attention(dim=0), says="over the queries")
    fails_quietly(ok, check, lambda q, k, v: None, says="not done yet")
    # right on the visible (5, 4) inputs only: the hidden sizes catch a hard-coded 5
    hard_coded = attention()
    assert graded(ok, lambda q, k, v: hard_coded(q, k, v) if q.shape[0] == 5 else v) \
        == (True, False)


# --- lecture 05 ---------------------------------------------------------------------------

def test_lecture05_balancing_weights():
    ok, check = lecture05.balancing_weights_ok, lecture05.check_balancing_weights

    def right(sizes):
        w = np.concatenate([np.full(n, 1 / n) for n in sizes])
        return w / w.sum()
    assert graded(ok, right) == (True, True)
    fails_quietly(ok, check, lambda s: np.concatenate([np.full(n, 1 / n) for n in s]),
                  says="sum to 1")
    fails_quietly(ok, check, lambda s: np.full(sum(s), 1 / sum(s)), says="plain shuffling")
    fails_quietly(ok, check, lambda s: None, says="not done yet")
    # hard-wired to three sources: the hidden tests use other numbers of sources
    three = lambda s: right([500, 300, 200])                      # noqa: E731
    assert graded(ok, three) == (True, False)


def pad(kind="right"):
    def pad_collate(batch):
        lengths = [len(t) for t, _ in batch]
        width = max(lengths) if kind != "fixed" else 6
        padded = np.zeros((len(batch), width), np.float32)
        for row, (t, _) in enumerate(batch):
            padded[row, :len(t)] = t.numpy()
        labels = labkit.tensor([y for _, y in batch])
        if kind == "float labels":
            labels = labels.float()
        return labkit.from_numpy(padded), labkit.tensor(lengths), labels
    return pad_collate


def test_lecture05_pad_collate():
    ok, check = lecture05.pad_collate_ok, lecture05.check_pad_collate
    assert graded(ok, pad()) == (True, True)
    fails_quietly(ok, check, pad("float labels"), says="int64")
    assert ok(pad("fixed")) is False       # width 6 is not the longest of the batch
    fails_quietly(ok, check, lambda batch: (None, None, None), says="not done yet")
    fails_quietly(ok, check, broken, says="raised ValueError")


def test_lecture05_block_of():
    ok, check = lecture05.block_of_ok, lecture05.check_block_of

    def right(n, w, k):
        size = -(-n // k)
        return w * size, min(w * size + size, n)
    assert graded(ok, right) == (True, True)
    fails_quietly(ok, check, lambda n, w, k: (w * (n // k), (w + 1) * (n // k)),
                  says="never read")
    fails_quietly(ok, check, lambda n, w, k: (w * -(-n // k), (w + 1) * -(-n // k)),
                  says="not in range(10)")
    fails_quietly(ok, check, lambda n, w, k: (None, None), says="not done yet")


# --- lecture 06 ---------------------------------------------------------------------------

def test_lecture06_clipped_static():
    ok, check = lecture06.clipped_static_ok, lecture06.check_clipped_static
    assert graded(ok, jit.script(lecture06.clipped)) == (True, True)

    def where(x):
        return labkit.where(x.sum() > 0, x.clamp(max=1.0), x.clamp(min=-1.0))
    assert graded(ok, jit.trace(where, lecture06.exercise1_inputs()[0])) == (True, True)
    with pytest.warns(Warning):                        # the trace says it froze the branch
        frozen = jit.trace(lecture06.clipped, lecture06.exercise1_inputs()[0])
    fails_quietly(ok, check, frozen, says="frozen")
    assert graded(ok, lecture06.clipped) == (True, False)   # eager: not compiled
    fails_quietly(ok, check, None, says="not done yet")


def test_lecture06_second_derivative():
    ok, check = lecture06.second_derivative_ok, lecture06.check_second_derivative

    def grad(f):
        def df(x):
            with labkit.enable_grad():
                if not x.requires_grad:
                    x = x.detach().requires_grad_()
                (g,) = labkit.autograd.grad(f(x), x, create_graph=True)
            return g
        return df
    assert graded(ok, lambda f, x: grad(lambda x: grad(f)(x).sum())(x)) == (True, True)
    fails_quietly(ok, check, lambda f, x: grad(f)(x), says="first derivative")
    by_hand = lambda f, x: 2 * x.cos() - x * x.sin()           # noqa: E731 (only for x sin x)
    assert graded(ok, by_hand) == (True, False)


# --- lecture 07 ---------------------------------------------------------------------------

def test_lecture07_n_traces():
    ok, check = lecture07.n_traces_ok, lecture07.check_n_traces
    assert graded(ok, 3) == (True, True)
    fails_quietly(ok, check, 2, says="Python number")
    fails_quietly(ok, check, 6, says="not each call")
    assert graded(ok, 3.0) == (True, False)


def test_lecture07_clip_cond():
    ok, check = lecture07.clip_cond_ok, lecture07.check_clip_cond

    class ClipCond(nn.Module):
        def forward(self, x):
            return labkit.cond((x * x).sum() > 1.0, lambda x: x / (x * x).sum().sqrt(),
                               lambda x: x * 1.0, (x,))

    class Stuck(nn.Module):             # no branch at all: never rescales
        def forward(self, x):
            return x * 1.0

    class Always(nn.Module):            # always rescales
        def forward(self, x):
            return x / (x * x).sum().sqrt()

    class PythonIf(nn.Module):          # the original: export refuses it
        def forward(self, x):
            if (x * x).sum() > 1.0:
                return x / (x * x).sum().sqrt()
            return x
    assert graded(ok, ClipCond) == (True, True)
    fails_quietly(ok, check, Stuck, says="not rescaled")
    fails_quietly(ok, check, Always, says="rescaled too")
    fails_quietly(ok, check, PythonIf, says="export")
    fails_quietly(ok, check, None, says="not done yet")

    class Placeholder(nn.Module):
        def forward(self, x):
            return None
    fails_quietly(ok, check, Placeholder, says="not done yet")


def test_lecture07_grad_norms():
    labkit.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 10))
    params = {k: v.detach() for k, v in mlp.named_parameters()}
    xs, ys = labkit.randn(64, 20), labkit.randint(0, 10, (64,))

    def example_loss(params, x, y):
        logits = func.functional_call(mlp, params, (x.unsqueeze(0),))
        return nn.functional.cross_entropy(logits, y.unsqueeze(0))

    def right(loss_fn, params, xs, ys):
        g = func.vmap(func.grad(loss_fn), in_dims=(None, 0, 0))(params, xs, ys)
        return (g["0.weight"] ** 2).sum((1, 2)).sqrt()

    def summed(loss_fn, params, xs, ys):
        g = func.grad(lambda p: sum(loss_fn(p, xs[i], ys[i]) for i in range(len(xs))))(params)
        return labkit.ones(len(xs)) * (g["0.weight"] ** 2).sum().sqrt()
    args = (example_loss, params, xs, ys)
    ok, check = lecture07.grad_norms_ok, lecture07.check_grad_norms
    assert ok(right, *args) and ok(right, *args, hidden=True)
    assert not ok(summed, *args) and not ok(summed, *args, hidden=True)
    assert "summed gradient" in check(summed, *args).message
    sixteen = lambda *a: right(*a) if len(a[2]) == 16 else labkit.zeros(len(a[2]))  # noqa: E731
    assert ok(sixteen, *args) and not ok(sixteen, *args, hidden=True)


# --- lecture 08 ---------------------------------------------------------------------------

def test_lecture08_flops():
    ok, check = lecture08.flops_ok, lecture08.check_flops
    flops, rate = (lambda m, k, n: 2 * m * k * n), (lambda f, s: f / s / 1e9)
    assert graded(ok, flops, rate) == (True, True)
    fails_quietly(ok, check, lambda m, k, n: m * k * n, rate, says="only the multiplications")
    fails_quietly(ok, check, flops, lambda f, s: f / s, says="divide by 1e9")
    fails_quietly(ok, check, flops, lambda f, s: None, says="not done yet")
    fixed = lambda m, k, n: 2 * 4096 * 1024 * 512                    # noqa: E731
    assert graded(ok, fixed, rate) == (True, False)


def test_lecture08_intensity():
    ok, check = lecture08.intensity_ok, lecture08.check_intensity
    balance = 19.5e12 / 1555e9
    right = lambda n: 2 * n ** 3 / (3 * n ** 2 * 4)                  # noqa: E731
    n_busy = math.ceil(6 * balance)
    assert graded(ok, right, n_busy, balance) == (True, True)
    fails_quietly(ok, check, lambda n: 2 * n ** 3 / (3 * n ** 2), n_busy, balance,
                  says="4 bytes")
    fails_quietly(ok, check, lambda n: 2 * n ** 3 / (2 * n ** 2 * 4), n_busy, balance,
                  says="3 matrices")
    fails_quietly(ok, check, right, math.ceil(balance), balance, says="balance itself")
    fails_quietly(ok, check, right, n_busy - 1, balance, says="round up")
    assert graded(ok, right, float(n_busy), balance) == (True, False)


def test_lecture08_batch_copy_and_what_the_copy_costs():
    ok, check = lecture08.batch_copy_ok, lecture08.check_batch_copy

    def right(batch, shape, gb_per_s):
        nbytes = batch * int(np.prod(shape)) * 4
        return nbytes / 1e6, nbytes / (gb_per_s * 1e9) * 1e3
    assert graded(ok, right) == (True, True)
    fails_quietly(ok, check, lambda b, s, g: tuple(v / 4 for v in right(b, s, g)),
                  says="one byte per number")
    fails_quietly(ok, check, lambda b, s, g: (right(b, s, g)[0], right(b, s, g)[1] / 1e3),
                  says="in seconds")
    fails_quietly(ok, check, lambda b, s, g: (None, None), says="not done yet")
    # correction: at 3000 images/s the copies take about 7 % of every second, not half
    copy_ms = right(256, (3, 224, 224), 25)[1]
    assert copy_ms == pytest.approx(6.17, abs=0.01)
    assert 3000 / 256 * copy_ms / 1e3 == pytest.approx(0.072, abs=0.001)


class ToyStream:
    def __init__(self):
        self.worker, self.last = ThreadPoolExecutor(max_workers=1), None

    def launch(self, fn, *args):
        self.last = self.worker.submit(fn, *args)

    def synchronize(self):
        if self.last is not None:
            self.last.result()


def test_lecture08_time_per_launch():
    ok, check = lecture08.time_per_launch_ok, lecture08.check_time_per_launch

    def timed(sync_before, sync_after):
        def time_per_launch(stream, job, n):
            if sync_before:
                stream.synchronize()
            start = time.perf_counter()
            for _ in range(n):
                stream.launch(job)
            if sync_after:
                stream.synchronize()
            return (time.perf_counter() - start) / n
        return time_per_launch
    assert graded(ok, timed(True, True), ToyStream) == (True, True)
    fails_quietly(ok, check, timed(False, False), ToyStream, says="still queued")
    fails_quietly(ok, check, timed(False, True), ToyStream, says="earlier work")
