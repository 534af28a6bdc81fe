"""Checkers for lecture 08 (CPU versus GPU). `check_*` prints what is wrong (never raises),
`*_ok(..., hidden=False)` says whether it is right, and with hidden=True also tries other
sizes and speeds, which the student does not see.
"""
import math
import time

import numpy as np

from . import Verdict, compare
from ._support import call, first_failure, not_done, show


# Exercise 1: FLOPs of a matrix product, and GFLOP/s

def _flops_verdicts(matmul_flops, gflop_per_s, hidden):
    cases = [(4096, 1024, 512, 1.6e-3)]
    if hidden:
        cases += [(1, 1, 1, 1e-9), (300, 7, 2048, 0.25)]
    for m, k, n, seconds in cases:
        flops, err = call("matmul_flops", matmul_flops, m, k, n)
        if err is not None or flops is None:
            yield err or not_done("matmul_flops")
            return
        want = 2 * m * k * n
        yield compare(f"matmul_flops({m}, {k}, {n})", flops, want,
                      mistakes={"this counts only the multiplications: each also has an "
                                "addition": want / 2})
        rate, err = call("gflop_per_s", gflop_per_s, want, seconds)
        if err is not None or rate is None:
            yield err or not_done("gflop_per_s")
            return
        yield compare(f"gflop_per_s({want}, {seconds:g})", rate, want / seconds / 1e9,
                      mistakes={"that is FLOP/s: divide by 1e9 for GFLOP/s": want / seconds,
                                "that is seconds per FLOP, upside down": seconds / want * 1e9})


def check_flops(matmul_flops, gflop_per_s):
    """Print whether matmul_flops and gflop_per_s are right."""
    return show(first_failure(_flops_verdicts(matmul_flops, gflop_per_s, False)))


def flops_ok(matmul_flops, gflop_per_s, hidden=False):
    return bool(first_failure(_flops_verdicts(matmul_flops, gflop_per_s, hidden)))


# Exercise 2: arithmetic intensity of an n x n float32 matmul, and where it reaches a balance

def _intensity_verdicts(intensity, n_busy, balance, hidden):
    ns = np.array([16, 64, 512, 4096] + ([3, 1000, 10000] if hidden else []))
    first, err = call("intensity", intensity, 16)
    if err is not None or first is None:
        yield err or not_done("intensity")
        return
    got = []
    for n in ns:
        value, err = call("intensity", intensity, int(n))
        if err is not None:
            yield err
            return
        got.append(value)
    yield compare(f"intensity(n) for n = {', '.join(map(str, ns))}", got, ns / 6,
                  mistakes={"the bytes are missing: each float32 number is 4 bytes": 2 * ns / 3,
                            "C must be written too: 3 matrices move, not 2": ns / 4})
    if n_busy is None or n_busy is Ellipsis:
        yield not_done("n_busy")
        return
    want = math.ceil(6 * balance)
    yield compare("n_busy", n_busy, want,
                  mistakes={"that is the balance itself; n_busy is the size n with n / 6 >= "
                            "balance": math.ceil(balance),
                            "n_busy is the smallest n that reaches the balance: round up, "
                            "not down": want - 1})
    if hidden and not isinstance(n_busy, (int, np.integer)):
        yield Verdict(False, f"n_busy should be a whole number, got {n_busy!r}.")


def check_intensity(intensity, n_busy, balance):
    """Print whether intensity(n) and n_busy (for this machine balance) are right."""
    return show(first_failure(_intensity_verdicts(intensity, n_busy, balance, False)))


def intensity_ok(intensity, n_busy, balance, hidden=False):
    return bool(first_failure(_intensity_verdicts(intensity, n_busy, balance, hidden)))


# Exercise 3: the size of a batch of images, and the time to copy it over PCIe

