"""Run under mpiexec by tests/test_ddp_mpi.py: many DDP / sampler / ZeRO checks in one launch.

Every rank also trains the single-process reference on the concatenated batch (cheap), so the
comparison needs no second launch. Rank 0 prints one JSON line: {check: max abs difference or
message}; any assertion failure exits non-zero with its traceback.
"""
import json
import sys

import labkit
import labkit.distributed as dist
from labkit import nn
from labkit.distributed.optim import ZeroRedundancyOptimizer
from labkit.distributed.pipelining import PipelineStage, ScheduleGPipe
from labkit.nn.parallel import DistributedDataParallel as DDP
from labkit.utils.data import DistributedSampler

labkit.set_default_dtype(labkit.float64)
dist.init_process_group("mpi")
RANK, WORLD = dist.get_rank(), dist.get_world_size()
B, K = 4, 3
results = {}


class Net(nn.Module):
    def __init__(self, unused=False):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(5, 16), nn.Linear(16, 3)
        self.norm = nn.BatchNorm1d(16)
        self.extra = nn.Linear(16, 3) if unused else None

    def forward(self, x):
        return self.fc2(self.norm(self.fc1(x).tanh()))


def make(seed, **kw):
    labkit.manual_seed(seed)
    return Net(**kw).eval()   # BatchNorm on running stats: no dependence on the batch split


def data():
    g = labkit.Generator().manual_seed(123)
    x = labkit.randn(WORLD * B, 5, generator=g)
    return x, labkit.randn(WORLD * B, 3, generator=g)


def max_diff(m1, m2):
    return max((a - b).abs().max().item() for a, b in zip(m1.parameters(), m2.parameters()))


def train(opt_name, accumulate, bucket_cap_mb, unused=False):
    x, y = data()
    ref = make(0, unused=unused)
    ddp = DDP(make(RANK, unused=unused), bucket_cap_mb=bucket_cap_mb,   # rank-dependent init:
              find_unused_parameters=unused)                            # the wrap broadcasts 0's
    assert max_diff(ref, ddp.module) == 0.0
    opt_cls = labkit.optim.SGD if opt_name == "sgd" else labkit.optim.Adam
    kw = {"lr": 0.1, "momentum": 0.9} if opt_name == "sgd" else {"lr": 0.01}
    o_ref, o_ddp = opt_cls(ref.parameters(), **kw), opt_cls(ddp.parameters(), **kw)
    mine = slice(RANK * B, (RANK + 1) * B)
    for _ in range(K):
        o_ref.zero_grad(), o_ddp.zero_grad()
        nn.functional.mse_loss(ref(x), y).backward()
        o_ref.step()
        if accumulate:   # two micro-batches of B/2: the first one local only
            h = B // 2
            with ddp.no_sync():
                (nn.functional.mse_loss(ddp(x[mine][:h]), y[mine][:h]) / 2).backward()
            (nn.functional.mse_loss(ddp(x[mine][h:]), y[mine][h:]) / 2).backward()
        else:
            nn.functional.mse_loss(ddp(x[mine]), y[mine]).backward()
        o_ddp.step()
    if unused:
        assert ddp.module.extra.weight.grad is None   # unused on every rank: left as None
    return max_diff(ref, ddp.module)


# DDP == one process on the concatenated batch
for name in ("sgd", "adam"):
    for acc in (False, True):
        for cap in (25, 1e-4):           # one bucket / one bucket per parameter
            results[f"{name} accumulate={acc} cap={cap}"] = train(name, acc, cap)
results["find_unused_parameters"] = train("sgd", False, 25, unused=True)

# find_unused_parameters with a branch only rank 0 takes: rank 1 contributes zeros for it, so
# its gradient is rank 0's / WORLD, as one process whose loss uses the branch for rank 0's rows
class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc, self.extra = nn.Linear(5, 3), nn.Linear(5, 3)

    def forward(self, x, mask=None):
        if mask is None:
            return self.fc(x)
        return self.fc(x) + self.extra(x) * mask


x, y = data()
labkit.manual_seed(0)
ref = Branchy()
labkit.manual_seed(0)
br = DDP(Branchy(), find_unused_parameters=True)
mask = labkit.zeros(WORLD * B, 1)
mask[:B] = 1.0
nn.functional.mse_loss(ref(x, mask), y).backward()
mine = slice(RANK * B, (RANK + 1) * B)
out = br(x[mine], mask[mine]) if RANK == 0 else br(x[mine])
nn.functional.mse_loss(out, y[mine]).backward()
results["locally unused"] = max((a.grad - b.grad).abs().max().item()
                                for a, b in zip(ref.parameters(), br.module.parameters()))

