"""Forward vs reverse mode: the time of a full Jacobian of f(x) = W2 tanh(W1 x) (R^n_in ->
R^n_out, a hidden layer of H = 256) by jacfwd (one jvp per input, batched) and jacrev (one vjp
per output, batched), as n_in and n_out vary with n_in * n_out fixed. Theory: jacfwd costs
~ n_in passes and jacrev ~ n_out, so jacrev wins when n_out < n_in and jacfwd when
n_in < n_out (each also pays a fixed overhead per call). torch.func alongside.
"""
import numpy as np

import labkit
import labkit.func as F
from timing import compare

SHAPES = [(8, 512), (32, 128), (64, 64), (128, 32), (512, 8)]     # (n_in, n_out)
H = 256


def main():
    try:
        import torch
        torch.set_num_threads(1)    # a shared 2-core machine: threads only fight each other
    except ImportError:
        torch = None
    print(f"{'n_in':>5} {'n_out':>6} {'jacfwd ms':>10} {'jacrev ms':>10} {'fwd/rev':>8}"
          + ("   torch fwd/rev" if torch else ""))
    for n_in, n_out in SHAPES:
        labkit.manual_seed(0)
        w1, w2 = labkit.randn(H, n_in) / n_in ** 0.5, labkit.randn(n_out, H) / H ** 0.5
        x = labkit.randn(n_in)

        def f(v):
            return w2 @ (w1 @ v).tanh()
        fwd, rev = F.jacfwd(f), F.jacrev(f)
        assert np.allclose(fwd(x).numpy(), rev(x).numpy(), atol=1e-5)
        cands = {"fwd": lambda: fwd(x), "rev": lambda: rev(x)}
        if torch:
            t1, t2, tx = (torch.tensor(a.numpy()) for a in (w1, w2, x))
            tf = torch.func.jacfwd(lambda v: t2 @ torch.tanh(t1 @ v))
            tr = torch.func.jacrev(lambda v: t2 @ torch.tanh(t1 @ v))
            cands.update({"tfwd": lambda: tf(tx), "trev": lambda: tr(tx)})
        med = compare(cands, rounds=15, number=5)
        line = (f"{n_in:5d} {n_out:6d} {med['fwd'] * 1e3:10.3f} {med['rev'] * 1e3:10.3f} "
                f"{med['fwd'] / med['rev']:8.2f}")
        if torch:
            line += f"   {med['tfwd'] / med['trev']:8.2f}"
        print(line)
    print("fwd/rev > 1: reverse mode is faster (wide inputs, few outputs: a loss); < 1: forward.")


if __name__ == "__main__":
    main()
