"""Write docs/compat.md, the table of which torch APIs labkit supports, from torch and labkit
themselves, and labkit/engine/torch_api.txt, the torch names labkit's errors look up.

    python tools/compat_table.py            # regenerate both (needs torch installed)
    python tools/compat_table.py --check    # exit 1, saying which, if either is stale

Run it whenever labkit gains or loses an API; tests/compat/test_compat_table.py fails on a
stale table. The notes ("differs", reasons) are hand-kept in tools/compat_notes.py.

Public names. For torch and each namespace below, the names counted are:
  - a namespace with `__all__` (torch, torch.optim, lr_scheduler, utils.data, autograd): its
    `__all__`, minus names starting with "_"; for torch, also minus the classes and constants
    it re-exports from torch._C (TorchScript, dispatcher and build internals: Graph, Node,
    ScriptModule, *Type, has_mkl ...) except the user-facing ones in TORCH_C_KEEP, plus the
    submodules a course meets (SUBMODULES, for torch and torch.autograd);
  - others (torch.nn, nn.functional, nn.init, nn.utils): names not starting with "_" bound to
    a class or function that torch defines (a `__module__` under torch, not torch._C /
    torch.overrides / torch._jit_internal), so typing helpers and imported modules drop out;
  - torch.Tensor, torch.nn.Module, torch.optim.Optimizer: attributes of an instance not
    starting with "_", plus the Python operators (__add__, __getitem__, ...) of Tensor.
labkit supports a name when its counterpart (torch -> labkit, torch.nn -> labkit.nn, an
instance of labkit.Tensor ...) has an attribute of that name. Same name is not same behaviour:
DIFFERENCES in tools/compat_notes.py says where it is known to differ.

Coverage: every program in tests/compat/programs is read with `ast`. A use is a dotted name
that resolves through the program's imports to a torch API (torch.randn, nn.Linear, F.relu,
DataLoader), or a method call / attribute on some other object whose name is a public
attribute of torch.Tensor, torch.nn.Module, torch.optim.Optimizer or LRScheduler (x.view(...),
model.eval(), optimizer.step()); such a use is supported when labkit has the name on every one
of those classes that has it in torch. Keyword arguments are not checked by this count (the
programs themselves check them, by running); the table's "Call forms" section runs the option
and keyword forms listed in compat_notes.CALL_FORMS on torch and on labkit, and its program
list shows which programs are expected failures on labkit (LABKIT_LACKS in
tests/compat/test_programs.py, read with ast).
"""
import argparse
import ast
import pathlib
import re
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from compat_notes import CALL_FORMS, DIFFERENCES, ISSUE_14, REASONS  # noqa: E402

DOC = ROOT / "docs" / "compat.md"
API_LIST = ROOT / "labkit" / "engine" / "torch_api.txt"
PROGRAMS = ROOT / "tests" / "compat" / "programs"
COMMAND = "python tools/compat_table.py"

CLASSES = ["torch.Tensor", "torch.nn.Module", "torch.optim.Optimizer"]
# the namespaces of the table, in its order
ORDER = ["torch", "torch.Tensor", "torch.nn", "torch.nn.Module", "torch.nn.functional",
         "torch.nn.init", "torch.nn.utils", "torch.optim", "torch.optim.Optimizer",
         "torch.optim.lr_scheduler", "torch.utils.data", "torch.autograd", "torch.linalg",
         "torch.distributions"]
