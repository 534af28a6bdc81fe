"""labkit.export against torch.export: the same models captured whole, the same outputs, the
same signature (parameters and buffers lifted), guards on dynamic sizes, cond, save/load, ONNX."""
import os
import subprocess
import sys
import warnings
import zipfile

import numpy as np
import pytest

import labkit
from labkit import nn
from labkit.export import Dim, ExportError, export
from conftest import assert_close, rand_array

torch = pytest.importorskip("torch")


def twin_mlp():
    """A labkit model and a torch model with the same float64 weights (and BatchNorm buffers)."""
    labkit.manual_seed(0)
    mine = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3)).double()
    ref = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(),
                              torch.nn.Linear(8, 3)).double()
    ref.load_state_dict({k: torch.tensor(v.numpy()) for k, v in mine.state_dict().items()})
    mine.eval(), ref.eval()
    return mine, ref


def test_export_matches_torch_export():
    mine, ref = twin_mlp()
    x = rand_array((5, 4), seed=1)
    ep = export(mine, (labkit.tensor(x),))
    tep = torch.export.export(ref, (torch.tensor(x),))
    assert_close(ep.module()(labkit.tensor(x)), tep.module()(torch.tensor(x)))
    kinds = [(s.kind, s.target) for s in ep.graph_signature.input_specs]
    tkinds = [(s.kind.name, s.target) for s in tep.graph_signature.input_specs]
    assert [k for k in kinds if k[0] == "PARAMETER"] == [k for k in tkinds if k[0] == "PARAMETER"]
    assert {k for k in kinds if k[0] == "BUFFER"} <= {k for k in tkinds if k[0] == "BUFFER"}
    assert kinds[-1][0] == tkinds[-1][0] == "USER_INPUT"
    text = str(ep)
    for part in ("ExportedProgram:", "def forward(self, p_0_weight", 'x: "f64[5, 4]"',
                 "Graph signature:", "p_0_weight: PARAMETER target='0.weight'",
                 "BUFFER target='1.running_mean'", "USER_INPUT", "Range constraints: {}"):
        assert part in text.replace("input:", "x:").replace('input: "', 'x: "'), part


def test_dynamic_batch_runs_at_other_sizes_and_guards_name_the_dim():
    mine, ref = twin_mlp()
    model = nn.Sequential(mine, nn.Flatten(0))          # a reshape that follows the batch size
    tmodel = torch.nn.Sequential(ref, torch.nn.Flatten(0))
    x = rand_array((5, 4), seed=2)
    ep = export(model, (labkit.tensor(x),), dynamic_shapes=({0: Dim("batch", min=2, max=16)},))
    tep = torch.export.export(tmodel, (torch.tensor(x),),
                              dynamic_shapes=({0: torch.export.Dim("batch", min=2, max=16)},))
    for n in (2, 9, 16):
        x = rand_array((n, 4), seed=n)
        assert_close(ep.module()(labkit.tensor(x)), tep.module()(torch.tensor(x)))
    assert "f64[batch, 4]" in str(ep) and "batch: VR[2, 16]" in str(ep)
    assert ep.range_constraints == {"batch": (2, 16)}
    with pytest.raises(RuntimeError, match=r"shape\[0\] \(dimension 'batch'\) to be <= 16, but got 17"):
        ep.module()(labkit.zeros(17, 4, dtype=labkit.float64))
    with pytest.raises(RuntimeError, match=r"shape\[1\] to be equal to 4, but got 5"):
        ep.module()(labkit.zeros(3, 5, dtype=labkit.float64))
    with pytest.raises(Exception):                     # torch guards the same way
        tep.module()(torch.zeros(17, 4, dtype=torch.float64))


def test_a_size_export_cannot_name_is_refused():
    def f(x):                          # a size that follows n as n**2: no linear form
        return x.sum() + labkit.ones(x.shape[0] ** 2).sum()
    with pytest.raises(ExportError, match="constant array whose shape follows"):
        export(f, (labkit.zeros(4, 6),), dynamic_shapes={"x": {0: Dim("n", max=10)}})
    ep = export(lambda x: x.reshape(x.shape[0] * 2, -1), (labkit.zeros(4, 6),),
                dynamic_shapes={"x": {0: Dim("n", max=10)}})       # 2*n: a linear form is named
    assert "f32[2*n, 3]" in str(ep) and tuple(ep.module()(labkit.zeros(7, 6)).shape) == (14, 3)
    with pytest.raises(ExportError, match="outside"):
        export(f, (labkit.zeros(4, 6),), dynamic_shapes={"x": {0: Dim("n", min=5)}})


