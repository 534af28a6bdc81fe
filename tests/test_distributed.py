"""labkit.distributed under a real `mpiexec` (the mpich wheel's), with 2 and 4 ranks.

One launch runs thousands of checks (tests/dist_checks.py: every collective against numpy, for
several dtypes and shapes, sync and async, and the errors a rank can catch), another compares
with torch.distributed on gloo (tests/dist_oracle.py); the faults that end
a job (a rank that raises, dies, leaves early or never arrives) get a launch each, and each
checks that every rank is gone afterwards.
"""
import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("mpi4py", reason="labkit.distributed needs mpi4py: pip install 'labkit[dist]'")

from labkit.distributed.run import find_mpiexec  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CHECKS = Path(__file__).with_name("dist_checks.py")


def env(**extra):
    e = dict(os.environ, PYTHONPATH=str(REPO), **extra)
    e.setdefault("LABKIT_DISTRIBUTED_TIMEOUT", "60")
    return e


def mpiexec(n, *args, timeout=240, **extra):
    cmd = [find_mpiexec(), "-n", str(n), sys.executable, *map(str, args)]
    t0 = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env(**extra))
    return run, time.perf_counter() - t0


def launch(*args, timeout=120, **extra):
    cmd = [sys.executable, "-m", "labkit.distributed.run", *map(str, args)]
    t0 = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env(**extra))
    return run, time.perf_counter() - t0


def leftovers(marker):
    """Processes still running whose command line names `marker` (a test's own script)."""
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in ps.splitlines() if str(marker) in line and "ps -eo" not in line]


def script(tmp_path, body, name="job.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


@pytest.mark.parametrize("n, mode, check", [(2, "full", "DETAIL"), (4, "quick", "DETAIL"),
                                           (2, "quick", "OFF")])
def test_every_collective_matches_numpy(n, mode, check):
    """check=OFF: the same results without the call comparison (async calls start at once)."""
    run, _ = mpiexec(n, CHECKS, *(["quick"] if mode == "quick" else []),
                     LABKIT_DISTRIBUTED_DEBUG=check)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:]
    done = sorted(re.findall(r"rank (\d+): (\d+) checks passed", run.stdout))
    assert [int(r) for r, _ in done] == list(range(n)), out[-3000:]
    assert all(int(count) > 1000 for _, count in done), done


def test_same_results_as_torch_distributed_gloo():
    """PyTorch is the oracle: each rank runs the same collective programs on torch.distributed
    (gloo) and on labkit.distributed, and every output tensor must be equal."""
    pytest.importorskip("torch")
    with socket.socket() as s:                   # a free port for gloo's rendezvous
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run, _ = mpiexec(2, Path(__file__).with_name("dist_oracle.py"), port,
                     PYTHONWARNINGS="ignore")
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
    done = sorted(re.findall(r"rank (\d+): (\d+) equal", run.stdout))
    assert [int(r) for r, _ in done] == [0, 1] and all(int(k) > 200 for _, k in done), run.stdout


FAULT = """
    import os, signal, sys, time
    import labkit, labkit.distributed as dist
    dist.init_process_group("mpi")
    rank, what = dist.get_rank(), sys.argv[1]
    dist.barrier()
    if what == "raise" and rank == 1:
        raise ValueError("boom on rank 1")
    if what == "kill" and rank == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    if what == "exit" and rank == 1:
        sys.exit(3)
    if what == "late" and rank == 1:
        time.sleep(60)
    if what == "one-rank" and rank != 0:
        pass                                  # skips the first all_reduce
    else:
        dist.all_reduce(labkit.ones(3, 4))
    dist.all_reduce(labkit.ones(2))
    dist.destroy_process_group()
"""


@pytest.mark.parametrize("what, words", [
    ("raise", ["Traceback", "ValueError: boom on rank 1", "rank 1 of 2 failed"]),
    ("kill", []),
    ("exit", ["all_reduce(float32 tensor of shape (3, 4)", "rank 1: has finished its script"]),
    ("one-rank", ["rank 0: all_reduce(float32 tensor of shape (3, 4)",
                  "rank 1: all_reduce(float32 tensor of shape (2,)"]),
    ("late", ["all_reduce", "waited 2 s", "not all of them did"]),
])
def test_a_failing_rank_stops_every_rank(tmp_path, what, words):
    """No hang, a non-zero exit, the reason on stderr, and no process left behind."""
    job = script(tmp_path, FAULT)
    run, seconds = mpiexec(2, job, what, timeout=120, LABKIT_DISTRIBUTED_TIMEOUT="2")
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    for w in words:
        assert w in out, out
    assert seconds < 50, f"{what}: took {seconds:.1f} s (the sleeping rank was not stopped)"
    time.sleep(0.2)
    assert leftovers(job) == []


def test_the_job_ends_cleanly_when_every_rank_agrees(tmp_path):
    job = script(tmp_path, FAULT)
    run, _ = mpiexec(2, job, "fine")
    assert run.returncode == 0, run.stdout + run.stderr
    assert leftovers(job) == []


