"""Interleaved timing for the benchmark scripts: fair ratios on a shared, noisy machine.

Each round runs every candidate once (in a rotating order), `number` calls each; the per-call
median over rounds is reported. Ratios are only ever taken between numbers from one run.
"""
import statistics
import time


def per_round(candidates, rounds=31, number=20, warmup=3):
    """{name: [seconds per call, one per round]}: each round times every candidate back to back,
    in a rotating order, so per-round ratios cancel the machine's slow drifts in load."""
    names = list(candidates)
    for fn in candidates.values():
        for _ in range(warmup):
            fn()
    samples = {n: [] for n in names}
    for r in range(rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            fn = candidates[n]
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            samples[n].append((time.perf_counter() - t0) / number)
    return samples


def compare(candidates, rounds=31, number=20, warmup=3):
    """{name: fn} -> {name: median seconds per call}."""
    samples = per_round(candidates, rounds, number, warmup)
    return {n: statistics.median(s) for n, s in samples.items()}


def report(title, medians, baseline, per=1, unit="us"):
    """Print each candidate's time (per `per` ops) and its ratio to the baseline."""
    scale = {"us": 1e6, "ms": 1e3}[unit]
    print(title)
    base = medians[baseline]
    for n, t in medians.items():
        print(f"  {n:<28s} {t / per * scale:9.2f} {unit}   ratio {t / base:5.2f}x")
