"""Checkers for lecture 10 (training on many processes). Each exercise asks for a function;
`check_*` runs it on the lecture's inputs and prints what is wrong (never raises); `*_ok(fn,
hidden=False)` says whether it is right, and with hidden=True also tries inputs the student
does not see.
"""
from . import Verdict, compare


def _call(name, fn, *args):
    """(result, None), or (None, Verdict) when fn is missing or raises."""
    if fn is None or not callable(fn):
        return None, Verdict(False, f"{name}: not done yet (define the function).")
    try:
        return fn(*args), None
    except Exception as e:   # a student's bug must not stop the notebook
        return None, Verdict(False, f"{name}{args}: raised {type(e).__name__}: {e}")


def _first_failure(verdicts):
    for v in verdicts:
        if not v:
            return v
    return Verdict(True, "right")


def _show(verdict, name):
    print(f"{name}: correct." if verdict else verdict.message)
    return verdict


def _numbers(name, fn, cases, want, mistakes):
    for args in cases:
        got, err = _call(name, fn, *args)
        if err is not None:
            yield err
            return
        if got is None:
            yield Verdict(False, f"{name}: not done yet (it returned None).")
            return
        yield compare(f"{name}{args}", got, want(*args), rtol=1e-9, atol=1e-9,
                      mistakes={hint: m(*args) for hint, m in mistakes.items()})


# Exercise 1: bytes each rank sends in a ring all-reduce

def _ring(n, p):
    return 2 * (p - 1) / p * n


_RING_MISTAKES = {
    "that is the reduce-scatter half only: the all-gather sends as much again":
        lambda n, p: (p - 1) / p * n,
    "each of the 2(p-1) steps sends one chunk of n/p bytes, not the whole message":
        lambda n, p: 2 * (p - 1) * n,
    "that is 2n: close for many ranks, but the ring sends 2(p-1)/p of the message":
        lambda n, p: 2 * n,
}


def _ring_verdicts(fn, hidden):
    cases = [(100e6, 4)]
    if hidden:
        cases += [(1024, 2), (7e9, 512), (12345, 1), (4e6, 8)]
    return _numbers("ring_bytes_per_rank", fn, cases, _ring, _RING_MISTAKES)


def check_ring_bytes(fn):
    return _show(_first_failure(_ring_verdicts(fn, False)), "ring_bytes_per_rank")


def ring_bytes_ok(fn, hidden=False):
    return bool(_first_failure(_ring_verdicts(fn, hidden)))


# Exercise 2: the training loop that forgot set_epoch

def _orders(n, rank, world, epochs, seed=0):
    from ..utils.data import DistributedSampler
    s = DistributedSampler(range(n), num_replicas=world, rank=rank, seed=seed)
    out = []
    for epoch in range(epochs):
        s.set_epoch(epoch)
        out.append(list(s))
    return out


def _epoch_verdicts(fn, hidden):
    cases = [(12, 0, 2, 3)]
    if hidden:
        cases += [(10, 2, 3, 4), (7, 1, 4, 2), (30, 0, 1, 3)]
    for args in cases:
        got, err = _call("epoch_orders", fn, *args)
        if err is not None:
            yield err
            return
        if got is None:
            yield Verdict(False, "epoch_orders: not done yet (it returned None).")
            return
        want = _orders(*args)
        got = [list(map(int, o)) for o in got]
        if got == want:
            yield Verdict(True, "right")
        elif len(got) > 1 and all(o == got[0] for o in got):
            yield Verdict(False, f"epoch_orders{args}: every epoch has the same order "
                                 f"{got[0]}: the sampler's shuffle is seeded with seed + "
                                 "epoch, so call sampler.set_epoch(epoch) before each epoch.")
        else:
            yield Verdict(False, f"epoch_orders{args}: got {got}, expected {want} (one "
                                 "DistributedSampler with seed=0, set_epoch(epoch) each epoch).")


def check_epoch_orders(fn):
    return _show(_first_failure(_epoch_verdicts(fn, False)), "epoch_orders")


def epoch_orders_ok(fn, hidden=False):
    return bool(_first_failure(_epoch_verdicts(fn, hidden)))


# Exercise 3: linear learning-rate scaling with warm-up

def _scaled(base_lr, base_batch, per_gpu, gpus, step, warmup):
    peak = base_lr * per_gpu * gpus / base_batch
    return peak * min(1.0, (step + 1) / warmup)


_LR_MISTAKES = {
    "the rule scales with the whole batch (per-GPU batch x GPUs), not the per-GPU batch":
        lambda lr, b, pb, g, s, w: lr * pb / b * min(1.0, (s + 1) / w),
    "the warm-up is missing: ramp up linearly over the first warmup_steps steps":
        lambda lr, b, pb, g, s, w: lr * pb * g / b,
    "that ramps over step / warmup_steps: step 0 should already use peak / warmup_steps":
        lambda lr, b, pb, g, s, w: lr * pb * g / b * min(1.0, s / w),
}


def _lr_verdicts(fn, hidden):
    cases = [(0.1, 256, 64, 8, 0, 10), (0.1, 256, 64, 8, 4, 10), (0.1, 256, 64, 8, 50, 10)]
    if hidden:
        cases += [(0.05, 32, 32, 1, 0, 1), (0.2, 128, 16, 64, 99, 100), (1e-3, 64, 8, 4, 3, 5)]
    return _numbers("lr_at", fn, cases, _scaled, _LR_MISTAKES)


def check_lr_at(fn):
    return _show(_first_failure(_lr_verdicts(fn, False)), "lr_at")


def lr_at_ok(fn, hidden=False):
    return bool(_first_failure(_lr_verdicts(fn, hidden)))


# Exercise 4: memory per rank with ZeRO stages (mixed-precision Adam: 2 + 2 + 12 bytes)

def _zero(params, ranks, stage):
    shard = {0: 0, 1: 12, 2: 14, 3: 16}[stage]
    return (16 - shard) * params + shard * params / ranks


_ZERO_MISTAKES = {
    "stage 0 is plain data parallelism: nothing is sharded, 16 bytes per parameter":
        lambda n, r, s: 16 * n / r if s == 0 else float("nan"),
    "that shards everything: stage 1 shards only the optimizer state (12 bytes), stage 2 "
    "adds the gradients (2 bytes), stage 3 the parameters (2 bytes)":
        lambda n, r, s: 16 * n / r if s in (1, 2) else float("nan"),
    "that counts Adam's state as 8 bytes (two float32 moments): mixed precision also keeps "
    "a float32 master copy of the weights, 12 bytes in all":
        lambda n, r, s: _zero(n, r, s) - (4 * n / r if s else 4 * n),
}


def _zero_verdicts(fn, hidden):
    cases = [(1.5e9, 64, 0), (1.5e9, 64, 1), (1.5e9, 64, 2), (1.5e9, 64, 3)]
    if hidden:
        cases += [(7e9, 8, 1), (1e6, 1, 3), (175e9, 1024, 2), (125e6, 3, 3)]
    return _numbers("bytes_per_rank", fn, cases, _zero, _ZERO_MISTAKES)


def check_zero_bytes(fn):
    return _show(_first_failure(_zero_verdicts(fn, False)), "bytes_per_rank")


def zero_bytes_ok(fn, hidden=False):
    return bool(_first_failure(_zero_verdicts(fn, hidden)))