# submodules a course meets that the namespace's __all__ leaves out
SUBMODULES = {
    "torch": ["accelerator", "amp", "autograd", "backends", "cuda", "distributed",
              "distributions", "export", "fft", "func", "hub", "jit", "linalg", "nn", "onnx",
              "optim", "profiler", "random", "special", "testing", "utils"],
    "torch.autograd": ["forward_ad", "functional", "graph"],
}
OPERATORS = ["__abs__", "__add__", "__and__", "__bool__", "__contains__", "__eq__",
             "__float__", "__floordiv__", "__ge__", "__getitem__", "__gt__", "__iadd__",
             "__iand__", "__idiv__", "__ifloordiv__", "__imod__", "__imul__", "__index__",
             "__int__", "__invert__", "__ior__", "__ipow__", "__isub__", "__itruediv__",
             "__ixor__", "__le__", "__len__", "__lshift__", "__lt__", "__matmul__", "__mod__",
             "__mul__", "__ne__", "__neg__", "__or__", "__pos__", "__pow__", "__radd__",
             "__rand__", "__rfloordiv__", "__rlshift__", "__rmatmul__", "__rmod__", "__rmul__",
             "__ror__", "__rpow__", "__rrshift__", "__rshift__", "__rsub__", "__rtruediv__",
             "__rxor__", "__setitem__", "__sub__", "__truediv__", "__xor__", "__iter__",
             "__repr__", "__format__", "__array__", "__hash__", "__reversed__", "__dlpack__"]
TORCH_C_KEEP = {"Generator", "Size", "device", "dtype", "finfo", "iinfo", "layout",
                "memory_format", "Stream", "Event", "OutOfMemoryError", "AcceleratorError",
                "default_generator", "newaxis"}
_NOT_API = ("torch.overrides", "torch._jit_internal")     # and torch._C itself


# --- torch's public names --------------------------------------------------------------------

def _defined_by_torch(obj):
    if isinstance(obj, types.ModuleType) or not callable(obj):
        return False
    module = getattr(obj, "__module__", None) or ""
    return module.split(".")[0] == "torch" and module != "torch._C" and \
        not module.startswith(_NOT_API)


def _torch_c_internal(torch, name):
    obj = getattr(torch, name)
    return getattr(torch._C, name, None) is obj and (isinstance(obj, type) or not callable(obj))


def _torch_instance(torch, qualname):
    if qualname == "torch.Tensor":
        return torch.zeros(1)
    if qualname == "torch.nn.Module":
        return torch.nn.Module()
    return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)


def torch_names(torch, namespace):
    """The public names of a torch namespace (the filter is the module docstring's)."""
    import importlib
    if namespace in CLASSES:
        obj = _torch_instance(torch, namespace)
        cls = {"torch.Tensor": torch.Tensor, "torch.nn.Module": torch.nn.Module,
               "torch.optim.Optimizer": torch.optim.Optimizer}[namespace]
        names = {n for n in dir(cls) if not n.startswith("_")}
        names |= {n for n in vars(obj) if not n.startswith("_")}
        if namespace == "torch.Tensor":
            names |= {n for n in OPERATORS if hasattr(cls, n)}
        return sorted(names)
    module = importlib.import_module(namespace)
    if hasattr(module, "__all__"):
        names = {n for n in module.__all__ if not n.startswith("_") and hasattr(module, n)}
        if namespace == "torch":
            names = {n for n in names if n in TORCH_C_KEEP or not _torch_c_internal(torch, n)}
        names |= {n for n in SUBMODULES.get(namespace, ()) if hasattr(module, n)}
        return sorted(names)
    return sorted(n for n in dir(module)
                  if not n.startswith("_") and _defined_by_torch(getattr(module, n))
                  and getattr(module, n) is not torch.Tensor)


# --- labkit's side ---------------------------------------------------------------------------

def _labkit_counterpart(labkit, namespace):
    import importlib
    if namespace == "torch.Tensor":
        return labkit.zeros(1)
    if namespace == "torch.nn.Module":
        return labkit.nn.Module()
    if namespace == "torch.optim.Optimizer":
        return labkit.optim.SGD([labkit.zeros(1, requires_grad=True)], lr=0.1)
    return importlib.import_module("labkit" + namespace[len("torch"):])


def _has(obj, name):
    if isinstance(obj, types.ModuleType):
        try:
            return hasattr(obj, name)
        except ImportError:     # a lazy submodule whose optional package is missing
            return True
    return name in dir(obj)     # never evaluates a property


