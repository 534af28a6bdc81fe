"""Where the time of one eager op goes: W2's chain (add, mul, tanh on 16 floats) taken apart.

Each part is measured live as the difference between two real runs of the same chain, so
the parts add up to the whole and nothing is estimated:

    numpy                the arithmetic itself (numpy, forward only)
    dispatch + wrap      labkit under no_grad, minus numpy: Python calls, checks, Tensor objects
    recording            labkit forward with grad, minus no_grad: the Node, its edges, what
                         forward saves for backward (with its version counter)
    backward formulas    each node's backward formula on its gradient, the one the engine
                         calls (backward_arrays where the op has it: saved arrays in,
                         gradient arrays out; else backward, on Tensors)
    backward engine      backward minus its formulas: the loop that orders the nodes, hands
                         each gradient to the next node, and accumulates into .grad
    freeing the graph    dropping the last reference: every Node and saved array is released

Candidates run interleaved (each round runs every one), and each figure is the median over
rounds, in microseconds per op. torch eager (forward + backward) sits alongside when installed.
"""
import statistics
import time

import numpy as np

PARTS = ("numpy", "dispatch + wrap", "recording", "backward formulas", "backward engine",
         "freeing the graph")


def _chain_numpy(x, a, b, n):
    y = x
    for i in range(n):
        k = i % 3
        y = y + a if k == 0 else y * b if k == 1 else np.tanh(y)
    return y


def _chain(x, a, b, n):
    y = x
    for i in range(n):
        k = i % 3
        y = y + a if k == 0 else y * b if k == 1 else y.tanh()
    return y


class OpCost:
    """The medians (seconds per op) of each part, and of torch eager's fwd+bwd (or None)."""

    def __init__(self, parts, torch_total, n_ops, rounds):
        self.parts, self.torch_total, self.n_ops, self.rounds = parts, torch_total, n_ops, rounds

    @property
    def total(self):
        """labkit's forward + backward (+ freeing), seconds per op."""
        return sum(self.parts.values())

    @property
    def ratio(self):
        """W2's figure: labkit fwd+bwd per op over numpy's forward per op."""
        return self.total / self.parts["numpy"]

    def table(self):
        """The parts as text: microseconds per op and share of the total."""
        lines = [f"one op of a {self.n_ops}-op chain on 16 floats (median of {self.rounds} "
                 "interleaved rounds)", f"  {'part':<22s} {'us/op':>7s} {'share':>6s}"]
        for name, t in self.parts.items():
            lines.append(f"  {name:<22s} {t * 1e6:7.2f} {t / self.total:6.0%}")
        lines.append(f"  {'labkit fwd+bwd':<22s} {self.total * 1e6:7.2f}   = {self.ratio:.1f}x "
                     "numpy forward")
        if self.torch_total is not None:
            lines.append(f"  {'torch eager fwd+bwd':<22s} {self.torch_total * 1e6:7.2f}   = "
                         f"{self.torch_total / self.parts['numpy']:.1f}x numpy forward")
        return "\n".join(lines)

    def __repr__(self):
        return self.table()

    def plot(self, ax=None):
        """One stacked bar for labkit (a segment per part), one for torch: us per op."""
        import matplotlib.pyplot as plt
        if ax is None:
            _, ax = plt.subplots(figsize=(7, 2.6))
        left = 0.0
        colors = ("#4c72b0", "#8da0cb", "#fc8d62", "#66c2a5", "#e78ac3", "#b3b3b3")
        for (name, t), c in zip(self.parts.items(), colors):
            ax.barh("labkit", t * 1e6, left=left, color=c, label=name)
            left += t * 1e6
        if self.torch_total is not None:
            ax.barh("torch eager", self.torch_total * 1e6, color="#555555")
        ax.set_xlabel("microseconds per op (forward + backward)")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=3, frameon=False,
                  fontsize=8)
        ax.set_title("Where one eager op's time goes (16 floats)")
        ax.figure.tight_layout()
        return ax


def op_cost(n_ops=60, rounds=15, number=3, torch=True):
    """Measure the parts of one op (see the module docstring); returns an OpCost."""
    import labkit
    from labkit.engine.autograd import execution_order
    from labkit.engine.function import AccumulateGrad
    from labkit.engine.grad_mode import mode
    rng = np.random.default_rng(0)
    xn = rng.standard_normal(16).astype(np.float32)
    an = (rng.standard_normal(16) * 0.1).astype(np.float32)
    bn = (1 + rng.standard_normal(16) * 0.1).astype(np.float32)
    x = labkit.from_numpy(xn.copy()).requires_grad_()
    a, b = labkit.from_numpy(an), labkit.from_numpy(bn)
    clock = time.perf_counter
    samples = {k: [] for k in ("numpy", "nograd", "fwd", "bwd", "free", "formulas", "torch")}

    def formulas():        # each node's backward formula alone, on a gradient of ones
        y = _chain(x, a, b, n_ops)
        nodes = [n for n in execution_order(y) if type(n) is not AccumulateGrad]
        grads = [labkit.ones(n._out_shapes[0]) for n in nodes]
        prev, mode.enabled = mode.enabled, False
        t0 = clock()
        for n, g in zip(nodes, grads):
            fast = n._fn.backward_arrays
            if fast is None or fast(n, g._data) is NotImplemented:
                n._fn.backward(n, g)
        t = clock() - t0
        mode.enabled = prev
        return t

    def labkit_run():
        t0 = clock()
        y = _chain(x, a, b, n_ops)
        t1 = clock()
        y.backward(labkit.ones(16))
        t2 = clock()
        del y
        x.grad = None
        t3 = clock()
        with labkit.no_grad():
            _chain(x, a, b, n_ops)
        t4 = clock()
        return t1 - t0, t2 - t1, t3 - t2, t4 - t3

    runs = {"numpy": lambda: _timed(lambda: _chain_numpy(xn, an, bn, n_ops), clock),
            "labkit": labkit_run, "formulas": formulas}
    if torch:
        try:
            import torch as th
            tx = th.from_numpy(xn.copy()).requires_grad_()
            ta, tb = th.from_numpy(an), th.from_numpy(bn)
            ones = th.ones(16)

            def torch_run():
                y = _chain(tx, ta, tb, n_ops)
                y.backward(ones)
                tx.grad = None
            runs["torch"] = lambda: _timed(torch_run, clock)
        except ImportError:
            pass
    for fn in runs.values():
        fn()
    names = list(runs)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            got = [runs[name]() for _ in range(number)]
            if name == "labkit":
                for key, i in (("fwd", 0), ("bwd", 1), ("free", 2), ("nograd", 3)):
                    samples[key].append(statistics.fmean(g[i] for g in got))
            else:
                samples[name].append(statistics.fmean(got))
    med = {k: statistics.median(v) / n_ops for k, v in samples.items() if v}
    parts = dict(zip(PARTS, (
        med["numpy"], med["nograd"] - med["numpy"], med["fwd"] - med["nograd"],
        med["formulas"], med["bwd"] - med["formulas"], med["free"])))
    return OpCost(parts, med.get("torch"), n_ops, rounds)


def _timed(fn, clock):
    t0 = clock()
    fn()
    return clock() - t0
