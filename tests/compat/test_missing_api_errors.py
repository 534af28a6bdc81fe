"""A torch API labkit lacks fails with an AttributeError that names it ("labkit does not
implement torch.X; see docs/compat.md"), on every module that stands for a torch namespace and
on tensors; a typo still gets Python's own message, and hasattr/getattr keep working."""
import copy
import importlib
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import labkit

ROOT = pathlib.Path(__file__).resolve().parents[2]
API = [line for line in (ROOT / "labkit" / "engine" / "torch_api.txt").read_text().splitlines()
       if line and not line.startswith("#")]
NAMESPACES = ["torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils",
              "torch.optim", "torch.optim.lr_scheduler", "torch.utils.data", "torch.autograd"]


def _labkit(namespace):
    return importlib.import_module("labkit" + namespace[len("torch"):])


def _lacking(namespace, obj, k=3):
    """Up to k public torch names of `namespace` that labkit's `obj` lacks (today)."""
    names = [q[len(namespace) + 1:] for q in API if q.rsplit(".", 1)[0] == namespace]
    return [n for n in names if not n.startswith("_") and n not in dir(obj)][:k]


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_a_missing_torch_api_is_named(namespace):
    module = _labkit(namespace)
    lacking = _lacking(namespace, module)
    if not lacking:
        pytest.skip(f"labkit has every public name of {namespace}: nothing missing to name")
    for name in lacking:
        with pytest.raises(AttributeError) as e:
            getattr(module, name)
        assert str(e.value) == f"labkit does not implement {namespace}.{name}; see docs/compat.md"
        assert e.value.name == name and e.value.obj is module
        assert not hasattr(module, name) and getattr(module, name, 7) == 7


def test_a_missing_tensor_method_is_named():
    x = labkit.ones(2, 3)
    lacking = _lacking("torch.Tensor", x)
    assert lacking
    for name in lacking:
        message = rf"^labkit does not implement torch\.Tensor\.{name}; see docs/compat\.md$"
        with pytest.raises(AttributeError, match=message):
            getattr(x, name)
        assert not hasattr(x, name) and getattr(x, name, None) is None
    p = labkit.nn.Parameter(labkit.zeros(2))
    with pytest.raises(AttributeError, match="labkit does not implement torch.Tensor."):
        getattr(p, lacking[0])


def test_a_typo_gets_pythons_message_and_suggestion():
    x = labkit.ones(2)
    with pytest.raises(AttributeError) as e:
        x.sizee()
    assert str(e.value) == "'Tensor' object has no attribute 'sizee'"
    assert e.value.name == "sizee" and e.value.obj is x    # what Python's suggestion needs
    out = subprocess.run([sys.executable, "-c", "import labkit; labkit.ones(2).sizee"], cwd=ROOT,
                         capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)}, timeout=120)
    assert "Did you mean: 'size'?" in out.stderr
    with pytest.raises(AttributeError, match=r"^module 'labkit.nn' has no attribute 'Lineer'$"):
        labkit.nn.Lineer
    with pytest.raises(AttributeError, match=r"^module 'labkit' has no attribute 'zeroes'$"):
        labkit.zeroes


def test_private_and_dunder_probes_stay_plain_and_cheap_paths_still_work():
    x = labkit.arange(6.0).reshape(2, 3)
    with pytest.raises(AttributeError, match=r"^'Tensor' object has no attribute '_nothing'$"):
        x._nothing
    with pytest.raises(AttributeError, match=r"^module 'labkit' has no attribute '_nothing'$"):
        labkit._nothing
    assert not hasattr(x, "__array_interface__") and not hasattr(x, "__cuda_array_interface__")
    assert np.asarray(x).tolist() == [[0, 1, 2], [3, 4, 5]]
    y = copy.deepcopy(x)
    assert y.tolist() == x.tolist() and y is not x
    assert x.device.type == "cpu" and x.shape == (2, 3)      # real attributes never reach it
    assert labkit.jit is importlib.import_module("labkit.jit")   # lazy submodules still load


def test_from_import_of_a_missing_name_is_an_import_error():
    with pytest.raises(ImportError, match="cannot import name"):
        exec("from labkit.nn import " + _lacking("torch.nn", labkit.nn)[0], {})


def test_the_torch_shim_names_a_missing_submodule():
    code = ("import sys; sys.path.insert(0, 'tests/compat/shim')\n"
            "import torch, torch.nn.functional as F\n"
            "import labkit; assert torch is labkit and F is labkit.nn.functional\n"
            "try:\n    import torch.no_such_module\n"
            "except ModuleNotFoundError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT)}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == \
        "labkit does not implement torch.no_such_module; see docs/compat.md"


def test_without_the_shipped_name_list_every_public_name_is_named(monkeypatch):
    from labkit.engine import unsupported
    monkeypatch.setattr(unsupported, "_API", frozenset())

    class Tensor(labkit.Tensor):      # what `import labkit` makes of Tensor without the list
        pass
    unsupported.name_missing(Tensor, "torch.Tensor")
    x = labkit.ones(1)
    x.__class__ = Tensor
    with pytest.raises(AttributeError, match=r"^labkit does not implement torch\.Tensor\.sizee;"):
        x.sizee
    with pytest.raises(AttributeError, match=r"^'Tensor' object has no attribute '__array_struct__'"):
        x.__array_struct__


def test_a_missing_module_method_is_named_and_a_missing_layer_attribute_is_plain():
    model = labkit.nn.Linear(2, 2)
    lacking = _lacking("torch.nn.Module", model)
    assert lacking
    with pytest.raises(AttributeError, match=rf"^labkit does not implement "
                                             rf"torch\.nn\.Module\.{lacking[0]}; see docs"):
        getattr(model, lacking[0])
    with pytest.raises(AttributeError, match=r"^'Linear' object has no attribute 'fc3'$"):
        model.fc3
    assert not hasattr(model, lacking[0]) and hasattr(model, "weight")