def test_data_dependent_control_flow_is_an_error_naming_the_line_and_cond():
    def f(x):
        if x.sum() > 0:
            return x.sin()
        return x.cos()
    line = f.__code__.co_firstlineno + 1
    with pytest.raises(ExportError, match=rf"bool\(\) at .*:{line} \(`if x.sum\(\) > 0:`\).*labkit.cond"):
        export(f, (labkit.ones(3),))

    class F(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x.sin()
            return x.cos()
    with pytest.raises(Exception):                     # torch.export refuses it too
        torch.export.export(F(), (torch.ones(3),))


class Branchy(nn.Module):
    def forward(self, x):
        return labkit.cond(x.sum() > 0, lambda x: x.sin() * 2, lambda x: x.cos() - 1, (x,))


class TBranchy(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: x.sin() * 2, lambda x: x.cos() - 1, (x,))


@pytest.mark.parametrize("sign", [1, -1])
def test_cond_is_one_if_node_and_matches_torch_cond(sign):
    x = rand_array((3, 2), positive=True, seed=3)
    ep = export(Branchy(), (labkit.tensor(x),))
    tep = torch.export.export(TBranchy(), (torch.tensor(x),))
    assert [n.kind for n in ep.graph.nodes].count("If") == 1
    assert "labkit.cond(" in str(ep) and "true_graph" in str(ep)
    z = sign * rand_array((3, 2), positive=True, seed=4)
    assert_close(ep.module()(labkit.tensor(z)), tep.module()(torch.tensor(z)))
    assert_close(Branchy()(labkit.tensor(z)), TBranchy()(torch.tensor(z)))       # eager


def test_cond_in_jit_trace_keeps_both_branches_and_under_vmap_chooses_per_example():
    import labkit.func as F
    x = labkit.tensor([[1.0, 2.0], [-3.0, -1.0]], dtype=labkit.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        traced = labkit.jit.trace(Branchy(), x[0])
    for row in x:
        assert_close(traced(row), TBranchy()(torch.tensor(row.numpy())))
    assert_close(F.vmap(Branchy())(x), torch.func.vmap(TBranchy())(torch.tensor(x.numpy())))
    with pytest.raises(RuntimeError, match="cannot hold an If node yet"):
        labkit.jit.compile(Branchy())(x[0])
    with pytest.raises(RuntimeError, match="same shapes"):
        labkit.jit.trace(lambda x: labkit.cond(x.sum() > 0, lambda x: x, lambda x: x.sum(), (x,)),
                         x[0])


def test_save_load_runs_in_a_fresh_process_without_pickle(tmp_path):
    mine, _ = twin_mlp()
    x = rand_array((3, 4), seed=5)
    ep = export(mine, (labkit.tensor(x),), dynamic_shapes={"input": {0: Dim("batch", max=8)}})
    path = tmp_path / "ep.zip"
    labkit.export.save(ep, path)
    names = zipfile.ZipFile(path).namelist()
    assert "export.json" in names and all(n.endswith((".json", ".npy")) for n in names)
    back = labkit.export.load(path)
    y = rand_array((6, 4), seed=6)
    assert_close(back.module()(labkit.tensor(y)), ep.module()(labkit.tensor(y)))
    assert str(back) == str(ep)
    prog = ("import numpy as np, labkit, labkit.export\n"
            f"ep = labkit.export.load({str(path)!r})\n"
            "print(ep.module()(labkit.ones(2, 4, dtype=labkit.float64)).sum().item())\n")
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    with labkit.no_grad():
        want = mine(labkit.ones(2, 4, dtype=labkit.float64)).sum().item()
    assert abs(float(out.stdout) - want) < 1e-9


def test_save_is_atomic_and_load_goes_through_the_checked_reader(tmp_path, monkeypatch):
    from labkit._io import LoadError
    mine, _ = twin_mlp()
    ep = export(mine, (labkit.tensor(rand_array((3, 4), seed=5)),))
    path = tmp_path / "ep.zip"
    labkit.export.save(ep, path)
    names = zipfile.ZipFile(path).namelist()
    assert names.count("export.json") == 1 and names.count("graph.json") == 1
    labkit.export.save(ep, path)                    # saving again replaces, never appends
    assert zipfile.ZipFile(path).namelist() == names
    before = path.read_bytes()
    monkeypatch.setattr(zipfile.ZipFile, "writestr", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):           # a failure mid-save ...
        labkit.export.save(ep, path)
    monkeypatch.undo()
    assert path.read_bytes() == before               # ... leaves the old file as it was
    assert [p.name for p in tmp_path.iterdir()] == ["ep.zip"]   # and no temporary file
    graph_only = tmp_path / "graph.zip"
    labkit.jit.save(labkit.jit.trace(mine, labkit.tensor(rand_array((3, 4), seed=5))),
                    graph_only)
    with pytest.raises(LoadError, match="no export.json"):
        labkit.export.load(graph_only)
    with zipfile.ZipFile(path) as z:                 # a tampered format version
        entries = {n: z.read(n) for n in z.namelist()}
    entries["export.json"] = entries["export.json"].replace(b'"version": 1', b'"version": 99')
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as z:
        for n, data in entries.items():
            z.writestr(n, data)
    with pytest.raises(LoadError, match="version 99"):
        labkit.export.load(bad)


def test_onnx_through_the_exported_program(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    mine, _ = twin_mlp()
    model = nn.Sequential(mine, nn.Flatten(0))
    ep = export(model, (labkit.tensor(rand_array((4, 4))),),
                dynamic_shapes=({0: Dim("batch", max=32)},))
    path = tmp_path / "m.onnx"
    proto = labkit.export.to_onnx(ep, path, input_names=["x"])
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for n in (1, 7):
        x = rand_array((n, 4), seed=n)
        (got,) = sess.run(None, {"x": x})
        np.testing.assert_allclose(got, ep.module()(labkit.tensor(x)).detach().numpy(), rtol=1e-7)
    ep2 = export(Branchy(), (labkit.tensor(rand_array((3,))),))
    labkit.export.to_onnx(ep2, tmp_path / "c.onnx", input_names=["x"])
    sess = ort.InferenceSession(str(tmp_path / "c.onnx"), providers=["CPUExecutionProvider"])
    for sign in (1, -1):
        x = sign * rand_array((3,), positive=True, seed=8)
        (got,) = sess.run(None, {"x": x})
        np.testing.assert_allclose(got, ep2.module()(labkit.tensor(x)).numpy(), rtol=1e-7)
