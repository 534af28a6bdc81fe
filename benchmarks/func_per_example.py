"""Per-example gradients of a small MLP (batch 64, 20-64-10, cross-entropy): labkit.func's
vmap(grad(loss)) against a Python loop of grad over the examples (target: >= 5x faster), and
torch.func's vmap(grad) and loop alongside. Candidates interleaved, medians of one run.
"""
import numpy as np

import labkit
import labkit.func as F
from labkit import nn
from timing import compare, report

B, D, H, C = 64, 20, 64, 10


def labkit_fns():
    labkit.manual_seed(0)
    model = nn.Sequential(nn.Linear(D, H), nn.ReLU(), nn.Linear(H, C))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = labkit.randn(B, D), labkit.randint(0, C, (B,))

    def loss(p, xi, yi):
        out = F.functional_call(model, p, (xi.unsqueeze(0),))
        return nn.functional.cross_entropy(out, yi.unsqueeze(0))
    per_example = F.vmap(F.grad(loss), in_dims=(None, 0, 0))
    g = F.grad(loss)
    return (lambda: per_example(params, x, y),
            lambda: [g(params, x[i], y[i]) for i in range(B)], per_example(params, x, y),
            [g(params, x[i], y[i]) for i in range(B)])


def torch_fns():
    import torch
    torch.set_num_threads(1)        # a shared 2-core machine: threads only fight each other
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(D, H), torch.nn.ReLU(), torch.nn.Linear(H, C))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = torch.randn(B, D), torch.randint(0, C, (B,))

    def loss(p, xi, yi):
        out = torch.func.functional_call(model, p, (xi.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(out, yi.unsqueeze(0))
    per_example = torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))
    g = torch.func.grad(loss)
    return lambda: per_example(params, x, y), lambda: [g(params, x[i], y[i]) for i in range(B)]


def main():
    vm, loop, got, want = labkit_fns()
    worst = max(float(np.abs(got[k].numpy() - np.stack([w[k].numpy() for w in want])).max())
                for k in got)
    print(f"vmap(grad) equals the loop of grad: max |difference| = {worst:.1e}")
    cands = {"labkit vmap(grad)": vm, "labkit loop of grad": loop}
    try:
        tv, tl = torch_fns()
        cands.update({"torch.func vmap(grad)": tv, "torch loop of grad": tl})
    except ImportError:
        print("(torch not installed: labkit only)")
    med = compare(cands, rounds=11, number=3)
    report(f"per-example gradients, batch {B}, MLP {D}-{H}-{C}, per batch:", med,
           "labkit vmap(grad)", unit="ms")
    ratio = med["labkit loop of grad"] / med["labkit vmap(grad)"]
    print(f"labkit: loop / vmap = {ratio:.1f}x faster with vmap  (target >= 5x)")
    if "torch.func vmap(grad)" in med:
        print(f"torch:  loop / vmap = {med['torch loop of grad'] / med['torch.func vmap(grad)']:.1f}x")


if __name__ == "__main__":
    main()
