"""Lecture 10's checkers: right answers pass (hidden inputs too), known mistakes fail with
their hint, unfinished or crashing answers fail without raising."""
from labkit.exercises import lecture10 as ex
from labkit.utils.data import DistributedSampler


def ring(n, p):
    return 2 * (p - 1) / p * n


def orders(n, rank, world, epochs, fixed=True):
    s = DistributedSampler(range(n), num_replicas=world, rank=rank, seed=0)
    out = []
    for epoch in range(epochs):
        if fixed:
            s.set_epoch(epoch)
        out.append(list(s))
    return out


def lr_at(base_lr, base_batch, per_gpu, gpus, step, warmup):
    return base_lr * per_gpu * gpus / base_batch * min(1.0, (step + 1) / warmup)


def zero(params, ranks, stage):
    sharded = [0, 12, 14, 16][stage]
    return (16 - sharded) * params + sharded * params / ranks


def test_right_answers_pass_visible_and_hidden(capsys):
    assert ex.ring_bytes_ok(ring, hidden=True) and ex.epoch_orders_ok(orders, hidden=True)
    assert ex.lr_at_ok(lr_at, hidden=True) and ex.zero_bytes_ok(zero, hidden=True)
    assert ex.check_ring_bytes(ring) and "correct" in capsys.readouterr().out


def test_known_mistakes_are_named(capsys):
    assert not ex.check_ring_bytes(lambda n, p: (p - 1) / p * n)
    assert "reduce-scatter half" in capsys.readouterr().out
    assert not ex.check_epoch_orders(lambda *a: orders(*a, fixed=False))
    assert "set_epoch" in capsys.readouterr().out
    assert not ex.check_lr_at(lambda lr, b, pb, g, s, w: lr * pb * g / b)
    assert "warm-up is missing" in capsys.readouterr().out
    assert not ex.check_zero_bytes(lambda n, r, s: 16 * n / r)
    assert "plain data parallelism" in capsys.readouterr().out


def test_hidden_inputs_catch_an_answer_fitted_to_the_visible_ones():
    assert ex.ring_bytes_ok(lambda n, p: 1.5e8)
    assert not ex.ring_bytes_ok(lambda n, p: 1.5e8, hidden=True)


def test_unfinished_and_crashing_answers_never_raise(capsys):
    for check in (ex.check_ring_bytes, ex.check_epoch_orders, ex.check_lr_at,
                  ex.check_zero_bytes):
        assert not check(None)
        assert not check(lambda *a: None)
        assert not check(lambda *a: 1 / 0)
    out = capsys.readouterr().out
    assert "not done yet" in out and "ZeroDivisionError" in out
