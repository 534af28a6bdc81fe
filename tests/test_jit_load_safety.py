"""labkit.jit.load runs no code from a file: every graph that would reach exec, getattr-like
operators, dunder or private names, imports or labkit's file-writing functions is refused at
load time with an error naming the node, and nothing in it ever runs. The file is read by the
hardened reader shared with labkit.load: duplicates, bombs, versions, bit flips, endless loops."""
import io
import json
import os
import time
import zipfile

import numpy as np
import pytest

import labkit
from labkit import jit
from labkit._io import LoadError
from labkit.jit.serialize import GraphLoadError

import jit_attacks
from jit_models import close, mlp


def _x(shape, seed=3):
    return labkit.from_numpy(np.random.default_rng(seed).standard_normal(shape)
                             .astype(np.float32))


@pytest.mark.parametrize("variant", list(jit_attacks.chains("m")))
def test_a_graph_that_would_run_code_is_refused_at_load_naming_the_node(tmp_path, variant):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.zip"
    jit_attacks.malicious(path, marker, variant)
    with pytest.raises(GraphLoadError, match=r"graph\.json node 0|node 1") as info:
        jit.load(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, LoadError)
    assert not marker.exists(), "loading ran code from the file"


def test_the_unmodified_graph_loads_and_runs(tmp_path):
    doc, rest = jit_attacks.base_doc()
    path = tmp_path / "ok.zip"
    jit_attacks.write_graph(path, doc, rest)
    assert close(jit.load(path)(labkit.ones(2)), labkit.full((2,), 2.0))


def test_the_probes_chain_is_refused_before_anything_runs(tmp_path):
    """The exact chain the probe used; refused at load, so never reaches a call."""
    marker = tmp_path / "ran"
    path = tmp_path / "evil.zip"
    jit_attacks.malicious(path, marker, "attr chain (__class__ .. __globals__ .. exec)")
    with pytest.raises(GraphLoadError, match="attr:__class__.*not a tensor attribute"):
        jit.load(path)
    assert not marker.exists()


def test_save_refuses_what_load_would_refuse(tmp_path):
    def f(x):
        return x.grad_fn
    scripted = jit.script(f)
    with pytest.raises(ValueError, match="jit.load would refuse"):
        scripted.save(tmp_path / "f.zip")
    assert not (tmp_path / "f.zip").exists()


def _saved(tmp_path, name="m.zip"):
    path = tmp_path / name
    jit.trace(mlp(), _x((4, 2))).save(path)
    return path


def _rewrite(path, out, edit_doc=None, extra=()):
    with zipfile.ZipFile(path) as z:
        doc = json.loads(z.read("graph.json"))
        rest = {n: z.read(n) for n in z.namelist() if n != "graph.json"}
    text = json.dumps(doc if edit_doc is None else edit_doc(doc) or doc)
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("graph.json", text)
        for n, b in rest.items():
            z.writestr(n, b)
        for n, b in extra:
            z.writestr(n, b)


def test_a_duplicate_graph_json_is_refused(tmp_path):
    path = _saved(tmp_path)
    bad = tmp_path / "dup.zip"
    with pytest.warns(UserWarning, match="Duplicate name"):
        _rewrite(path, bad, extra=[("graph.json", b'{"format": "labkit.jit.graph"}')])
    with pytest.raises(GraphLoadError, match="appears twice"):
        jit.load(bad)


def test_a_deflate_bomb_is_refused_before_inflating(tmp_path):
    path = _saved(tmp_path)
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path) as z, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as out:
        for n in z.namelist():
            out.writestr(n, z.read(n))
        out.writestr("params/huge.npy", bytes(32 << 20))        # 32 MiB of zeros
    assert os.path.getsize(bomb) < 1 << 20
    start = time.perf_counter()
    with pytest.raises(GraphLoadError, match="compression bomb"):
        jit.load(bomb, max_bytes=16 << 20)
    assert time.perf_counter() - start < 1.0
    data = bytearray(bomb.read_bytes())               # the same entry, declaring 1 GiB
    for sig, at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        i = data.rfind(sig)
        data[i + at:i + at + 4] = (1 << 30).to_bytes(4, "little")
    bomb.write_bytes(bytes(data))
    with pytest.raises(GraphLoadError, match="compression bomb"):
        jit.load(bomb)                                # the default limit: 256 MiB


def test_format_version_and_format_are_checked(tmp_path):
    path = _saved(tmp_path)
    bad = tmp_path / "v99.zip"
    _rewrite(path, bad, lambda d: d.update(version=99))
    with pytest.raises(GraphLoadError, match="version 99"):
        jit.load(bad)
    _rewrite(path, bad, lambda d: d.update(format="something.else"))
    with pytest.raises(GraphLoadError, match="not a labkit.jit graph"):
        jit.load(bad)


