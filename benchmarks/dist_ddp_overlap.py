"""DDP step time: gradient buckets all-reduced WHILE backward runs (DistributedDataParallel)
vs all gradients all-reduced AFTER backward (one flat buffer), 2 ranks, an MLP whose
gradients are large enough that communication matters. Also: backward alone (no
communication) and the all-reduce alone, to say how much of the communication was hidden:
hidden = (after - overlap) / (after - compute only). Medians of interleaved rounds, one run.

MPI moves a non-blocking all-reduce along only inside MPI calls (DDP polls between gradients)
or on a progress thread (MPICH: MPIR_CVAR_ASYNC_PROGRESS=1, --async-progress here), and on a
CPU the bytes are moved and summed by the same cores that run backward. With 2 ranks on 2
cores there is no idle core to hide communication on; on a node with spare cores (or GPUs,
whose network cards and copy engines move the bytes) overlap is where DDP's speed comes from.
    python benchmarks/dist_ddp_overlap.py [--nproc N] [--async-progress]
"""
import argparse
import os
import sys

from dist_ddp_launch import relaunch, under_mpi

WIDTH, DEPTH, BATCH, BUCKET_MB = 1024, 6, 64, 4


def main():
    import labkit
    import labkit.distributed as dist
    from labkit import nn
    from labkit.nn.parallel import DistributedDataParallel as DDP
    from timing import compare

    dist.init_process_group("mpi")
    world = dist.get_world_size()
    labkit.manual_seed(0)
    layers = [m for _ in range(DEPTH) for m in (nn.Linear(WIDTH, WIDTH), nn.ReLU())]
    plain = nn.Sequential(*layers)
    ddp = DDP(plain, bucket_cap_mb=BUCKET_MB)
    x, y = labkit.randn(BATCH, WIDTH), labkit.randn(BATCH, WIDTH)
    params = list(plain.parameters())
    flat = labkit.zeros(sum(p.numel() for p in params))
    other = labkit.zeros(flat.numel())

    def zero():
        for p in params:
            p.grad = None

    def overlap():
        zero()
        nn.functional.mse_loss(ddp(x), y).backward()

    def compute_only():
        zero()
        nn.functional.mse_loss(plain(x), y).backward()

    def reduce_after():
        compute_only()
        with labkit.no_grad():   # one persistent flat buffer, as DDP's buckets
            off = 0
            for p in params:
                flat[off:off + p.numel()].copy_(p.grad.reshape(-1))
                off += p.numel()
            dist.all_reduce(flat)
            flat.div_(world)
            off = 0
            for p in params:
                p.grad.copy_(flat[off:off + p.numel()].view(p.shape))
                off += p.numel()

    def allreduce_only():
        dist.all_reduce(other)

    med = compare({"overlap (DDP buckets)": overlap, "reduce after backward": reduce_after,
                   "backward only": compute_only, "all-reduce only": allreduce_only},
                  rounds=15, number=3, warmup=2)
    if dist.get_rank() == 0:
        mb = flat.numel() * 4 / 2 ** 20
        print(f"MLP {DEPTH} x Linear({WIDTH}, {WIDTH}), batch {BATCH}/rank, float32, "
              f"{world} ranks, {mb:.0f} MiB of gradients, buckets of {BUCKET_MB} MB "
              f"({len(ddp.bucket_names())} buckets)")
        for name, t in med.items():
            print(f"  {name:<24s} {t * 1e3:8.2f} ms")
        comm = med["reduce after backward"] - med["backward only"]
        hidden = (med["reduce after backward"] - med["overlap (DDP buckets)"]) / comm
        print(f"dist_ddp_overlap step time after / overlap = "
              f"{med['reduce after backward'] / med['overlap (DDP buckets)']:.2f}  "
              f"(> 1: overlap wins); communication hidden = {hidden:.0%} of {comm * 1e3:.1f} ms")
    dist.destroy_process_group()


if __name__ == "__main__":
    if under_mpi():
        main()
    else:
        cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
        cli.add_argument("--nproc", type=int, default=2)
        cli.add_argument("--async-progress", action="store_true",
                         help="MPICH's progress thread (needs a spare core per rank)")
        args = cli.parse_args()
        if args.async_progress:
            os.environ["MPIR_CVAR_ASYNC_PROGRESS"] = "1"
        sys.exit(relaunch(args.nproc, __file__))
