"""Helper for the dist_ddp/dist_scaling benchmarks: run this script under mpiexec (from the
mpich wheel beside the Python in use) unless it already runs under it. One BLAS thread per
rank: ranks are processes, so N ranks on N cores is the fair setting. labkit's per-call check
that all ranks make the same collective (a tiny all-gather beside each collective) is off, as
torch's is by default (TORCH_DISTRIBUTED_DEBUG)."""
import os
import subprocess
import sys
from pathlib import Path


def under_mpi():
    return "PMI_RANK" in os.environ or "OMPI_COMM_WORLD_RANK" in os.environ


def relaunch(n, script, *args, capture=False):
    """Run `script` on n ranks: its exit code, or with capture=True its stdout."""
    env = {**os.environ, "LABKIT_DISTRIBUTED_DEBUG": "OFF", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join(
               [str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}
    mpiexec = Path(sys.executable).with_name("mpiexec")
    cmd = [str(mpiexec), "-n", str(n), sys.executable, str(script), *args]
    if capture:
        return subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return subprocess.run(cmd, env=env).returncode
