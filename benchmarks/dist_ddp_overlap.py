"""DDP step time: gradient buckets all-reduced WHILE backward runs (DistributedDataParallel)
vs all gradients all-reduced AFTER backward (one flat buffer, one all-reduce; and DDP's own
buckets, one blocking all-reduce each, after backward: the same messages, so that comparison
isolates the overlap from the message sizes), 2 ranks, an MLP whose gradients are large enough
that communication matters (12 x Linear(1024, 1024): 48 MiB of gradients, one bucket per layer;
the fewer the layers, the less backward is left to hide a bucket behind: try --depth 6). Also: backward alone (no
communication) and the all-reduce alone, to say how much of the communication was hidden:
hidden = (after - overlap) / (after - backward only). Candidates interleaved round by round in
one run; the ratio after / overlap is the median of the per-round ratios (with quartiles).

What overlap needs, and what this machine gives it: MPI moves a non-blocking all-reduce along
only inside MPI calls (DDP polls its buckets before every backward node) or on a progress thread
(MPICH: MPIR_CVAR_ASYNC_PROGRESS=1, --async-progress here), and on a CPU the bytes are moved
and summed by the same cores that run backward. With 2 ranks on 2 cores there is no idle core:
what overlap can hide is only the waiting inside a blocking all-reduce (a rank spinning until
its peer arrives), not the copying and summing, which still cost CPU time. On a node with spare
cores (or GPUs, whose network cards and copy engines move the bytes) overlap hides the transfer
itself; that is where DDP's speed comes from.
    python benchmarks/dist_ddp_overlap.py [--nproc N] [--async-progress] [--bucket-mb MB]
                                          [--width W] [--depth D] [--batch B]
"""
import argparse
import os
import statistics
import sys

from dist_ddp_launch import relaunch, under_mpi
from timing import per_round as paired   # per-round samples, interleaved


def main(width, depth, batch, bucket_mb, rounds):
    import labkit
    import labkit.distributed as dist
    from labkit import nn
    from labkit.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("mpi")
    world = dist.get_world_size()
    labkit.manual_seed(0)
    layers = [m for _ in range(depth) for m in (nn.Linear(width, width), nn.ReLU())]
    plain = nn.Sequential(*layers)
    ddp = DDP(plain, bucket_cap_mb=bucket_mb)
    x, y = labkit.randn(batch, width), labkit.randn(batch, width)
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

    by_name = dict(plain.named_parameters())
    groups = [[by_name[n] for n in names] for names in ddp.bucket_names()]
    flats = [labkit.zeros(sum(p.numel() for p in g)) for g in groups]

    def reduce_after_buckets():     # DDP's buckets, but each reduced after backward
        compute_only()
        with labkit.no_grad():
            for g, f in zip(groups, flats):
                off = 0
                for p in g:
                    f[off:off + p.numel()].copy_(p.grad.reshape(-1))
                    off += p.numel()
                dist.all_reduce(f)
                f.div_(world)
                off = 0
                for p in g:
                    p.grad.copy_(f[off:off + p.numel()].view(p.shape))
                    off += p.numel()

    def allreduce_only():
        dist.all_reduce(other)

    s = paired({"overlap (DDP buckets)": overlap, "reduce after backward": reduce_after,
                "after, DDP's buckets": reduce_after_buckets,
                "backward only": compute_only, "all-reduce only": allreduce_only},
               rounds=rounds, number=2)
    if dist.get_rank() == 0:
        med = {k: statistics.median(v) for k, v in s.items()}
        mb = flat.numel() * 4 / 2 ** 20
        load = os.getloadavg()
        print(f"MLP {depth} x Linear({width}, {width}), batch {batch}/rank, float32, "
              f"{world} ranks, {mb:.0f} MiB of gradients, buckets of {bucket_mb:g} MB "
              f"({len(ddp.bucket_names())} buckets); MPICH async progress "
              f"{'on' if os.environ.get('MPIR_CVAR_ASYNC_PROGRESS') == '1' else 'off'}; "
              f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        for name, t in med.items():
            print(f"  {name:<24s} {t * 1e3:8.2f} ms")
        for after in ("reduce after backward", "after, DDP's buckets"):
            ratios = [a / b for a, b in zip(s[after], s["overlap (DDP buckets)"])]
            q = statistics.quantiles(ratios, n=4)
            comm = med[after] - med["backward only"]
            hidden = (med[after] - med["overlap (DDP buckets)"]) / comm
            print(f"dist_ddp_overlap step time [{after}] / overlap = "
                  f"{statistics.median(ratios):.2f} [quartiles {q[0]:.2f}, {q[2]:.2f}] "
                  f"(> 1: overlap wins); communication hidden = {hidden:.0%} of "
                  f"{comm * 1e3:.1f} ms")
    dist.destroy_process_group()


if __name__ == "__main__":
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--nproc", type=int, default=2)
    cli.add_argument("--async-progress", action="store_true",
                     help="MPICH's progress thread (needs a spare core per rank)")
    cli.add_argument("--bucket-mb", type=float, default=5)   # one 4 MiB layer (+ a bias) each
    cli.add_argument("--width", type=int, default=1024)
    cli.add_argument("--depth", type=int, default=12)   # backward left to hide the buckets behind
    cli.add_argument("--batch", type=int, default=64)
    cli.add_argument("--rounds", type=int, default=15)
    args = cli.parse_args()
    if under_mpi():
        main(args.width, args.depth, args.batch, args.bucket_mb, args.rounds)
    else:
        if args.async_progress:
            os.environ["MPIR_CVAR_ASYNC_PROGRESS"] = "1"
        sys.exit(relaunch(args.nproc, __file__, *sys.argv[1:]))
