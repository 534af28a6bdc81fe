"""No DataLoader worker outlives its main process: a worker stuck in __getitem__ is killed by
the kernel (Linux's parent-death signal) when the main process is SIGKILLed, which no Python
code in the main process could arrange once it is dead."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _alive(pid):
    """True while pid is a running process (a zombie awaiting its reaper counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is "
                    "Linux's (prctl PR_SET_PDEATHSIG); elsewhere the idle watchdog applies")
def test_a_hung_worker_dies_with_its_sigkilled_parent(tmp_path):
    code = textwrap.dedent(f"""
        import os, time
        from labkit.utils.data import DataLoader, Dataset

        class Hung(Dataset):
            def __len__(self):
                return 8

            def __getitem__(self, i):
                with open(os.path.join({str(tmp_path)!r}, f"worker-{{os.getpid()}}"), "w"):
                    pass
                time.sleep(3600)              # stuck for good

        for batch in DataLoader(Hung(), batch_size=1, num_workers=2):
            pass
    """)
    parent = subprocess.Popen([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=ROOT))
    try:
        deadline = time.monotonic() + 60
        while len(list(tmp_path.glob("worker-*"))) < 2:
            assert parent.poll() is None, "the main process ended early"
            assert time.monotonic() < deadline, "the workers never started"
            time.sleep(0.05)
        workers = [int(p.name.split("-")[1]) for p in tmp_path.glob("worker-*")]
        assert all(_alive(pid) for pid in workers)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 5           # well below the 1 s idle watchdog's reach:
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)                      # a hung worker never runs the watchdog
        survivors = [pid for pid in workers if _alive(pid)]
    finally:
        if parent.poll() is None:
            parent.kill()
    for pid in survivors:                         # clean up before failing
        os.kill(pid, signal.SIGKILL)
    assert survivors == [], f"workers {survivors} outlived their killed main process"
