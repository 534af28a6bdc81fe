"""Binder builds the course with repo2docker from binder/: check that repo2docker reads it as
we mean it to, and that it installs everything the lectures import."""
import ast
import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from IPython.core.inputtransformer2 import TransformerManager
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

try:
    import tomllib
except ImportError:            # Python 3.10: pytest itself depends on tomli there
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
BINDER = REPO / "binder"
LECTURES = sorted((REPO / "course" / "lectures").glob("*.ipynb"))
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def lines(name):
    """The non-comment lines of a binder/ file."""
    text = (BINDER / name).read_text()
    return [s for s in (line.split("#")[0].strip() for line in text.splitlines()) if s]


def test_repo2docker_uses_binder_folder():
    """`repo2docker --no-build --debug` prints the Dockerfile it would build (no Docker needed):
    Python from runtime.txt, apt.txt's packages, then pip on binder/requirements.txt."""
    pytest.importorskip("repo2docker", reason="jupyter-repo2docker is not installed")
    run = subprocess.run([sys.executable, "-m", "repo2docker", "--no-build", "--debug", str(REPO)],
                         capture_output=True, text=True, timeout=300)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-3000:]
    python = lines("runtime.txt")[0].removeprefix("python-")
    assert f"python={python}" in out, f"repo2docker did not pick Python {python}:\n{out[-3000:]}"
    apt = re.search(r"apt-get install --yes --no-install-recommends ([^&]*)&&", out)
    assert apt and set(apt.group(1).split()) == set(lines("apt.txt")), out[-3000:]
    assert 'pip install --no-cache-dir -r "binder/requirements.txt"' in out, out[-3000:]
    assert 'R2D_ENTRYPOINT="${REPO_DIR}/binder/start"' in out, out[-3000:]


@pytest.mark.parametrize("cpu_limit, threads", [(None, "1"), ("2.0", "2"), ("0.5", "1"), ("", "1")])
def test_start_gives_blas_one_thread_per_cpu_the_container_may_use(cpu_limit, threads):
    env = {"PATH": "/usr/bin:/bin"}
    if cpu_limit is not None:
        env["CPU_LIMIT"] = cpu_limit
    run = subprocess.run([str(BINDER / "start"), "sh", "-c",
                          "echo $OPENBLAS_NUM_THREADS $OMP_NUM_THREADS $MKL_NUM_THREADS"],
                         capture_output=True, text=True, env=env, timeout=30)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [threads] * 3


def test_binder_python_is_one_labkit_supports():
    python = lines("runtime.txt")[0].removeprefix("python-")
    assert python in SpecifierSet(PROJECT["requires-python"])


def binder_requirements():
    """What binder/requirements.txt installs: labkit's dependencies in pyproject.toml, those of
    the extras it names (`-e .[onnx]`), and any other line as a requirement of its own."""
    reqs, has_repo = [], False
    for line in lines("requirements.txt"):
        repo = re.fullmatch(r"(?:-e\s+)?\.(?:\[([\w,\s-]*)\])?", line)
        if not repo:
            reqs.append(line)
            continue
        has_repo = True
        reqs += PROJECT["dependencies"]
        for extra in filter(None, map(str.strip, (repo.group(1) or "").split(","))):
            reqs += PROJECT["optional-dependencies"][extra]
    assert has_repo, "binder/requirements.txt does not install the repository (`-e .`)"
    return reqs


def installed_by(requirements):
    """Canonical names of the distributions pip installs for these requirements here (markers
    evaluated for this Python), following installed metadata with an explicit stack."""
    seen, stack = set(), [(Requirement(r), {""}) for r in requirements]
    while stack:
        spec, extras = stack.pop()
        if spec.marker and not any(spec.marker.evaluate({"extra": e}) for e in extras):
            continue
        key = canonicalize_name(spec.name)
        if key in seen:
            continue
        seen.add(key)
        try:
            requires = metadata.requires(spec.name) or []
        except metadata.PackageNotFoundError:
            continue   # not installed here, so nothing here imports it from it either
        stack += [(Requirement(r), {""} | set(spec.extras)) for r in requires]
    return seen


def lecture_imports(path):
    """{top-level module: first cell that imports it} for every import in a notebook."""
    found = {}
    cells = json.loads(path.read_text())["cells"]
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        source = TransformerManager().transform_cell("".join(cell["source"]))  # %magics
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], i)
    return found


def test_binder_installs_every_lecture_import():
    installed = installed_by(binder_requirements())
    owners = metadata.packages_distributions()
    missing = []
    for path in LECTURES:
        for module, cell in lecture_imports(path).items():
            if module in sys.stdlib_module_names or module == "labkit":
                continue
            dists = {canonicalize_name(d) for d in owners.get(module, [])}
            if not dists & installed:
                missing.append(f"{path.name} cell {cell}: import {module} "
                               f"(from {', '.join(sorted(dists)) or 'no installed package'})")
    assert not missing, ("binder/requirements.txt (labkit and its dependencies) does not install "
                         "what these lectures import; add it to labkit's dependencies in "
                         "pyproject.toml or to an extra binder installs:\n" + "\n".join(missing))
