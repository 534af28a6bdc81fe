"""Trials shared by the tests and benchmarks/safety_figures.py: kill a process mid-save, save
onto a full disk, flip bits in a checkpoint. Each returns counts of outcomes."""
import contextlib
import io
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

import labkit
from labkit._io import LoadError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def state(mib, value):
    """A state_dict of about `mib` MiB whose every entry holds `value`."""
    n = max(1, (mib << 20) // 4 // 8)
    return {f"layer{i}.weight": labkit.full((n,), float(value)) for i in range(8)}


def which(path, mib):
    """'old' (all 1.0), 'new' (all 2.0), or what else the file at path holds."""
    try:
        sd = labkit.load(path)
    except LoadError:
        return "refused (broken file)"
    except FileNotFoundError:
        return "missing"
    values = {float(v.numpy()[0]) for v in sd.values()} if len(sd) == 8 else set()
    if len(values) == 1 and all(v.numel() == max(1, (mib << 20) // 32) for v in sd.values()):
        return {1.0: "old", 2.0: "new"}.get(values.pop(), "other")
    return "mixed"


def kill_during_saves(trials=20, mib=64, seed=0, old_path_save=None):
    """SIGKILL a process at a random moment while it saves a `mib` MiB state_dict over an
    existing checkpoint; count what the path holds afterwards."""
    rng = np.random.default_rng(seed)
    counts = {}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "ckpt.lk")
        code = textwrap.dedent(f"""
            import sys
            sys.path.insert(0, {os.path.join(ROOT, 'tests')!r})
            import labkit, save_trials
            sd = save_trials.state({mib}, 2.0)
            print("ready", flush=True)
            sys.stdin.readline()
            labkit.save(sd, {path!r})
            print("done", flush=True)
        """)
        env = dict(os.environ, PYTHONPATH=ROOT)
        save_time = None
        for trial in range(trials):
            labkit.save(state(mib, 1.0), path)
            p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, env=env, text=True)
            assert p.stdout.readline().strip() == "ready"
            if save_time is None:                      # the first trial measures a full save
                start = time.perf_counter()
                p.stdin.write("\n")
                p.stdin.flush()
                p.stdout.readline()
                save_time = time.perf_counter() - start
                p.wait()
                outcome = "not killed (timing run): " + which(path, mib)
            else:
                p.stdin.write("\n")
                p.stdin.flush()
                time.sleep(float(rng.uniform(0, save_time * 1.2)))
                p.send_signal(signal.SIGKILL)
                p.wait()
                outcome = which(path, mib)
            p.stdout.close()
            p.stdin.close()
            leftovers = [n for n in os.listdir(d) if n != "ckpt.lk"]
            for n in leftovers:                        # a killed process cannot clean up
                os.unlink(os.path.join(d, n))
            counts[outcome] = counts.get(outcome, 0) + 1
    return counts, save_time


@contextlib.contextmanager
def small_tmpfs(size="2m"):
    """A tmpfs of `size` mounted on a new temporary folder (needs root; yields None if the
    mount is not permitted here)."""
    d = tempfile.mkdtemp()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", d],
                         capture_output=True, text=True)
    try:
        yield d if res.returncode == 0 else None
    finally:
        if res.returncode == 0:
            subprocess.run(["umount", d], capture_output=True)
        os.rmdir(d)


def full_disk_save():
    """Save a small checkpoint on a 2 MiB tmpfs, then a 4 MiB one over it: returns (error
    message, what the path holds, files left in the folder), or None without a tmpfs."""
    with small_tmpfs("2m") as d:
        if d is None:
            return None
        path = os.path.join(d, "ckpt.lk")
        labkit.save(state(1, 1.0), path)
        try:
            labkit.save(state(4, 2.0), path)
            error = None
        except OSError as e:
            error = e
        return error, which(path, 1), sorted(os.listdir(d))


def bit_flips(data, load, same, trials=500, seed=0):
    """Flip one random bit of `data` per trial; load(bytes) -> result; same(result) -> bool.
    Counts: refused with labkit's error, loaded and identical, loaded and DIFFERENT, other
    exception (the last two must stay 0)."""
    rng = np.random.default_rng(seed)
    counts = {"refused": 0, "identical": 0, "different": 0, "other error": 0}
    others = []
    for _ in range(trials):
        flipped = bytearray(data)
        i = int(rng.integers(len(data)))
        flipped[i] ^= 1 << int(rng.integers(8))
        try:
            result = load(bytes(flipped))
        except LoadError:
            counts["refused"] += 1
            continue
        except Exception as e:                           # noqa: BLE001 (counted, reported)
            counts["other error"] += 1
            others.append(f"{type(e).__name__}: {e}")
            continue
        counts["identical" if same(result) else "different"] += 1
    return counts, others


def checkpoint_flip_trials(trials=500, seed=0):
    labkit.manual_seed(0)
    obj = {"model": {"w": labkit.randn(8, 4), "b": labkit.randn(4)}, "epoch": 3,
           "lr": 0.01, "name": "run", "history": [1.5, 2.5], "pair": (1, None)}
    buf = io.BytesIO()
    labkit.save(obj, buf)
    want = obj

    def same(got):
        return (got["epoch"] == 3 and got["lr"] == 0.01 and got["name"] == "run"
                and got["history"] == [1.5, 2.5] and got["pair"] == (1, None)
                and all(np.array_equal(got["model"][k].numpy(), want["model"][k].numpy())
                        for k in ("w", "b")) and set(got) == set(want))
    return bit_flips(buf.getvalue(), lambda b: labkit.load(io.BytesIO(b)), same, trials, seed)