def status(qualname, supported):
    """("yes" | "differs" | "no", note)."""
    if supported:
        note = DIFFERENCES.get(qualname)
        return ("differs", note) if note else ("yes", "")
    if qualname in ISSUE_14:
        return "no", "asked for by issue #14"
    for pattern, reason in REASONS:
        if re.search(pattern, qualname):
            return "no", reason
    return "no", ""


def table(torch, labkit):
    """{namespace: [(name, status, note)]}"""
    rows = {}
    for namespace in ORDER:
        counterpart = _labkit_counterpart(labkit, namespace)
        rows[namespace] = [(name,) + status(f"{namespace}.{name}", _has(counterpart, name))
                           for name in torch_names(torch, namespace)]
    return rows


# --- the compat programs: which API uses labkit supports --------------------------------------

class _Uses(ast.NodeVisitor):
    """Collects the torch API uses of one program, each ("name", "torch.nn.Linear") or
    ("attribute", ["torch.Tensor.view", ...]) for an attribute of an object of unknown type."""

    def __init__(self, owners):
        self.aliases = {}           # local name -> dotted torch name
        self.others = set()         # local names of other modules (np, math, os ...)
        self.owners = owners        # attribute name -> the torch classes that have it
        self.uses = []

    def visit_Import(self, node):
        for a in node.names:
            if a.name.split(".")[0] == "torch":
                self.aliases[a.asname or "torch"] = a.name if a.asname else "torch"
            else:
                self.others.add(a.asname or a.name.split(".")[0])

    def visit_ImportFrom(self, node):
        torch = node.module and node.module.split(".")[0] == "torch" and not node.level
        for a in node.names:
            if torch:
                self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            else:
                self.others.add(a.asname or a.name)

    def _chain(self, node):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        return node, parts[::-1]

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and "." in self.aliases.get(node.id, ""):
            self.uses.append(("name", self.aliases[node.id]))

    def visit_Attribute(self, node):
        root, parts = self._chain(node)
        if isinstance(root, ast.Name) and root.id in self.aliases:
            self.uses.append(("name", ".".join([self.aliases[root.id]] + parts)))
            return                  # the whole chain is one use
        if isinstance(root, ast.Name) and root.id in self.others:
            return                  # np.multiply, math.cos: not torch
        if node.attr in self.owners and not isinstance(
                node.value, (ast.Constant, ast.JoinedStr, ast.List, ast.Dict)):
            self.uses.append(("attribute", [f"{c}.{node.attr}" for c in self.owners[node.attr]]))
        self.generic_visit(node)


def _resolve(root, dotted):
    """The object a dotted name ("torch.nn.functional.relu") names under `root`, or None."""
    obj = root
    for part in dotted.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except Exception:
            return None
    return obj


def coverage(torch, labkit):
    """{program: [(api, supported)]} for each use of a torch API in the compat programs."""
    sgd = labkit.optim.SGD([labkit.zeros(1, requires_grad=True)], lr=0.1)
    counterparts = {c: _labkit_counterpart(labkit, c) for c in CLASSES}
    counterparts["torch.optim.lr_scheduler.LRScheduler"] = labkit.optim.lr_scheduler.StepLR(sgd, 1)
    owners = {}
    for cls in counterparts:
        names = torch_names(torch, cls) if cls in CLASSES else [
            n for n in dir(torch.optim.lr_scheduler.LRScheduler) if not n.startswith("_")]
        for n in names:
            owners.setdefault(n, []).append(cls)
    result = {}
    for path in sorted(PROGRAMS.glob("*.py")):
        visitor = _Uses(owners)
        visitor.visit(ast.parse(path.read_text(), str(path)))
        uses = []
        for kind, what in visitor.uses:
            if kind == "name":
                if _resolve(torch, what) is not None:   # else not a torch API
                    uses.append((what, _resolve(labkit, what) is not None))
            else:
                ok = all(_has(counterparts[c.rsplit(".", 1)[0]], c.rsplit(".", 1)[1])
                         for c in what)
                uses.append((" / ".join(what), ok))
        result[path.stem] = uses
    return result