@pytest.mark.parametrize("check", ["DETAIL", "OFF"])
def test_async_calls_left_in_flight_are_finished_at_exit(tmp_path, check):
    """MPI may still be writing into a tensor of an un-waited async call when the script ends:
    the exit handler finishes it before MPI shuts down (not a crash in free())."""
    job = script(tmp_path, """
        import labkit, labkit.distributed as dist
        dist.init_process_group()
        t = labkit.ones(100000)
        dist.all_reduce(t, async_op=True)
        dist.broadcast(labkit.ones(10), src=0, async_op=True)
        print("end", flush=True)
    """)
    run, _ = mpiexec(2, job, LABKIT_DISTRIBUTED_DEBUG=check)
    assert run.returncode == 0 and run.stdout.count("end") == 2, run.stdout + run.stderr


def test_a_rank_failing_before_init_stops_the_others_under_the_launcher(tmp_path):
    """Before init_process_group MPI has not started on that rank; the launcher's worker starts
    it and leaves, so mpiexec stops the ranks already waiting in init_process_group."""
    job = script(tmp_path, """
        import os
        if os.environ["RANK"] == "1":
            raise ImportError("no module named nothing")
        import labkit.distributed as dist
        dist.init_process_group()
        dist.barrier()
    """)
    run, seconds = launch("--nproc-per-node", 2, job, timeout=120)
    out = run.stdout + run.stderr
    assert run.returncode != 0 and "ImportError: no module named nothing" in out, out
    assert "_worker.py" not in out, out            # the traceback is the script's, not ours
    assert seconds < 50
    assert leftovers(job) == []


def test_launcher_gives_torchrun_environment_and_arguments(tmp_path):
    job = script(tmp_path, """
        import json, os, sys
        import labkit.distributed as dist
        dist.init_process_group()
        keys = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                "MASTER_PORT", "OMP_NUM_THREADS"]
        print(json.dumps(dict({k: os.environ[k] for k in keys}, argv=sys.argv[1:],
                              rank=dist.get_rank(), size=dist.get_world_size(),
                              path0=sys.path[0])))
        dist.destroy_process_group()
    """)
    run, _ = launch("--nproc_per_node", 2, "--master-port", 29123, job, "--lr", "0.1", "x",
                    OMP_NUM_THREADS="")
    assert run.returncode == 0, run.stdout + run.stderr
    rows = sorted((json.loads(m) for m in re.findall(r"\{[^{}]*\}", run.stdout)),
                  key=lambda d: d["rank"])
    assert [(d["RANK"], d["LOCAL_RANK"], d["rank"]) for d in rows] == [("0", "0", 0),
                                                                       ("1", "1", 1)]
    for d in rows:
        assert (d["WORLD_SIZE"], d["LOCAL_WORLD_SIZE"], d["size"]) == ("2", "2", 2)
        assert (d["MASTER_ADDR"], d["MASTER_PORT"]) == ("127.0.0.1", "29123")
        assert d["argv"] == ["--lr", "0.1", "x"]
        assert d["path0"] == str(tmp_path)         # as `python job.py`: the script's folder


def test_launcher_exit_code_is_the_jobs(tmp_path):
    job = script(tmp_path, "import sys; sys.exit(3)\n")
    run, _ = launch("--nproc-per-node", 2, job)
    assert run.returncode == 3, run.stdout + run.stderr


def test_launcher_command_for_many_machines():
    run = subprocess.run([sys.executable, "-m", "labkit.distributed.run", "--dry-run",
                          "--hosts", "a,b", "--nproc-per-node", "4", "-m", "pkg.train", "--x"],
                         capture_output=True, text=True, env=env(), timeout=60)
    assert run.returncode == 0, run.stderr
    cmd = run.stdout.split()
    assert cmd[0] == find_mpiexec() and cmd[1:3] == ["-n", "8"]
    assert " -hosts a,b -ppn 4 " in run.stdout
    assert cmd[-4:] == ["labkit.distributed._worker", "-m", "pkg.train", "--x"]
    run = subprocess.run([sys.executable, "-m", "labkit.distributed.run", "--nnodes", "2",
                          "job.py"], capture_output=True, text=True, env=env(), timeout=60)
    assert run.returncode != 0 and "--hosts" in run.stderr


def test_mpiexec_is_the_wheels():
    """CI has only `make setup`: mpiexec must come from the mpich wheel in this environment."""
    path = Path(find_mpiexec())
    assert path.exists() and os.access(path, os.X_OK)
    assert Path(sys.prefix).resolve() in path.resolve().parents, path


def test_import_loads_no_mpi_and_a_single_process_is_a_world_of_one():
    code = textwrap.dedent("""
        import sys
        import labkit
        import labkit.distributed as dist
        assert labkit.distributed is dist and dist.is_available() and not dist.is_initialized()
        assert dist.ReduceOp.SUM == dist.ReduceOp.RedOpType.SUM
        assert not any(m.startswith("mpi4py") for m in sys.modules), "mpi4py imported early"
        dist.init_process_group()             # no mpiexec: MPI's singleton, one rank
        t = labkit.tensor([1.0, 2.0])
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        assert (dist.get_rank(), dist.get_world_size()) == (0, 1) and t.tolist() == [1.0, 2.0]
        dist.destroy_process_group()
        print("ok")
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env(), timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
