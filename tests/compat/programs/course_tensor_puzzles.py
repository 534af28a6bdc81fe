"""srush/Tensor-Puzzles ("Tensor Puzzlers.ipynb" + lib.py): the 21 puzzles solved the way the
notebook allows (only arange, where, broadcasting, indexing, @ and arithmetic; each solution one
line), checked against the loop specs the way lib.make_test does: random numpy int arrays in
[-5, 5] of sizes 1..5 (bool for compress's mask, float for linspace's output), passed through
map(torch.tensor, d.values()) so the size arguments arrive as 0-d int tensors,
torch.tensor(range(i)) with such a 0-d tensor, torch.broadcast_to(out2, out.shape) and
torch.allclose on int64 and float32. Exercises: bool * int and ~bool, integer tensors as indices
(a[arange(i) - 1], eye(j)[a]), (arange(i) + 1) % i, // on int tensors, int tensor / int -> float,
builtin max(1, tensor), bool tensors in arithmetic (1 * g), matmul of int64 matrices and
vectors, [:, None] / [None] broadcasting, 0-d tensor arithmetic with Python ints."""
import numpy as np
import torch

tensor = torch.tensor


def arange(i: int):
    "Use this function to replace a for-loop."
    return torch.tensor(range(i))


def where(q, a, b):
    "Use this function to replace an if-statement."
    return (q * a) + (~q) * b


examples = [(tensor([False]), tensor([10]), tensor([0])),
            (tensor([False, True]), tensor([1, 1]), tensor([-10, 0])),
            (tensor([False, True]), tensor([1]), tensor([-10, 0])),
            (tensor([[False, True], [True, False]]), tensor([1]), tensor([-10, 0])),
            (tensor([[False, True], [True, False]]), tensor([[0], [10]]), tensor([-10, 0]))]
print([where(q, a, b).tolist() for q, a, b in examples])
assert where(*examples[4]).tolist() == [[-10, 0], [10, 0]]
print(arange(4) + arange(5)[:, None])


# --- the specs (verbatim loops) -------------------------------------------------------------
def ones_spec(out):
    for i in range(len(out)):
        out[i] = 1


def sum_spec(a, out):
    out[0] = 0
    for i in range(len(a)):
        out[0] += a[i]


def outer_spec(a, b, out):
    for i in range(len(out)):
        for j in range(len(out[0])):
            out[i][j] = a[i] * b[j]


def diag_spec(a, out):
    for i in range(len(a)):
        out[i] = a[i][i]


def eye_spec(out):
    for i in range(len(out)):
        out[i][i] = 1


def triu_spec(out):
    for i in range(len(out)):
        for j in range(len(out)):
            out[i][j] = 1 if i <= j else 0


def cumsum_spec(a, out):
    total = 0
    for i in range(len(out)):
        out[i] = total + a[i]
        total += a[i]


def diff_spec(a, out):
    out[0] = a[0]
    for i in range(1, len(out)):
        out[i] = a[i] - a[i - 1]


def vstack_spec(a, b, out):
    for i in range(len(out[0])):
        out[0][i] = a[i]
        out[1][i] = b[i]


def roll_spec(a, out):
    for i in range(len(out)):
        out[i] = a[i + 1] if i + 1 < len(out) else a[i + 1 - len(out)]


def flip_spec(a, out):
    for i in range(len(out)):
        out[i] = a[len(out) - i - 1]


def compress_spec(g, v, out):
    j = 0
    for i in range(len(g)):
        if g[i]:
            out[j] = v[i]
            j += 1


def pad_to_spec(a, out):
    for i in range(min(len(out), len(a))):
        out[i] = a[i]


def sequence_mask_spec(values, length, out):
    for i in range(len(out)):
        for j in range(len(out[0])):
            out[i][j] = values[i][j] if j < length[i] else 0


def bincount_spec(a, out):
    for i in range(len(a)):
        out[a[i]] += 1


def scatter_add_spec(values, link, out):
    for j in range(len(values)):
        out[link[j]] += values[j]