# --- call forms: keyword arguments and options -----------------------------------------------

def _run_form(module, code):
    """None if `code` runs with `torch` bound to `module`, else the error (type: first line)."""
    import io
    env = {"torch": module, "nn": module.nn, "F": module.nn.functional,
           "data": module.utils.data, "io": io}
    try:
        exec(code, env)
    except Exception as e:
        first = str(e).splitlines()[0] if str(e) else ""
        first = re.sub(r" at 0x[0-9a-f]+", "", first)       # no addresses in the table
        first = re.sub(r"^(?:\w+\.)+(\w+\(\))", r"\1", first)  # Python 3.10 has no qualname
        return f"{type(e).__name__}: {first[:120]}"
    return None


def call_forms(torch, labkit):
    """[(form, labkit's error or None)]; every form must run on torch."""
    rows = []
    for form, code in CALL_FORMS.items():
        error = _run_form(torch, code)
        if error:
            raise RuntimeError(f"compat_notes.CALL_FORMS[{form!r}] fails on torch: {error}")
        rows.append((form, _run_form(labkit, code)))
    return rows


def expected_failures():
    """test_programs.LABKIT_LACKS (program -> the API it lacks), read without importing it."""
    tree = ast.parse((PROGRAMS.parent / "test_programs.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "LABKIT_LACKS":
            return ast.literal_eval(node.value)
    raise LookupError("tests/compat/test_programs.py has no LABKIT_LACKS")


# --- the document ----------------------------------------------------------------------------

def _percent(a, b):
    return f"{100 * a / b:.1f}%" if b else "-"


def render(torch, rows, uses, forms, failing):
    out = [
        "# labkit and PyTorch: which torch APIs labkit has",
        "",
        f"<!-- Generated by `{COMMAND}` from torch {torch.__version__.split('+')[0]} and "
        "labkit; do not edit by hand. Regenerate after any API change: "
        "tests/compat/test_compat_table.py fails when this file is stale. -->",
        "",
        f"Generated by `{COMMAND}` from torch {torch.__version__.split('+')[0]} and labkit "
        "themselves: **yes** means labkit has the name, **differs** that it has it with the "
        "difference noted, **no** that it lacks it (with the reason where one is known). "
        "A name labkit lacks raises `AttributeError: labkit does not implement torch.X; see "
        "docs/compat.md`. Public names: torch's `__all__` where a namespace has one; "
        "otherwise the classes and functions torch defines there (not starting with `_`); for "
        "torch.Tensor, nn.Module and optim.Optimizer the attributes of an instance plus "
        "Tensor's Python operators. The notes live in `tools/compat_notes.py`; the rules "
        "in the docstring of `tools/compat_table.py`.",
        "",
        "## Summary",
        "",
        "| namespace | torch names | yes | differs | no | labkit has |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    totals = [0, 0, 0, 0]
    for namespace, items in rows.items():
        n = len(items)
        yes = sum(s == "yes" for _, s, _ in items)
        differs = sum(s == "differs" for _, s, _ in items)
        no = n - yes - differs
        totals = [a + b for a, b in zip(totals, (n, yes, differs, no))]
        out.append(f"| `{namespace}` | {n} | {yes} | {differs} | {no} | "
                   f"{_percent(yes + differs, n)} |")
    n, yes, differs, no = totals
    out.append(f"| all | {n} | {yes} | {differs} | {no} | {_percent(yes + differs, n)} |")

    all_uses = [u for program in uses.values() for u in program]
    supported = sum(ok for _, ok in all_uses)
    distinct = {api: ok for api, ok in all_uses}
    out += [
        "",
        "## The compat programs",
        "",
        f"The {len(uses)} programs in `tests/compat/programs` (tutorial-style PyTorch, run on "
        "torch and on labkit by `tests/compat/test_programs.py`) make "
        f"**{len(all_uses)} uses of torch APIs, of which labkit supports {supported} "
        f"({_percent(supported, len(all_uses))})**; by distinct API, "
        f"{sum(distinct.values())} of {len(distinct)} "
        f"({_percent(sum(distinct.values()), len(distinct))}). "
        "Counted statically (see `tools/compat_table.py`): a name counts as supported when "
        "labkit has it, whatever keyword arguments the program passes.",
        "",
        f"Run on labkit, {len(uses) - len(failing)} of the {len(uses)} pass today; the other "
        f"{len(failing)} are expected failures (`LABKIT_LACKS` in `tests/compat/test_programs.py`"
        ", strict: each must start passing once labkit has the API it names).",
        "",
        "| program | torch API uses | names labkit lacks | on labkit |",
        "|---|---:|---|---|",
    ]
    for program, items in uses.items():
        lacks = sorted({api for api, ok in items if not ok})
        runs = f"expected failure: {failing[program]}" if program in failing else "passes"
        out.append(f"| {program} | {len(items)} | {', '.join(f'`{a}`' for a in lacks)} | "
                   f"{runs} |")
    works = sum(error is None for _, error in forms)
    out += ["", "## Call forms", "",
            f"Options and keyword forms that programs use (`tools/compat_notes.py` CALL_FORMS: "
            f"each runs on torch); labkit runs {works} of {len(forms)}.", "",
            "| call | labkit | error on labkit |", "|---|---|---|"]
    for form, error in forms:
        cell = error.replace("|", "\\|") if error else ""
        out.append(f"| `{form}` | {'no' if error else 'yes'} | {cell} |")
    for namespace, items in rows.items():
        out += ["", f"## `{namespace}`", "", "| name | labkit | note |", "|---|---|---|"]
        for name, state, note in items:
            out.append(f"| `{name}` | {state} | {note} |")
    return "\n".join(out) + "\n"


def api_list(torch, rows):
    header = [f"# torch {torch.__version__.split('+')[0]}'s public API (see docs/compat.md), "
              f"generated by `{COMMAND}`: do not edit"]
    return "\n".join(header + [f"{ns}.{name}" for ns, items in rows.items()
                               for name, _, _ in items]) + "\n"


def generate():
    """(compat.md text, torch_api.txt text)."""
    import importlib
    import warnings
    import torch
    import labkit
    # Submodules a program must import by name (torch.utils.benchmark ...) count only once
    # imported: import the ones the programs use first, so the table does not depend on what
    # else this process happened to import (pytest collects every test module before it).
    for name in ("utils.benchmark", "nn.utils.rnn", "nn.modules.linear", "autograd.functional",
                 "autograd.function", "optim.lr_scheduler", "utils.checkpoint",
                 "utils.tensorboard", "autograd.graph", "profiler", "amp", "nn.utils.prune",
                 "nn.utils.parametrize", "nn.utils.parametrizations", "autograd.forward_ad",
                 "optim.swa_utils", "distributions", "func", "nn.attention"):
        importlib.import_module("torch." + name)
        importlib.import_module("labkit." + name)
    with warnings.catch_warnings():     # torch warns about some deprecated names it lists
        warnings.simplefilter("ignore")
        rows = table(torch, labkit)
        api = api_list(torch, rows)
        # labkit's error messages (in the call forms) read the list being written, not the old file
        from labkit.engine import unsupported
        unsupported._API = frozenset(api.splitlines()[1:])
        forms = call_forms(torch, labkit)
        return render(torch, rows, coverage(torch, labkit), forms, expected_failures()), api


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file is stale")
    args = parser.parse_args(argv)
    stale = []
    for path, text in zip((DOC, API_LIST), generate()):
        if path.exists() and path.read_text() == text:
            continue
        if args.check:
            stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print(f"stale: {', '.join(stale)}; regenerate with `{COMMAND}`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
