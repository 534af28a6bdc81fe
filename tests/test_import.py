"""`import labkit` stays light: the notebook and GPU stacks load only when asked for."""
import json
import subprocess
import sys

HEAVY = ["jupyter", "jupyter_client", "IPython", "matplotlib", "cupy", "ipywidgets", "graphviz",
         "torch", "nbformat", "tqdm"]


def _modules_after(code):
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys, json\n"
                          "print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True, timeout=120)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _heavy(mods):
    return sorted(m for m in mods if m.split(".")[0] in HEAVY)


def test_import_labkit_loads_no_heavy_module():
    assert _heavy(_modules_after("import labkit")) == []


def test_using_the_engine_loads_no_heavy_module():
    code = ("import labkit\n"
            "x = labkit.randn(3, 3, requires_grad=True)\n"
            "(x @ x).tanh().sum().backward()\n"
            "import labkit.autograd\n"
            "from labkit.engine import functional\n")
    assert _heavy(_modules_after(code)) == []


def test_import_labkit_works_without_torch_installed():
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('torch', 'cupy'):\n"
            "            raise ImportError('blocked for this test')\n"
            "sys.meta_path.insert(0, Block())\n"
            "import labkit\n"
            "assert not labkit.cuda.is_available()\n"
            "y = (labkit.ones(2, requires_grad=True) * 3).sum()\n"
            "y.backward()\n")
    mods = _modules_after(code)
    assert "labkit" in mods and "torch" not in mods
