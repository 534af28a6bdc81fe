"""Issue 17's figures, measured in one run: crafted files per loader and how many were refused
cleanly (labkit's error, no code run); bit-flip trials and outcomes; SIGKILL during saves and
what the path held after; a save onto a full tmpfs; thread trials; objects left for the cycle
collector per training step; traces per 100 compiled steps per optimizer.

    PYTHONPATH=. python benchmarks/safety_figures.py [--quick]

--quick (CI) runs fewer trials and an 8 MiB state_dict instead of 64 MiB.
"""
import gc
import io
import json
import os
import sys
import tempfile
import warnings
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

import labkit                                    # noqa: E402
from labkit import jit, nn                       # noqa: E402
from labkit._io import LoadError                 # noqa: E402

import jit_attacks                               # noqa: E402
import save_trials                               # noqa: E402

QUICK = "--quick" in sys.argv


# --- crafted files ---------------------------------------------------------------------------

def _zip(entries, flags=0):
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # duplicate names are the point of some
        with zipfile.ZipFile(out, "w") as z:
            for name, data, kind in entries:
                z.writestr(zipfile.ZipInfo(name), data, compress_type=kind)
    data = out.getvalue()
    if flags:
        data = bytearray(data)
        for sig, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
            i = data.find(sig)
            while i >= 0:
                data[i + at] |= flags & 0xFF
                data[i + at + 1] |= flags >> 8
                i = data.find(sig, i + 4)
        data = bytes(data)
    return data


def _entries(data):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return [(n, z.read(n), zipfile.ZIP_STORED) for n in z.namelist()]


def _replace(entries, name, edit):
    return [(n, edit(b) if n == name else b, k) for n, b, k in entries]


def _generic(data, meta_name):
    """Damage any labkit archive could suffer: cut, flags, duplicates, bombs, JSON tricks."""
    e = _entries(data)
    out = {f"truncated to {f:.0%}": data[:int(len(data) * f)] for f in (0.01, 0.3, 0.6, 0.95)}
    out.update({"empty file": b"", "not a zip": b"hello", "a pickle": b"\x80\x04K\x01.",
                "a lone .npy": b"\x93NUMPY\x01\x00" + b" " * 60})
    for bit in (0, 5, 6, 13):
        out[f"zip flag bit {bit}"] = _zip(e, 1 << bit)
    out["duplicate " + meta_name] = _zip(e + [(meta_name, b"{}", zipfile.ZIP_STORED)])
    out["unexpected entry ../x"] = _zip(e + [("../x", b"x", zipfile.ZIP_STORED)])
    out["absolute path entry"] = _zip(e + [("/etc/passwd", b"x", zipfile.ZIP_STORED)])
    out["bzip2 entry"] = _zip([(n, b, zipfile.ZIP_BZIP2) for n, b, _ in e])
    out["1 GiB deflate bomb"] = _bomb(e)
    for what, old, new in (("version 99", b'"version": 1', b'"version": 99'),
                           ("1e999 in the JSON", b'"version": 1', b'"version": 1e999'),
                           ("NaN in the JSON", b'"version": 1', b'"version": NaN'),
                           ("duplicate JSON key", b'"version": 1', b'"version": 1, "version": 1'),
                           ("not JSON", b"{", b"[[[")):
        out[what] = _zip(_replace(e, meta_name, lambda b, o=old, n=new: b.replace(o, n, 1)))
    deep = b'{"format": ' + b"[" * 100000 + b"]" * 100000 + b"}"
    out["JSON nested 100000 deep"] = _zip(_replace(e, meta_name, lambda b: deep))
    return out


def _bomb(entries):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b, _ in entries:
            z.writestr(n, b)
        name = "tensors/99.npy" if any(n == "labkit.json" for n, _, _ in entries) \
            else "params/bomb.npy"
        with z.open(name, "w", force_zip64=True) as fh:
            chunk = bytes(64 << 20)
            for _ in range(2 if QUICK else 16):
                fh.write(chunk)
    return out.getvalue()


def crafted_checkpoints():
    buf = io.BytesIO()
    labkit.save({"w": labkit.ones(2, 3), "step": 3}, buf)
    data = buf.getvalue()
    out = _generic(data, "labkit.json")
    e = _entries(data)
    obj = io.BytesIO()
    np.save(obj, np.array([object(), 1], dtype=object), allow_pickle=True)
    out["object array"] = _zip(_replace(e, "tensors/0.npy", lambda b: obj.getvalue()))
    out["torch checkpoint (data.pkl)"] = _zip(e + [("archive/data.pkl", b"\x80\x04.",
                                                    zipfile.ZIP_STORED)])

    def meta(edit):
        def change(b):
            m = json.loads(b)
            edit(m)
            return json.dumps(m).encode()
        return _zip(_replace(e, "labkit.json", change))
    out["shape lie"] = meta(lambda m: m["tensors"][0].update(shape=[10 ** 6, 10 ** 6]))
    out["dtype lie"] = meta(lambda m: m["tensors"][0].update(dtype="float64"))
    out["object dtype"] = meta(lambda m: m["tensors"][0].update(dtype="object"))
    out["bad device"] = meta(lambda m: m["tensors"][0].update(device="evil"))
    out["tensor index out of range"] = meta(lambda m: m.update(object={"__tensor__": 7}))
    out["__import__ in the structure"] = meta(lambda m: m.update(object={"__import__": "os"}))
    out["unknown key"] = meta(lambda m: m.update(extra=1))
    big_header = _replace(e, "tensors/0.npy", lambda b: b[:8] + b"\xff\xff" + b[10:])
    out["npy header length lie"] = _zip(big_header)
    out["npy bytes cut"] = _zip(_replace(e, "tensors/0.npy", lambda b: b[:-4]))
    return out