def flatten_spec(a, out):
    k = 0
    for i in range(len(a)):
        for j in range(len(a[0])):
            out[k] = a[i][j]
            k += 1


def linspace_spec(i, j, out):
    for k in range(len(out)):
        out[k] = float(i[0] + (j[0] - i[0]) * k / max(1, len(out) - 1))


def heaviside_spec(a, b, out):
    for k in range(len(out)):
        out[k] = b[k] if a[k] == 0 else int(a[k] > 0)


def repeat_spec(a, d, out):
    for i in range(d[0]):
        for k in range(len(a)):
            out[i][k] = a[k]


def bucketize_spec(v, boundaries, out):
    for i, val in enumerate(v):
        out[i] = 0
        for j in range(len(boundaries) - 1):
            if val >= boundaries[j]:
                out[i] = j + 1
        if val >= boundaries[-1]:
            out[i] = len(boundaries)


# --- one-line solutions ----------------------------------------------------------------------
def ones(i):
    return where(arange(i) > -1, 1, 0)


def sum(a):
    return ones(a.shape[0]) @ a[:, None]


def outer(a, b):
    return a[:, None] * b[None, :]


def diag(a):
    return a[arange(a.shape[0]), arange(a.shape[0])]


def eye(j):
    return where(arange(j)[:, None] == arange(j), 1, 0)


def triu(j):
    return where(arange(j)[:, None] <= arange(j), 1, 0)


def cumsum(a):
    return a @ where(arange(a.shape[0])[:, None] <= arange(a.shape[0]), 1, 0)


def diff(a, i):
    return a - where(arange(i) != 0, a[arange(i) - 1], 0)


def vstack(a, b):
    return where(arange(2)[:, None] == 0, a, b)


def roll(a, i):
    return a[(arange(i) + 1) % i]


def flip(a, i):
    return a[i - arange(i) - 1]


def compress(g, v, i):
    return v @ where(g[:, None], arange(i) == (cumsum(1 * g) - 1)[:, None], 0)


def pad_to(a, i, j):
    return a @ (1 * (arange(i)[:, None] == arange(j)))


def sequence_mask(values, length):
    return where(length[:, None] > arange(values.shape[1]), values, 0)


def bincount(a, j):
    return ones(a.shape[0]) @ eye(j)[a]


def scatter_add(values, link, j):
    return values @ eye(j)[link]