def _copy_verdicts(batch_copy, hidden):
    cases = [(256, (3, 224, 224), 25)]
    if hidden:
        cases += [(1, (1, 28, 28), 12), (64, (3, 512, 512), 50)]
    for batch, shape, gb_per_s in cases:
        out, err = call("batch_copy", batch_copy, batch, shape, gb_per_s)
        placeholder = isinstance(out, tuple) and all(v is None for v in out)
        if err is not None or out is None or placeholder:
            yield err or not_done("batch_copy")
            return
        if not (isinstance(out, tuple) and len(out) == 2):
            yield Verdict(False, "batch_copy should return two numbers: "
                                 f"`return batch_mb, copy_ms` (got {out!r}).")
            return
        mb, ms = out
        nbytes = batch * int(np.prod(shape)) * 4
        one_byte = "that counts one byte per number: float32 takes 4"
        where = f"batch_copy({batch}, {shape}, {gb_per_s})"
        yield compare(f"batch_mb of {where}", mb, nbytes / 1e6,
                      mistakes={one_byte: nbytes / 4 / 1e6,
                                "1 MB is 10**6 bytes here, not 2**20": nbytes / 2 ** 20})
        yield compare(f"copy_ms of {where}", ms, nbytes / (gb_per_s * 1e9) * 1e3,
                      mistakes={one_byte: nbytes / 4 / (gb_per_s * 1e9) * 1e3,
                                "that is in seconds: multiply by 1000 for ms":
                                    nbytes / (gb_per_s * 1e9)})


def check_batch_copy(batch_copy):
    """Print whether batch_copy(batch, shape, gb_per_s) gives (MB, ms) right."""
    return show(first_failure(_copy_verdicts(batch_copy, False)))


def batch_copy_ok(batch_copy, hidden=False):
    return bool(first_failure(_copy_verdicts(batch_copy, hidden)))


# Exercise 4: a timing that forgot to synchronize

def _launch_case(time_per_launch, stream_class, job_s, n, earlier):
    def job():
        time.sleep(job_s)
    stream = stream_class()
    for _ in range(earlier):
        stream.launch(job)              # earlier work, still queued when theirs starts
    seconds, err = call("time_per_launch", time_per_launch, stream, job, n)
    stream.synchronize()
    if err is not None:
        return err
    if seconds is None:
        return not_done("time_per_launch")
    # A sleep lasts at least as long as asked, and longer on a busy machine, so the answer is
    # compared with the same n jobs run directly (job_ms: what one really took just now). The
    # right answer is about 1x that; the two mistakes give about 0 and (n + earlier) / n (3x
    # here), so the window is wide: a busy machine (a shared hub) stretches threads' timings.
    start = time.perf_counter()
    for _ in range(n):
        job()
    job_ms = max(job_s, (time.perf_counter() - start) / n) * 1e3
    ms = float(seconds) * 1e3
    what = f"time_per_launch with {n} jobs of {job_s * 1e3:g} ms each"
    if 0.5 * job_ms <= ms <= 2.2 * job_ms:
        return Verdict(True, f"correct: {what} measures those jobs, and only them.")
    if ms < 0.5 * job_ms:
        hint = ("the clock was read while the jobs were still queued: synchronize before "
                "reading it at the end")
    elif earlier and ms > 2.2 * job_ms:
        hint = ("the earlier work was counted too: synchronize before starting the clock "
                "as well")
    else:
        hint = "time the n jobs only, from the moment the stream is idle until it is again"
    return Verdict(False, f"{what} measured {ms:.1f} ms per job, expected about {job_ms:.1f} "
                          f"(the same jobs run directly): "
                          f"{hint}.")


def _launch_verdicts(time_per_launch, stream_class, hidden):
    yield _launch_case(time_per_launch, stream_class, 0.005, 10, 20)
    if hidden:
        yield _launch_case(time_per_launch, stream_class, 0.008, 4, 8)
        yield _launch_case(time_per_launch, stream_class, 0.005, 6, 0)


def check_time_per_launch(time_per_launch, stream_class):
    """Print whether time_per_launch(stream, job, n) measures the jobs, and only them."""
    return show(first_failure(_launch_verdicts(time_per_launch, stream_class, False)))


def time_per_launch_ok(time_per_launch, stream_class, hidden=False):
    return bool(first_failure(_launch_verdicts(time_per_launch, stream_class, hidden)))