# buckets: reverse registration order; timeline records launches before backward returns
probe = DDP(make(0), bucket_cap_mb=1e-4)
assert probe.bucket_names()[0] == ["norm.bias"] and probe.bucket_names()[-1] == ["fc1.weight"]
probe.timeline = []
nn.functional.mse_loss(probe(data()[0]), data()[1]).backward()
events = [e for e, _, _ in probe.timeline]
assert events.count("launch") == events.count("done") == 6 and events[-1] == "done"
assert [i for e, i, _ in probe.timeline if e == "launch"] == list(range(6))
results["state_dict keys"] = sorted(probe.state_dict())[:2]

# each gradient lands (and its bucket starts) as soon as it is complete, while backward still
# computes the earlier layers, as in torch: not all at the end of backward
from labkit.engine import hooks  # noqa: E402
deep = nn.Sequential(*[nn.Linear(6, 6) for _ in range(4)])
early = DDP(deep, bucket_cap_mb=1e-4)
seen, fired = [], {}
for name, p in deep.named_parameters():
    p.register_post_accumulate_grad_hook(lambda p, name=name: fired.setdefault(name, len(seen)))
out = early(data()[0][:, :5].matmul(labkit.ones(5, 6)))
with hooks.node_hook(lambda node, grads: seen.append(node.name())):
    out.sum().backward()
nodes = len(seen)
assert fired["3.weight"] < fired["2.weight"] < fired["1.weight"] < fired["0.weight"], fired
assert fired["3.weight"] < nodes // 2, (fired, seen)
results["early grads"] = f"last layer's grad at node {fired['3.weight']} of {nodes}"

# the wrapped module used directly (a forward without DDP) stays local, also right after a
# DDP step: no reduction, no error
early(labkit.ones(2, 6)).sum().backward()
for p in deep.parameters():
    p.grad = None
deep(labkit.full((2, 6), float(RANK))).sum().backward()
local = deep[0].weight.grad.reshape(-1).clone()
gathered = [labkit.zeros(36) for _ in range(WORLD)]
dist.all_gather(gathered, local)
assert WORLD == 1 or (gathered[0] - gathered[1]).abs().max().item() > 0, "plain backward reduced"

# a parameter also used in a loss term computed before the wrapped forward: the engine runs
# its AccumulateGrad once, after both terms, so the average covers both (as in torch)
def plain_grad(r):
    for p in deep.parameters():
        p.grad = None
    (deep(labkit.full((2, 6), float(r))).sum() + (deep[0].weight ** 2).sum()).backward()
    return deep[0].weight.grad.clone()


want = sum(plain_grad(r) for r in range(WORLD)) / WORLD
for p in deep.parameters():
    p.grad = None
reg = (deep[0].weight ** 2).sum()
(early(labkit.full((2, 6), float(RANK))).sum() + reg).backward()
assert (deep[0].weight.grad - want).abs().max().item() < 1e-5, (deep[0].weight.grad, want)
results["term before forward"] = "averaged with both terms"

# buffers: rank 0's running stats are broadcast at every forward
net = make(RANK)
with labkit.no_grad():
    net.norm.running_mean.fill_(float(RANK))
bb = DDP(net)
bb(data()[0])
gathered = [labkit.zeros(16) for _ in range(WORLD)]
dist.all_gather(gathered, bb.module.norm.running_mean.detach())
assert all((g - gathered[0]).abs().max().item() == 0 for g in gathered)

# DistributedSampler: the ranks cover the dataset exactly once per epoch, a new order each
for n, drop in ((40, False), (37, True)):
    s = DistributedSampler(range(n), drop_last=drop, seed=3)   # world/rank from the group
    orders = []
    for epoch in range(2):
        s.set_epoch(epoch)
        mine = labkit.tensor(list(s))
        every = [labkit.zeros(len(s), dtype=labkit.int64) for _ in range(WORLD)]
        dist.all_gather(every, mine)
        flat = sorted(i for t in every for i in t.tolist())
        if drop:   # the permutation's tail is dropped: distinct, all but n % WORLD of them
            assert len(set(flat)) == len(flat) == n - n % WORLD and set(flat) <= set(range(n))
        else:
            assert flat == list(range(n)), (n, flat)
        orders.append(every[0].tolist())
    assert orders[0] != orders[1]
