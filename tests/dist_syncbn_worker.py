"""Run by tests/test_sync_batchnorm.py under `mpiexec -n N`: each rank holds a slice of one
batch; SyncBatchNorm on the slices must equal torch's BatchNorm on the whole batch (outputs,
input gradients, the sum of the ranks' weight gradients, running statistics), and the
differentiable all_reduce must send each rank the sum of every rank's gradient. Prints one
JSON line of the largest differences (rank 0)."""
import json
import os

import numpy as np
import torch

import labkit
import labkit.distributed as dist
from labkit.distributed.nn.functional import all_reduce

R, N = int(os.environ["PMI_RANK"]), int(os.environ["PMI_SIZE"])
dist.init_process_group("mpi")
out = {}


def whole_batch(shape, dtype):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((N * shape[0],) + shape[1:]) * 3 + 5     # mean far from 0
    g = rng.standard_normal(x.shape)
    return x.astype(dtype), g.astype(dtype)


for shape in [(3, 4, 5, 5), (2, 3), (1, 6, 7)]:
    x, g = whole_batch(shape, np.float64)
    ref = torch.nn.BatchNorm1d(shape[1]) if len(shape) < 4 else torch.nn.BatchNorm2d(shape[1])
    ref = ref.double()
    xt = torch.tensor(x, requires_grad=True)
    ref(xt).backward(torch.tensor(g))
    yt = ref(torch.tensor(x)).detach()        # a second step: the running stats move again
    mine = labkit.nn.SyncBatchNorm(shape[1]).double()
    part = slice(R * shape[0], (R + 1) * shape[0])
    xl = labkit.tensor(x[part], requires_grad=True)
    mine(xl).backward(labkit.tensor(g[part]))
    yl = mine(labkit.tensor(x[part]))
    w_grad = mine.weight.grad.clone()
    dist.all_reduce(w_grad)
    diffs = [np.abs(yl.detach().numpy() - yt.numpy()[part]).max(),
             np.abs(xl.grad.numpy() - xt.grad.numpy()[part]).max(),
             np.abs(w_grad.numpy() - ref.weight.grad.numpy()).max(),
             np.abs(mine.running_mean.numpy() - ref.running_mean.numpy()).max(),
             np.abs(mine.running_var.numpy() - ref.running_var.numpy()).max()]
    out[f"syncbn {shape}"] = float(max(diffs))

t = labkit.tensor([1.0, 2.0], requires_grad=True)
y = all_reduce(t * (R + 1))
y.backward(labkit.tensor([1.0, 10.0]) * (R + 1))
# d(sum_r <g_r, y>)/dt_r = (r + 1) * sum_r g_r, with g_r = (r + 1) * [1, 10]
total = N * (N + 1) / 2
out["all_reduce value"] = y.tolist() == [total, 2 * total]
out["all_reduce grad"] = t.grad.tolist() == [(R + 1) * total, (R + 1) * 10 * total]
for key, value in out.items():       # the worst rank's figure
    worst = labkit.tensor([float(value) if key.startswith("syncbn") else float(not value)],
                          dtype=labkit.float64)
    dist.all_reduce(worst, op=dist.ReduceOp.MAX)
    out[key] = worst.item() if key.startswith("syncbn") else worst.item() == 0
if R == 0:
    print(json.dumps(out))
dist.destroy_process_group()
