"""PyTorch recipes "PyTorch Benchmark" (recipes_source/recipes/benchmark.py) and "Timer quick
start": batched_dot_mul_sum vs batched_dot_bmm, checked equal, timed with timeit.Timer and with
torch.utils.benchmark.Timer(stmt=..., setup=..., globals=...), .timeit(n), blocked_autorange
(min_run_time), Measurement .mean/.median/.times, label/sub_label/description, and
benchmark.Compare over a product of sizes and thread counts, printed as a table."""
from itertools import product
import timeit

import torch
import torch.utils.benchmark as benchmark


def batched_dot_mul_sum(a, b):
    '''Computes batched dot by multiplying and summing'''
    return a.mul(b).sum(-1)


def batched_dot_bmm(a, b):
    '''Computes batched dot by reducing to ``bmm``'''
    a = a.reshape(-1, 1, a.shape[-1])
    b = b.reshape(-1, b.shape[-1], 1)
    return torch.bmm(a, b).flatten(-3)


# Input for benchmarking
x = torch.randn(100, 64)
# Ensure that both functions compute the same output
assert batched_dot_mul_sum(x, x).allclose(batched_dot_bmm(x, x))

t0 = timeit.Timer(stmt='batched_dot_mul_sum(x, x)', setup='from __main__ import batched_dot_mul_sum',
                  globals={'x': x, 'batched_dot_mul_sum': batched_dot_mul_sum})
print(f'mul_sum(x, x):  {t0.timeit(20) / 20 * 1e6:>5.1f} us')

t0 = benchmark.Timer(
    stmt='batched_dot_mul_sum(x, x)',
    setup='from __main__ import batched_dot_mul_sum',
    globals={'x': x, 'batched_dot_mul_sum': batched_dot_mul_sum})
t1 = benchmark.Timer(
    stmt='batched_dot_bmm(x, x)',
    globals={'x': x, 'batched_dot_bmm': batched_dot_bmm})
m0 = t0.timeit(20)
m1 = t1.timeit(20)
print(m0)
print(m1)
assert m0.mean > 0 and m1.median > 0 and len(m0.times) >= 1

m2 = t0.blocked_autorange(min_run_time=0.05)
print(m2)
assert m2.number_per_run >= 1 and m2.mean > 0

# Compare: a table over sizes
results = []
sizes = [1, 64]
for b, n in product(sizes, sizes):
    label = 'Batched dot'
    sub_label = f'[{b}, {n}]'
    x = torch.ones((b, n))
    for num_threads in [1]:
        results.append(benchmark.Timer(
            stmt='batched_dot_mul_sum(x, x)',
            setup='from __main__ import batched_dot_mul_sum',
            globals={'x': x, 'batched_dot_mul_sum': batched_dot_mul_sum},
            num_threads=num_threads,
            label=label,
            sub_label=sub_label,
            description='mul/sum',
        ).blocked_autorange(min_run_time=0.01))
        results.append(benchmark.Timer(
            stmt='batched_dot_bmm(x, x)',
            globals={'x': x, 'batched_dot_bmm': batched_dot_bmm},
            num_threads=num_threads,
            label=label,
            sub_label=sub_label,
            description='bmm',
        ).blocked_autorange(min_run_time=0.01))
compare = benchmark.Compare(results)
compare.print()
assert len(results) == 8
assert results[0].task_spec.sub_label == '[1, 1]' and results[1].task_spec.description == 'bmm'