def test_strict_json_overflowing_numbers_and_duplicate_keys_are_refused(tmp_path):
    path = _saved(tmp_path)
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(path) as z:
        text = z.read("graph.json").decode()
        rest = {n: z.read(n) for n in z.namelist() if n != "graph.json"}
    for edit, match in ((text.replace('"version": 1', '"version": 1e999'), "too large"),
                        (text.replace('"version": 1', '"version": NaN'), "strict JSON"),
                        (text.replace('"version": 1', '"version": 1, "version": 1'), "twice")):
        with zipfile.ZipFile(bad, "w") as z:
            z.writestr("graph.json", edit)
            for n, b in rest.items():
                z.writestr(n, b)
        with pytest.raises(GraphLoadError, match=match):
            jit.load(bad)


def _loop_graph(tmp_path):
    def f(x, n: int):
        y = x
        for i in range(n):
            y = y * 0.5
        return y
    path = tmp_path / "loop.zip"
    jit.script(f).save(path)
    return f, path


def test_a_loop_with_a_huge_trip_count_is_stopped_with_a_clear_error(tmp_path):
    f, path = _loop_graph(tmp_path)
    bad = tmp_path / "endless.zip"

    def endless(doc):
        loop = next(n for n in doc["body"]["nodes"] if n["kind"] == "Loop")
        loop["args"]["tuple"][1] = 10 ** 12
    _rewrite(path, bad, endless)
    g = jit.load(bad)
    start = time.perf_counter()
    with pytest.raises(RuntimeError, match="more than the 10000000 a call may run"):
        g(_x((3,)), 2)
    assert time.perf_counter() - start < 1.0
    ok = jit.load(path, max_loop_iterations=5)
    assert close(ok(_x((3,)), 5), f(_x((3,)), 5))
    assert close(ok(_x((3,)), 5), f(_x((3,)), 5))          # the budget is per call
    with pytest.raises(RuntimeError, match="max_loop_iterations"):
        ok(_x((3,)), 6)


def test_bit_flips_never_give_a_silently_different_result_or_a_raw_error(tmp_path):
    path = _saved(tmp_path)
    data = path.read_bytes()
    x = _x((4, 2))
    want = jit.load(path)(x).detach().numpy()
    rng = np.random.default_rng(0)
    bad = tmp_path / "flip.zip"
    outcomes = {"refused": 0, "same": 0}
    for _ in range(150):
        flipped = bytearray(data)
        i = int(rng.integers(len(data)))
        flipped[i] ^= 1 << int(rng.integers(8))
        bad.write_bytes(bytes(flipped))
        try:
            got = jit.load(bad)(x).detach().numpy()
        except LoadError:
            outcomes["refused"] += 1
            continue
        assert np.array_equal(got, want), f"a flip at byte {i} changed the result silently"
        outcomes["same"] += 1
    assert outcomes["refused"] > 0


def test_a_saved_graph_is_written_atomically(tmp_path, monkeypatch):
    path = _saved(tmp_path)
    before = path.read_bytes()
    calls = []

    def full_disk(*args, **kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)
    import labkit.jit.serialize as ser
    real = np.save
    monkeypatch.setattr(ser.np, "save", full_disk)
    with pytest.raises(OSError, match="intact"):
        jit.trace(mlp(seed=1), _x((4, 2))).save(path)
    assert path.read_bytes() == before                  # the old graph, untouched
    assert sorted(os.listdir(tmp_path)) == ["m.zip"]    # and no temporary file left


def test_loads_from_a_file_object(tmp_path):
    path = _saved(tmp_path)
    g = jit.load(io.BytesIO(path.read_bytes()))
    assert g(_x((4, 2))).shape == (4, 3)


def test_structural_mutations_of_graph_json_are_refused_or_load_never_raw_errors(tmp_path):
    """Valid zips whose graph.json has values swapped for other JSON (what a bit flip inside
    a CRC-checked file cannot do, but an editor can): labkit's error, or a graph that loads."""
    import random

    def f(x, n: int):
        y = x.relu() if x.sum() > 0 else -x
        for i in range(n):
            y = y * 0.5 + x.mean()
        return y[0:2]
    buf = io.BytesIO()
    jit.script(f).save(buf)
    with zipfile.ZipFile(buf) as z:
        doc = json.loads(z.read("graph.json"))
    rng = random.Random(0)
    swaps = [None, 0, -1, 10 ** 12, 1.5, "x", "__class__", [], {}, {"v": "zz"}, True,
             {"tuple": 5}, {"dtype": "O"}, "Loop", "If"]

    def slots(o, path=()):
        yield path
        items = o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else ()
        for k, v in items:
            yield from slots(v, path + (k,))
    places = list(slots(doc))[1:]
    outcomes = {"refused": 0, "loaded": 0}
    for _ in range(300):
        m = json.loads(json.dumps(doc))
        path = rng.choice(places)
        target = m
        for k in path[:-1]:
            target = target[k]
        target[path[-1]] = rng.choice(swaps)
        data = io.BytesIO()
        with zipfile.ZipFile(data, "w") as z:
            z.writestr("graph.json", json.dumps(m))
        try:
            jit.load(io.BytesIO(data.getvalue()))
            outcomes["loaded"] += 1
        except LoadError:
            outcomes["refused"] += 1
    assert outcomes["refused"] > 200, outcomes
