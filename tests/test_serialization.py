"""labkit.save / labkit.load: round trips of what training needs, and files that must be
refused without running anything (pickles, torch checkpoints, object arrays, path tricks,
compression bombs, truncation, corruption, lies in the metadata)."""
import io
import json
import os
import pickle
import zipfile

import numpy as np
import pytest

import labkit
from labkit import nn, optim
from labkit.serialization import CheckpointError

RAN = []


def _evil(*args):
    """What a malicious pickle would call: it must never run."""
    RAN.append(args)


class Evil:
    def __reduce__(self):
        return (_evil, ("pwned",))


def saved(obj):
    buf = io.BytesIO()
    labkit.save(obj, buf)
    return buf.getvalue()


def load_bytes(data, **kw):
    return labkit.load(io.BytesIO(data), **kw)


def rezip(data, change):
    """A copy of a checkpoint's zip with its entries passed through change(name, bytes), which
    returns a list of (name, bytes, compress_type) to write instead."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            for name, payload, kind in change(info.filename, src.read(info)):
                dst.writestr(zipfile.ZipInfo(name), payload, compress_type=kind)
    return out.getvalue()


def with_meta(data, edit):
    def change(name, payload):
        if name == "labkit.json":
            meta = json.loads(payload)
            edit(meta)
            payload = json.dumps(meta).encode()
        return [(name, payload, zipfile.ZIP_STORED)]
    return rezip(data, change)


# --- round trips ----------------------------------------------------------------------------

def test_round_trip_of_nested_containers_and_dtypes(tmp_path):
    t = labkit.tensor([[1.5, -2.0], [3.0, 4.25]])
    obj = {"epoch": 7, "loss": 0.125, "name": "run-1", "none": None, "flag": True,
           "inf": float("inf"), "nan": float("nan"), 3: "int key",
           "tensors": [t, t, labkit.arange(5), labkit.tensor([True, False]),
                       labkit.zeros(0, 3, dtype=labkit.float64), labkit.tensor(2.5),
                       labkit.tensor([1, 2], dtype=labkit.uint8)],
           "pair": (1, "two", (3.0,)), "empty": {}}
    path = tmp_path / "ckpt.lk"
    labkit.save(obj, path)
    back = labkit.load(path)
    assert back["epoch"] == 7 and back["loss"] == 0.125 and back["name"] == "run-1"
    assert back["none"] is None and back["flag"] is True and back[3] == "int key"
    assert back["inf"] == float("inf") and np.isnan(back["nan"])
    assert back["pair"] == (1, "two", (3.0,)) and back["empty"] == {}
    ts = back["tensors"]
    assert ts[0] is ts[1]                                   # stored once, shared again
    for a, b in zip(obj["tensors"], ts):
        assert isinstance(b, labkit.Tensor) and b.dtype == a.dtype and b.shape == a.shape
        assert np.array_equal(a.numpy(), b.numpy())
    assert labkit.load(str(path))["epoch"] == 7             # str paths too


def test_model_and_optimizer_checkpoint_resumes_training(tmp_path):
    """The lecture's checkpoint: model + optimizer state + epoch, loaded into fresh objects."""
    def build():
        labkit.manual_seed(3)
        model = nn.Sequential(nn.Linear(2, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
        return model, optim.Adam(model.parameters(), lr=0.01)

    x, y = labkit.randn(16, 2), labkit.randint(0, 3, (16,))

    def train(model, opt, steps):
        for _ in range(steps):
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return loss.item()

    model, opt = build()
    train(model, opt, 5)
    labkit.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 5},
                tmp_path / "ckpt.lk")
    expected = train(model, opt, 5)

    model2, opt2 = build()
    ckpt = labkit.load(tmp_path / "ckpt.lk")
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["optimizer"])
    assert ckpt["epoch"] == 5
    assert ckpt["optimizer"]["state"][0]["step"] == 5       # int keys survive
    assert isinstance(ckpt["optimizer"]["param_groups"][0]["betas"], tuple)
    assert train(model2, opt2, 5) == expected


def test_parameters_and_requires_grad_are_restored():
    p = nn.Parameter(labkit.randn(3))
    leaf = labkit.randn(2, requires_grad=True)
    back = load_bytes(saved([p, leaf, labkit.randn(2)]))
    assert isinstance(back[0], nn.Parameter) and back[0].requires_grad
    assert type(back[1]) is labkit.Tensor and back[1].requires_grad and back[1].is_leaf
    assert not back[2].requires_grad


def test_map_location():
    data = saved({"w": labkit.ones(2)})
    assert load_bytes(data, map_location="cpu")["w"].device == labkit.device("cpu")
    assert load_bytes(data, map_location={"cpu": "cpu"})["w"].device.type == "cpu"
    with pytest.raises(TypeError, match="map_location"):
        load_bytes(data, map_location=42)
    if not labkit.cuda.is_available():
        with pytest.raises(RuntimeError, match="map_location='cpu'"):
            load_bytes(data, map_location="cuda")
    gpu = with_meta(data, lambda m: m["tensors"][0].update(device="cuda:0"))
    back = load_bytes(gpu, map_location="cpu")
    assert back["w"].device.type == "cpu"


def test_save_refuses_code_graphs_and_odd_types():
    model = nn.Linear(2, 2)
    with pytest.raises(TypeError, match=r"model.state_dict\(\)"):
        labkit.save(model, io.BytesIO())
    with pytest.raises(TypeError, match="never code"):
        labkit.save({"act": lambda x: x}, io.BytesIO())
    with pytest.raises(TypeError, match="numeric and bool arrays only"):
        labkit.save(np.array(["a", None], dtype=object), io.BytesIO())
    with pytest.raises(TypeError, match="keys must be strings or ints"):
        labkit.save({(1, 2): 3}, io.BytesIO())