results["sampler"] = "each index once per epoch"

# ZeRO (Adam state sharded) == unsharded Adam; each rank holds only its shard's state
x, y = data()
ref, model = make(0), DDP(make(RANK))
o_ref = labkit.optim.Adam(ref.parameters(), lr=0.01)
zero = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=labkit.optim.Adam, lr=0.01)
mine = slice(RANK * B, (RANK + 1) * B)
for _ in range(K):
    o_ref.zero_grad(), zero.zero_grad()
    nn.functional.mse_loss(ref(x), y).backward()
    o_ref.step()
    nn.functional.mse_loss(model(x[mine]), y[mine]).backward()
    zero.step()
results["zero"] = max_diff(ref, model.module)
total = sum(p.numel() for p in model.parameters())
assert sum(zero.shard_numel(r) for r in range(WORLD)) == total
assert sum(p.numel() for p in zero.optim.state) == zero.shard_numel()
assert WORLD == 1 or zero.shard_numel() < total
try:
    zero.state_dict()
    raise AssertionError("a sharded state_dict must not pass for a whole one")
except NotImplementedError as e:
    assert "zero.optim.state_dict()" in str(e)

# pipeline (GPipe over point-to-point sends): stage r holds layers r*L/W .. ; the gradients
# equal one process's on the whole batch (mean loss), the outputs too
labkit.manual_seed(0)
layers = [m for _ in range(4) for m in (nn.Linear(6, 6), nn.Tanh())]
full = nn.Sequential(*layers)
xb, yb = labkit.randn(8, 6), labkit.randn(8, 6)
nn.functional.mse_loss(full(xb), yb).backward()
per = len(layers) // WORLD
part = nn.Sequential(*layers[RANK * per:(RANK + 1) * per])
part.zero_grad()
sched = ScheduleGPipe(PipelineStage(part, RANK, WORLD), n_microbatches=4,
                      loss_fn=nn.functional.mse_loss)
losses = []
out = sched.step(xb, target=yb, losses=losses)
pipe_grads = [p.grad.clone() for p in part.parameters()]
part.zero_grad()
nn.functional.mse_loss(full(xb), yb).backward()
pipe_diff = max((a - p.grad).abs().max().item() for a, p in zip(pipe_grads, part.parameters()))
diffs = [labkit.zeros(1) for _ in range(WORLD)]
dist.all_gather(diffs, labkit.tensor([pipe_diff]))
results["pipeline grads"] = max(d.item() for d in diffs)
if RANK == WORLD - 1:
    assert (out - full(xb)).abs().max().item() < 1e-12 and len(losses) == 4
assert [(s, k, m) for s, k, m, _, _ in sched.timeline] == \
    [(RANK, "F", m) for m in range(4)] + [(RANK, "B", m) for m in range(4)]

# faults: every rank raises the same clear error (so none is left waiting)
try:
    out = DDP(make(0, unused=True))(x[mine])
    nn.functional.mse_loss(out, y[mine]).backward()
    raise AssertionError("unused parameter not reported")
except RuntimeError as e:
    assert "extra.weight" in str(e) and "find_unused_parameters=True" in str(e), e
    results["unused error"] = str(e)

class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(5, 1), nn.Linear(5, 1)

    def forward(self, x):
        return self.a(x), self.b(x)


two = DDP(TwoHeads())
first, _ = two(x[mine])
first.sum().backward()                 # b was used by the forward, but gets no gradient
try:
    two(x[mine])
    raise AssertionError("unfinished reduction not reported")
except RuntimeError as e:
    assert "prior iteration" in str(e) and "b.weight, b.bias" in str(e), e
    results["unfinished error"] = str(e)

labkit.manual_seed(0)
try:
    DDP(nn.Linear(5 + RANK, 3))
    raise AssertionError("shape disagreement not reported")
except RuntimeError as e:
    assert "weight" in str(e) and "rank 0: [3, 5]" in str(e) and "rank 1: [3, 6]" in str(e), e
    results["shape error"] = str(e)
try:
    DDP(nn.Sequential(*[nn.Linear(3, 3) for _ in range(1 + RANK)]))
    raise AssertionError("parameter count disagreement not reported")
except RuntimeError as e:
    assert "disagree" in str(e), e

if RANK == 0:
    print(json.dumps(results))
sys.stdout.flush()
dist.destroy_process_group()