def flatten(a, i, j):
    return a[arange(i * j) // j, arange(i * j) % j]


def linspace(i, j, n):
    return i + (j - i) * arange(n) / max(1, n - 1)


def heaviside(a, b):
    return where(a == 0, b, a > 0)


def repeat(a, d):
    return where(arange(d[0])[:, None] >= 0, a, 0)


def bucketize(v, boundaries):
    return (1 * (v[:, None] >= boundaries)) @ ones(boundaries.shape[0])


# --- lib.make_test, with numpy's generator in place of hypothesis -----------------------------
rng = np.random.default_rng(0)


def ints(*shape):
    return rng.integers(-5, 6, size=shape)


def make_test(problem, problem_spec, draw, add_sizes=(), constraint=lambda d: d, trials=25):
    for _ in range(trials):
        sizes = {k: int(rng.integers(1, 6)) for k in ("i", "j", "n", "d")}
        d = constraint(draw(sizes))
        out = d["return"].tolist()
        del d["return"]
        problem_spec(*d.values(), out)
        for size in add_sizes:
            d[size] = sizes[size]
        out2 = problem(*map(tensor, d.values()))
        out = tensor(out)
        out2 = torch.broadcast_to(out2, out.shape)
        assert torch.allclose(out, out2), \
            "Two tensors are not equal\n Spec: \n\t%s \n\t%s" % (out, out2)
    print("Correct!", problem.__name__)


def zeros(*shape, dtype=int):
    return np.zeros(shape, dtype=dtype)


def set_max(key):
    def constraint(d):
        d[key] = d[key] % d["return"].shape[0]
        return d
    return constraint


def set_length(d):
    d["length"] = d["length"] % d["values"].shape[1]
    return d


def set_boundaries(d):
    d["boundaries"] = np.abs(d["boundaries"]).cumsum()
    return d


def set_repeat(d):
    d["d"][0] = d["return"].shape[0]
    return d


make_test(ones, ones_spec, lambda s: {"return": zeros(s["i"])}, add_sizes=["i"])
make_test(sum, sum_spec, lambda s: {"a": ints(s["i"]), "return": zeros(1)})
make_test(outer, outer_spec,
          lambda s: {"a": ints(s["i"]), "b": ints(s["j"]), "return": zeros(s["i"], s["j"])})
make_test(diag, diag_spec, lambda s: {"a": ints(s["i"], s["i"]), "return": zeros(s["i"])})
make_test(eye, eye_spec, lambda s: {"return": zeros(s["j"], s["j"])}, add_sizes=["j"])
make_test(triu, triu_spec, lambda s: {"return": zeros(s["j"], s["j"])}, add_sizes=["j"])
make_test(cumsum, cumsum_spec, lambda s: {"a": ints(s["i"]), "return": zeros(s["i"])})
make_test(diff, diff_spec, lambda s: {"a": ints(s["i"]), "return": zeros(s["i"])},
          add_sizes=["i"])
make_test(vstack, vstack_spec,
          lambda s: {"a": ints(s["i"]), "b": ints(s["i"]), "return": zeros(2, s["i"])})
make_test(roll, roll_spec, lambda s: {"a": ints(s["i"]), "return": zeros(s["i"])},
          add_sizes=["i"])
make_test(flip, flip_spec, lambda s: {"a": ints(s["i"]), "return": zeros(s["i"])},
          add_sizes=["i"])
make_test(compress, compress_spec,
          lambda s: {"g": rng.integers(0, 2, size=s["i"]).astype(bool), "v": ints(s["i"]),
                     "return": zeros(s["i"])}, add_sizes=["i"])
make_test(pad_to, pad_to_spec, lambda s: {"a": ints(s["i"]), "return": zeros(s["j"])},
          add_sizes=["i", "j"])
make_test(sequence_mask, sequence_mask_spec,
          lambda s: {"values": ints(s["i"], s["j"]), "length": ints(s["i"]),
                     "return": zeros(s["i"], s["j"])}, constraint=set_length)
make_test(bincount, bincount_spec, lambda s: {"a": ints(s["i"]), "return": zeros(s["j"])},
          add_sizes=["j"], constraint=set_max("a"))
make_test(scatter_add, scatter_add_spec,
          lambda s: {"values": ints(s["i"]), "link": ints(s["i"]), "return": zeros(s["j"])},
          add_sizes=["j"], constraint=set_max("link"))
make_test(flatten, flatten_spec,
          lambda s: {"a": ints(s["i"], s["j"]), "return": zeros(s["i"] * s["j"])},
          add_sizes=["i", "j"])
make_test(linspace, linspace_spec,
          lambda s: {"i": ints(1), "j": ints(1), "return": zeros(s["n"], dtype=float)},
          add_sizes=["n"])
make_test(heaviside, heaviside_spec,
          lambda s: {"a": ints(s["i"]), "b": ints(s["i"]), "return": zeros(s["i"])})
make_test(repeat, repeat_spec,
          lambda s: {"a": ints(s["i"]), "d": ints(1), "return": zeros(s["d"], s["i"])},
          constraint=set_repeat)
make_test(bucketize, bucketize_spec,
          lambda s: {"v": ints(s["i"]), "boundaries": ints(s["j"]), "return": zeros(s["i"])},
          constraint=set_boundaries)

# the dtypes the puzzles end with
assert ones(tensor(3)).dtype == torch.int64
assert linspace(tensor([1]), tensor([4]), tensor(4)).dtype == torch.float32
assert heaviside(tensor([0, -2, 3]), tensor([7, 7, 7])).tolist() == [7, 0, 1]
assert compress(tensor([True, False, True]), tensor([4, 5, 6]), tensor(3)).tolist() == [4, 6, 0]
