"""The launcher: `python -m labkit.distributed.run --nproc-per-node N script.py args`.

torchrun's command line, carried out by MPI: it replaces itself with the `mpiexec` that came
with the mpich wheel (so signals, output and the exit code are mpiexec's), which starts the N
ranks. Each rank gets torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
MASTER_ADDR, MASTER_PORT) before the script starts. `mpiexec -n N python script.py` works too:
init_process_group takes rank and size from MPI either way.

Many machines: `--hosts a,b --nproc-per-node 4` runs 8 ranks, 4 on each (mpiexec's -hosts and
-ppn; hydra reaches the hosts by ssh). MPI starts every node from this one command, so
torchrun's per-node --node-rank and rendezvous flags are accepted and ignored.
"""
import argparse
import importlib.metadata
import os
import shutil
import sys
import sysconfig
from pathlib import Path


def find_mpiexec():
    """The mpiexec to use: $LABKIT_MPIEXEC, else the mpich wheel's, else the one on PATH."""
    if os.environ.get("LABKIT_MPIEXEC"):
        return os.environ["LABKIT_MPIEXEC"]
    try:
        for f in importlib.metadata.files("mpich") or ():
            if f.name == "mpiexec" and f.parent.name == "bin":
                path = Path(f.locate()).resolve()
                if path.exists():
                    return str(path)
    except importlib.metadata.PackageNotFoundError:
        pass
    here = Path(sysconfig.get_path("scripts")) / "mpiexec"
    if here.exists():
        return str(here)
    found = shutil.which("mpiexec")
    if found is None:
        raise SystemExit("labkit.distributed.run: no mpiexec found. Install the MPI extra: "
                         "pip install 'labkit[dist]' (mpi4py and the mpich wheel, which brings "
                         "mpiexec), or set LABKIT_MPIEXEC to your cluster's mpiexec.")
    return found


def _nproc(value):
    if value in ("auto", "cpu", "gpu"):
        if value == "gpu":
            from .. import cuda
            if cuda.is_available():
                return cuda.device_count()
        return os.cpu_count() or 1
    n = int(value)
    if n < 1:
        raise argparse.ArgumentTypeError(f"--nproc-per-node must be >= 1, got {n}")
    return n


def parser():
    p = argparse.ArgumentParser(
        prog="python -m labkit.distributed.run",
        description="Start N ranks of a labkit.distributed script under MPI (torchrun's flags).")
    p.add_argument("--nproc-per-node", "--nproc_per_node", type=_nproc, default=1,
                   help="ranks per machine: a number, or auto/cpu (one per core)")
    p.add_argument("--nnodes", default="1", help="machines (needs --hosts when more than 1)")
    p.add_argument("--hosts", default=None,
                   help="labkit: comma-separated machines, e.g. a,b (mpiexec -hosts)")
    p.add_argument("--hostfile", default=None, help="labkit: a file of machines (mpiexec -f)")
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1",
                   help="exported as MASTER_ADDR (MPI does not need it)")
    p.add_argument("--master-port", "--master_port", default="29500",
                   help="exported as MASTER_PORT (MPI does not need it)")
    for ignored in ("--node-rank", "--node_rank", "--rdzv-backend", "--rdzv_backend",
                    "--rdzv-endpoint", "--rdzv_endpoint", "--rdzv-id", "--rdzv_id",
                    "--max-restarts", "--max_restarts", "--log-dir", "--log_dir",
                    "--redirects", "--tee"):
        p.add_argument(ignored, default=None, help=argparse.SUPPRESS)
    p.add_argument("--standalone", action="store_true", help="accepted (one machine is the "
                   "default)")
    p.add_argument("-m", "--module", action="store_true",
                   help="run the target as a module (python -m)")
    p.add_argument("--no-python", "--no_python", action="store_true",
                   help="run the target as a program, not a Python script")
    p.add_argument("--dry-run", action="store_true",
                   help="labkit: print the mpiexec command instead of running it")
    p.add_argument("script", help="the training script (or module, or program)")
    p.add_argument("script_args", nargs=argparse.REMAINDER)
    return p


def command(a):
    """The mpiexec command line for parsed launcher arguments `a`."""
    nnodes = int(str(a.nnodes).split(":")[-1])
    if nnodes > 1 and not (a.hosts or a.hostfile):
        raise SystemExit(
            f"labkit.distributed.run: --nnodes {nnodes} needs the machines: MPI starts every "
            "node from this one command, so pass --hosts a,b (or --hostfile FILE), or use "
            "mpiexec / srun directly (see the README).")
    hosts = a.hosts.split(",") if a.hosts else []
    nodes = len(hosts) if hosts else nnodes
    world = a.nproc_per_node * nodes
    cmd = [find_mpiexec(), "-n", str(world)]
    if hosts:
        cmd += ["-hosts", a.hosts, "-ppn", str(a.nproc_per_node)]
    elif a.hostfile:
        cmd += ["-f", a.hostfile, "-ppn", str(a.nproc_per_node)]
    env = {"MASTER_ADDR": a.master_addr, "MASTER_PORT": str(a.master_port),
           "LABKIT_LOCAL_WORLD_SIZE": str(a.nproc_per_node)}
    if world > 1:                # as torchrun: one BLAS thread per rank unless told otherwise
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(var, os.environ.get(var, "1"))
    for k, v in env.items():
        cmd += ["-genv", k, v]
    worker = [sys.executable, "-m", "labkit.distributed._worker"]
    if a.no_python:
        target = ["--exec", a.script]
    elif a.module:
        target = ["-m", a.script]
    else:
        target = [a.script]
    return cmd + worker + target + a.script_args


def main(argv=None):
    a = parser().parse_args(sys.argv[1:] if argv is None else argv)
    cmd = command(a)
    if a.dry_run:
        print(" ".join(cmd))
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
