"""SummaryWriter writes real TensorBoard event files: read back with tensorboard's own
EventAccumulator, and equal to what torch.utils.tensorboard writes for the same calls."""
import os

import numpy as np
import pytest

import labkit

pytest.importorskip("tensorboard")
torch = pytest.importorskip("torch")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from labkit.utils.tensorboard import SummaryWriter  # noqa: E402


def _log(mod, writer_cls, logdir):
    w = writer_cls(log_dir=str(logdir))
    for step in range(5):
        w.add_scalar("loss/train", 1.0 / (step + 1), step)
        w.add_scalar("lr", mod.tensor(0.1 * step), step)
        w.add_scalars("acc", {"train": step * 0.1, "val": step * 0.05}, step)
    values = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    w.add_histogram("weights", mod.tensor(values), 3)
    w.add_histogram("small", mod.tensor(values), 4, bins=10)
    w.add_text("note", "lecture 09 **run**", 0)
    w.flush()
    w.close()


def _read(path):
    acc = EventAccumulator(str(path), size_guidance={"scalars": 0, "histograms": 0,
                                                     "tensors": 0})
    acc.Reload()
    return acc


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("tb")
    _log(labkit, SummaryWriter, root / "mine")
    from torch.utils.tensorboard import SummaryWriter as TorchWriter
    _log(torch, TorchWriter, root / "torch")
    return root / "mine", root / "torch"


def test_scalars_read_back_as_torch(runs):
    mine, ref = _read(runs[0]), _read(runs[1])
    assert sorted(mine.Tags()["scalars"]) == sorted(ref.Tags()["scalars"]) == ["loss/train", "lr"]
    for tag in ("loss/train", "lr"):
        a = [(e.step, e.value) for e in mine.Scalars(tag)]
        b = [(e.step, e.value) for e in ref.Scalars(tag)]
        assert a == b


def test_add_scalars_makes_one_run_per_curve_as_torch(runs):
    def layout(d):
        return sorted("events" if f.startswith("events.out.tfevents.") else f
                      for f in os.listdir(d))
    assert layout(runs[0]) == layout(runs[1])
    subdirs = sorted(d for d in os.listdir(runs[0]) if os.path.isdir(runs[0] / d))
    assert subdirs == ["acc_train", "acc_val"] == sorted(
        d for d in os.listdir(runs[1]) if os.path.isdir(runs[1] / d))
    for d in subdirs:
        a = [(e.step, e.value) for e in _read(runs[0] / d).Scalars("acc")]
        b = [(e.step, e.value) for e in _read(runs[1] / d).Scalars("acc")]
        assert a == b


def test_histograms_as_torch(runs):
    mine, ref = _read(runs[0]), _read(runs[1])
    for tag in ("weights", "small"):
        a, b = mine.Histograms(tag)[0], ref.Histograms(tag)[0]
        assert a.step == b.step
        assert a.histogram_value.bucket == b.histogram_value.bucket
        np.testing.assert_allclose(a.histogram_value.bucket_limit,
                                   b.histogram_value.bucket_limit, rtol=1e-6)
        assert a.histogram_value.num == b.histogram_value.num == 1000


def test_text_as_torch(runs):
    mine, ref = _read(runs[0]), _read(runs[1])
    assert mine.Tags()["tensors"] == ref.Tags()["tensors"] == ["note/text_summary"]
    a = mine.Tensors("note/text_summary")[0].tensor_proto.string_val
    assert a == ref.Tensors("note/text_summary")[0].tensor_proto.string_val
    assert a == [b"lecture 09 **run**"]


def test_add_graph_reads_back(tmp_path):
    net = labkit.nn.Sequential(labkit.nn.Linear(3, 4), labkit.nn.ReLU(), labkit.nn.Linear(4, 1))
    with SummaryWriter(tmp_path) as w:
        w.add_graph(net, labkit.randn(2, 3))
    graph = _read(tmp_path).Graph()
    ops = {n.op for n in graph.node}
    assert {"AddmmBackward0", "ReluBackward0", "AccumulateGrad"} <= ops
    names = {n.name for n in graph.node}
    assert {"params/0.weight", "params/2.bias"} <= names
    relu = next(n for n in graph.node if n.op == "ReluBackward0")
    assert any(i.startswith("AddmmBackward0") for i in relu.input)


def test_unwritable_log_dir_is_a_clear_error_and_writes_nothing(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(PermissionError, match="cannot create the log directory"):
        SummaryWriter(blocker / "run")
    ro = tmp_path / "ro"
    ro.mkdir()
    os.chmod(ro, 0o500)
    try:
        if os.access(ro, os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
        with pytest.raises(PermissionError, match="not writable"):
            SummaryWriter(ro)
        assert os.listdir(ro) == []
    finally:
        os.chmod(ro, 0o700)


def test_bad_values_are_refused(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(ValueError, match="one-element"):
            w.add_scalar("x", labkit.ones(3))
        with pytest.raises(ValueError, match="inf or nan"):
            w.add_histogram("h", labkit.tensor([1.0, float("nan")]))
    with pytest.raises(RuntimeError, match="closed"):
        w.add_scalar("x", 1.0)