# --- files that must be refused -------------------------------------------------------------

def refused(data, match):
    RAN.clear()
    with pytest.raises(CheckpointError, match=match):
        load_bytes(data)
    assert RAN == [], "loading ran code from the file"


def test_a_pickle_is_refused_and_never_run(tmp_path):
    refused(pickle.dumps(Evil()), "pickle")
    refused(pickle.dumps({"w": Evil()}, protocol=0), "pickle")
    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps(Evil()))
    with pytest.raises(CheckpointError, match="never unpickles"):
        labkit.load(path)
    assert RAN == []


def test_a_torch_checkpoint_is_refused_and_never_run():
    torch = pytest.importorskip("torch")
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2), "evil": Evil()}, buf)
    refused(buf.getvalue(), "PyTorch checkpoint")


def test_an_object_array_is_refused():
    payload = io.BytesIO()
    np.save(payload, np.array([Evil(), 1], dtype=object), allow_pickle=True)
    data = saved({"w": labkit.ones(2)})
    evil = rezip(data, lambda n, b: [(n, payload.getvalue() if n.endswith(".npy") else b,
                                      zipfile.ZIP_STORED)])
    refused(evil, "object")
    lying = with_meta(evil, lambda m: m["tensors"][0].update(dtype="object"))
    refused(lying, "invalid")


def test_path_traversal_and_unknown_entries_are_refused(tmp_path):
    data = saved({"w": labkit.ones(2)})
    for bad in ("../../escape.npy", "/etc/passwd", "tensors/../../x.npy", "tensors/0.npy.exe",
                "code.py"):
        evil = rezip(data, lambda n, b, bad=bad: [(n, b, zipfile.ZIP_STORED)] + (
            [(bad, b"boom", zipfile.ZIP_STORED)] if n == "labkit.json" else []))
        refused(evil, "unexpected entry")
    assert not (tmp_path.parent / "escape.npy").exists()
    with pytest.warns(UserWarning, match="Duplicate name"):     # zipfile warns when writing it
        dup = rezip(data, lambda n, b: [(n, b, zipfile.ZIP_STORED)] * 2)
    refused(dup, "twice")


def test_a_compression_bomb_is_refused_before_inflating():
    data = saved({"w": labkit.ones(2)})
    bomb = rezip(data, lambda n, b: [(n, b + b"\0" * (50 << 20) if n.endswith(".npy") else b,
                                      zipfile.ZIP_DEFLATED)])
    assert len(bomb) < 1 << 20                      # 50 MB of zeros in well under 1 MB
    refused(bomb, "compressed")


def test_lying_metadata_is_refused():
    data = saved({"w": labkit.ones(2, 3)})
    refused(with_meta(data, lambda m: m["tensors"][0].update(shape=[10 ** 6, 10 ** 6])),
            "does not hold the array")
    refused(with_meta(data, lambda m: m["tensors"][0].update(dtype="float64")), "dtype")
    refused(with_meta(data, lambda m: m["tensors"].append(m["tensors"][0])), "tensor")
    refused(with_meta(data, lambda m: m.update(object={"__tensor__": 5})), "not something")
    refused(with_meta(data, lambda m: m.update(object={"__import__": "os"})), "not something")
    refused(with_meta(data, lambda m: m.update(version=99)), "version 99")
    refused(with_meta(data, lambda m: m.update(format="other")), "does not describe")
    deep = {"__tuple__": []}
    for _ in range(300):
        deep = {"__tuple__": [deep]}
    refused(with_meta(data, lambda m: m.update(object=deep)), "nested|damaged")
    huge_header = rezip(data, lambda n, b: [(n, b if not n.endswith(".npy") else
                                             b[:8] + b"\xff\xff" + b[10:], zipfile.ZIP_STORED)])
    refused(huge_header, "damaged|does not hold")
    not_json = rezip(data, lambda n, b: [(n, b"{'format': " if n == "labkit.json" else b,
                                          zipfile.ZIP_STORED)])
    refused(not_json, "not valid JSON")
    nan_json = rezip(data, lambda n, b: [(n, b.replace(b'"version": 1', b'"version": NaN')
                                          if n == "labkit.json" else b, zipfile.ZIP_STORED)])
    refused(nan_json, "strict JSON")


def test_truncated_corrupt_empty_and_foreign_files_are_refused(tmp_path):
    data = saved({"w": labkit.randn(100, 10), "epoch": 3})
    for cut in (10, len(data) // 3, len(data) // 2, len(data) - 30):
        refused(data[:cut], "damaged|not a labkit")
    corrupt = bytearray(data)
    i = data.index(b"NUMPY") + 200                  # inside the array's bytes
    corrupt[i] ^= 0xFF
    refused(bytes(corrupt), "damaged")
    refused(b"", "empty")
    refused(b"hello world, not a checkpoint", "not a labkit checkpoint")
    npy = io.BytesIO()
    np.save(npy, np.ones(3))
    refused(npy.getvalue(), "numpy.load")
    other_zip = io.BytesIO()
    with zipfile.ZipFile(other_zip, "w") as zf:
        zf.writestr("labkit.json.txt", "{}")
    refused(other_zip.getvalue(), "unexpected entry")
    empty_zip = io.BytesIO()
    zipfile.ZipFile(empty_zip, "w").close()
    refused(empty_zip.getvalue(), "no labkit.json")
    with pytest.raises(FileNotFoundError):
        labkit.load(os.path.join(tmp_path, "missing.lk"))
