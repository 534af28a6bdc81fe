"""docs/compat.md and labkit/engine/torch_api.txt are generated (tools/compat_table.py): a
labkit API added or removed without regenerating them fails here, with the command to run."""
import importlib.util
import os
import pathlib

import pytest

torch = pytest.importorskip("torch")
ROOT = pathlib.Path(__file__).resolve().parents[2]


def _generator():
    path = ROOT / "tools" / "compat_table.py"
    spec = importlib.util.spec_from_file_location("compat_table", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated():
    return _generator().generate()


@pytest.mark.skipif(os.environ.get("LABKIT_FAKE_CUDA") == "1",
                    reason="the table is checked in the plain pass, against the real environment")
def test_compat_table_is_current(generated):
    committed = (ROOT / "docs" / "compat.md").read_text()
    if f"from torch {torch.__version__.split('+')[0]} " not in committed.split("\n", 3)[2]:
        pytest.skip(f"docs/compat.md was generated with another torch than {torch.__version__}")
    doc, api = generated
    assert (ROOT / "docs" / "compat.md").read_text() == doc, \
        "docs/compat.md is stale: regenerate it with `python tools/compat_table.py`"
    assert (ROOT / "labkit" / "engine" / "torch_api.txt").read_text() == api, \
        "labkit/engine/torch_api.txt is stale: regenerate it with `python tools/compat_table.py`"


def test_table_rows_agree_with_labkit_and_torch(generated):
    doc, _ = generated
    import labkit
    assert "| `matmul` | yes |" in doc and hasattr(torch, "matmul") and hasattr(labkit, "matmul")
    assert "| `sparse_coo_tensor` | no | sparse tensors are out of scope |" in doc
    assert "| `Graph` |" not in doc                       # TorchScript internals are filtered
    assert "| `save` | differs | writes labkit's zip" in doc
    assert "| `__matmul__` | yes |" in doc                # Tensor operators are listed


def test_coverage_counts_uses_through_import_aliases():
    gen = _generator()
    import labkit
    uses = gen.coverage(torch, labkit)["poly_nn_sequential"]
    apis = [api for api, _ in uses]
    assert "torch.nn.Linear" in apis and "torch.nn.MSELoss" in apis and "torch.linspace" in apis
    assert any("torch.Tensor.unsqueeze" in a for a in apis)
    assert all(ok for _, ok in uses), [a for a, ok in uses if not ok]