def crafted_graphs(marker):
    buf = io.BytesIO()
    jit.save(jit.trace(lambda x: x * 2, labkit.ones(2)), buf)
    out = _generic(buf.getvalue(), "graph.json")
    for name in jit_attacks.chains(marker):
        path = os.path.join(os.path.dirname(marker), "g.zip")
        jit_attacks.malicious(path, marker, name)
        with open(path, "rb") as fh:
            out["code: " + name] = fh.read()
    return out


def try_crafted(files, load, marker=None):
    clean, failures = 0, []
    for name, data in files.items():
        try:
            load(data)
            failures.append(f"{name}: loaded")
        except LoadError:
            clean += 1
        except Exception as e:                          # noqa: BLE001 (that is the figure)
            failures.append(f"{name}: {type(e).__name__}: {str(e)[:80]}")
        if marker and os.path.exists(marker):
            failures.append(f"{name}: CODE RAN")
            os.unlink(marker)
    return clean, failures


# --- the rest --------------------------------------------------------------------------------

def graph_flip_trials(trials):
    buf = io.BytesIO()
    labkit.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 3))
    x = labkit.randn(4, 2)
    jit.save(jit.trace(model, x), buf)
    want = model(x).detach().numpy()

    def load(b):
        return jit.load(io.BytesIO(b))(x).detach().numpy()
    return save_trials.bit_flips(buf.getvalue(), load, lambda got: np.array_equal(got, want),
                                 trials)


def thread_trials(n):
    sys.setswitchinterval(1e-6)
    import test_threads_and_memory as t
    ok = 0
    for trial in range(n):
        try:
            t.test_two_threads_training_and_one_evaluating_match_solo_runs(trial, None)
            ok += 1
        except AssertionError:
            pass
    sys.setswitchinterval(0.005)
    return ok


def cycle_objects():
    import test_threads_and_memory as t
    steps = t._steps("cpu")
    gc.collect()
    gc.disable()
    out = {}
    try:
        for name, step in steps.items():
            for _ in range(3):
                step()
            gc.collect()
            left = []
            for _ in range(10):
                step()
                left.append(gc.collect())
            out[name] = sum(left) / len(left)
    finally:
        gc.enable()
    return out


def traces_per_100_steps():
    import test_optim_compile as t
    out = {}
    for name, make in t.OPTIMIZERS.items():
        model, opt, x, y = t._setup(make, "cpu")
        step = jit.compile(t.make_step(model, opt, x, y))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(100):
                step()
        out[name] = step.traces
    return out


def main():
    with tempfile.TemporaryDirectory() as d:
        marker = os.path.join(d, "ran")
        ck = crafted_checkpoints()
        clean, bad = try_crafted(ck, lambda b: labkit.load(io.BytesIO(b)))
        print(f"crafted checkpoints (labkit.load): {clean}/{len(ck)} refused cleanly"
              + "".join(f"\n    NOT CLEAN: {b}" for b in bad))
        gr = crafted_graphs(marker)
        clean, bad = try_crafted(gr, lambda b: jit.load(io.BytesIO(b)), marker)
        print(f"crafted graphs (labkit.jit.load): {clean}/{len(gr)} refused cleanly "
              f"({sum(n.startswith('code:') for n in gr)} of them code-execution attempts)"
              + "".join(f"\n    NOT CLEAN: {b}" for b in bad))
    trials = 200 if QUICK else 500
    counts, others = save_trials.checkpoint_flip_trials(trials)
    print(f"bit flips, checkpoint ({trials} trials): {counts}")
    counts, others = graph_flip_trials(trials)
    print(f"bit flips, saved graph ({trials} trials): {counts}"
          + "".join(f"\n    {o}" for o in others[:5]))
    mib = 8 if QUICK else 64
    counts, save_time = save_trials.kill_during_saves(20, mib)
    print(f"SIGKILL during saves of a {mib} MiB state_dict (20 runs, kill at a random moment "
          f"within 1.2x the {save_time:.2f} s save): {counts}")
    res = save_trials.full_disk_save()
    if res is None:
        print("full tmpfs: skipped (mounting a tmpfs is not permitted here)")
    else:
        error, holds, files = res
        print(f"full 2 MiB tmpfs, 4 MiB save over a 1 MiB checkpoint: {type(error).__name__}: "
              f"'{str(error)[:110]}...'; the path holds the {holds} checkpoint; files: {files}")
    n = 3 if QUICK else 5
    print(f"thread trials (2 threads training + 1 evaluating under no_grad, vs solo): "
          f"{thread_trials(n)}/{n} equal to the solo runs")
    print("objects left for the cycle collector per training step (goal 0): "
          + ", ".join(f"{k} {v:g}" for k, v in cycle_objects().items()))
    print("traces per 100 compiled steps (goal 1-2): "
          + ", ".join(f"{k} {v}" for k, v in traces_per_100_steps().items()))


if __name__ == "__main__":
    main()
