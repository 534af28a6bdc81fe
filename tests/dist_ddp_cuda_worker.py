"""Run under mpiexec by tests/test_ddp_mpi.py: DDP on cuda tensors (a real GPU, or the fake
numpy-backed cupy) averages the same gradients as one cpu process on the whole batch."""
import labkit
import labkit.distributed as dist
from labkit import nn
from labkit.nn.parallel import DistributedDataParallel as DDP

labkit.set_default_dtype(labkit.float64)
dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
labkit.manual_seed(rank)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).to("cuda")
ddp = DDP(model, bucket_cap_mb=1e-4)
labkit.manual_seed(0)
ref = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
g = labkit.Generator().manual_seed(1)
x, y = labkit.randn(2 * world, 4, generator=g), labkit.randn(2 * world, 2, generator=g)
nn.functional.mse_loss(ref(x), y).backward()
mine = slice(2 * rank, 2 * rank + 2)
nn.functional.mse_loss(ddp(x[mine].to("cuda")), y[mine].to("cuda")).backward()
assert all(p.grad.device.type == "cuda" for p in model.parameters())
diff = max((a.grad - b.grad.cpu()).abs().max().item()
           for a, b in zip(ref.parameters(), model.parameters()))
assert diff < 1e-12, diff
if rank == 0:
    print("cuda ok")
