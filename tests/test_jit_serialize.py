"""save/load: a zip of JSON + .npy that runs in a fresh process which never imports the code
that built the model (only labkit), with the same outputs; no pickle anywhere."""
import json
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import labkit
from labkit import jit
from jit_models import close, cnn, mlp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run_fresh(path, shape, seed=3):
    """Load and run the graph in a new interpreter; return its output as a list."""
    code = textwrap.dedent(f"""
        import json, sys
        import numpy as np
        import labkit.jit
        f = labkit.jit.load({str(path)!r})
        x = labkit.from_numpy(np.random.default_rng({seed}).standard_normal({shape})
                              .astype(np.float32))
        out = f(x)
        assert "jit_models" not in sys.modules and "tests" not in sys.modules
        print(json.dumps(out.detach().numpy().tolist()))
    """)
    env = dict(os.environ, PYTHONPATH=ROOT)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=ROOT, env=env)
    assert res.returncode == 0, res.stderr
    return np.array(json.loads(res.stdout.strip().splitlines()[-1]), dtype=np.float32)


def _x(shape, seed=3):
    return labkit.from_numpy(np.random.default_rng(seed).standard_normal(shape)
                             .astype(np.float32))


@pytest.mark.parametrize("make,shape", [(mlp, (4, 2)), (cnn, (2, 1, 8, 8))])
def test_saved_trace_runs_in_a_fresh_process(tmp_path, make, shape):
    model = make()
    path = tmp_path / "model.zip"
    jit.trace(model, _x(shape)).save(path)
    assert close(_run_fresh(path, shape), model(_x(shape)))


def test_a_trace_made_on_the_device_saves_and_loads_on_the_cpu(tmp_path, device):
    model = cnn().to(device)
    path = tmp_path / "model.zip"
    jit.trace(model, _x((2, 1, 8, 8)).to(device)).save(path)
    assert close(jit.load(path)(_x((2, 1, 8, 8))), model(_x((2, 1, 8, 8)).to(device)))


def test_saved_script_with_control_flow_runs_in_a_fresh_process(tmp_path):
    def f(x, n: int):
        y = x.relu() if x.sum() > 0 else -x
        for i in range(n):
            y = y * 0.5
        return y
    path = tmp_path / "f.zip"
    jit.script(f).save(path)
    loaded = jit.load(path)
    for x in (_x((3,)), -_x((3,)).abs()):
        assert close(loaded(x, 2), f(x, 2))


def test_saved_compiled_graph_is_the_optimised_one(tmp_path):
    model = mlp()
    c = jit.compile(model)
    with labkit.no_grad():
        c(_x((4, 2)))
    path = tmp_path / "c.zip"
    c.save(path)
    assert close(_run_fresh(path, (4, 2)), model(_x((4, 2))))
    assert "linear" in json.loads(zipfile.ZipFile(path).read("graph.json"))["body"]["nodes"][0][
        "kind"]


def test_the_file_is_json_and_npy_only(tmp_path):
    path = tmp_path / "m.zip"
    jit.trace(mlp(), _x((4, 2))).save(path)
    names = zipfile.ZipFile(path).namelist()
    assert names[0] == "graph.json" and all(n.endswith(".npy") for n in names[1:])


def test_load_refuses_an_op_outside_labkit(tmp_path):
    path = tmp_path / "m.zip"
    jit.trace(lambda x: x * 2, _x((2,))).save(path)
    z = zipfile.ZipFile(path)
    doc = json.loads(z.read("graph.json"))
    doc["body"]["nodes"][0]["op"] = "function:os:system"
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as out:
        out.writestr("graph.json", json.dumps(doc))
    with pytest.raises(ValueError, match="not one of labkit's ops"):
        jit.load(bad)


def test_save_refuses_a_custom_function():
    class Twice(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x._data * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    traced = jit.trace(lambda x: Twice.apply(x), _x((2,)))
    with pytest.raises(ValueError, match="outside labkit"):
        traced.save(os.devnull)
