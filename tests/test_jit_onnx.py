"""ONNX export: the file passes onnx.checker and onnxruntime computes the same outputs as
labkit (1e-5) for the course's MLPs and a small CNN. Skips only if onnx/onnxruntime are absent
(CI installs them with the test extra)."""
import numpy as np
import pytest

import labkit
from labkit import nn
from jit_models import cnn, mlp, two_layer

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def _roundtrip(model, x, tmp_path):
    path = tmp_path / "model.onnx"
    labkit.onnx.export(model, x, path, input_names=["x"], output_names=["y"])
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (got,) = sess.run(None, {"x": x.numpy()})
    with labkit.no_grad():
        want = model(x).numpy()
    return got, want


@pytest.mark.parametrize("make,shape", [
    (mlp, (5, 2)),
    (lambda: mlp(sizes=(4, 32, 32, 3), act=nn.Tanh), (5, 4)),
    (lambda: nn.Sequential(mlp(sizes=(4, 16, 3), act=nn.Sigmoid), nn.LogSoftmax(1))
     if hasattr(nn, "LogSoftmax") else nn.Sequential(mlp(sizes=(4, 16, 3), act=nn.Sigmoid),
                                                      nn.Softmax(1)), (5, 4)),
    (cnn, (2, 1, 8, 8)),
])
def test_onnxruntime_matches_labkit(make, shape, tmp_path):
    model = make()
    x = labkit.from_numpy(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    got, want = _roundtrip(model, x, tmp_path)
    assert got.shape == want.shape and np.allclose(got, want, atol=1e-5, rtol=1e-5)


def test_a_model_on_the_device_exports(device, tmp_path):
    model = cnn()
    x = labkit.from_numpy(np.random.default_rng(0).standard_normal((2, 1, 8, 8))
                          .astype(np.float32))
    path = tmp_path / "model.onnx"
    labkit.onnx.export(model.to(device), x.to(device), path, input_names=["x"])
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (got,) = sess.run(None, {"x": x.numpy()})
    with labkit.no_grad():
        want = model(x.to(device)).cpu().numpy()
    assert np.allclose(got, want, atol=1e-5, rtol=1e-5)


def test_a_function_exports_with_weights_as_initializers(tmp_path):
    rng = np.random.default_rng(1)
    w1, w2 = (labkit.from_numpy(rng.standard_normal(s).astype(np.float32))
              for s in ((6, 5), (5, 2)))
    x = labkit.from_numpy(rng.standard_normal((3, 6)).astype(np.float32))
    got, want = _roundtrip(lambda x: two_layer(x, w1, w2), x, tmp_path)
    assert np.allclose(got, want, atol=1e-5)
    model = onnx.load(str(tmp_path / "model.onnx"))
    assert {n.op_type for n in model.graph.node} >= {"MatMul", "Clip"}
    assert len(model.graph.initializer) >= 2


def test_an_op_without_onnx_form_is_named(tmp_path):
    with pytest.raises(NotImplementedError, match="no ONNX form for the op 'cumsum_like'|no ONNX"):
        labkit.onnx.export(lambda x: x.var(0), labkit.randn(3, 2), tmp_path / "m.onnx")
