"""The compat suite: every program in programs/ runs on torch and on labkit, and must pass on both.

The programs are written the way tutorials, recipes and course notebooks write PyTorch, with
synthetic data, and end with an assertion. Each one runs twice: `[torch-NAME]` on PyTorch (the
program itself must be right) and `[labkit-NAME]` on labkit through the `torch` shim (shim/).
A few processes run all of them (torch is imported once per process, not once per program).

A program that fails on labkit because labkit lacks an API is listed in LABKIT_LACKS with the
first API it needs: an expected failure, strict, so once it passes the suite fails until its
entry is removed (then regenerate docs/compat.md, which lists these: `python
tools/compat_table.py`). Run one program by hand:

    python tests/compat/programs/NAME.py                               # on torch
    PYTHONPATH=tests/compat/shim:. python tests/compat/programs/NAME.py  # on labkit
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
PROGRAMS = sorted((HERE / "programs").glob("*.py"))
ROOT = HERE.parents[1]

# program -> the torch API it needs that labkit lacks (the first one it meets)
LABKIT_LACKS = {
    "tut4_func_whirlwind_ux_limitations": "vmap writing in place through a view of a batched "
                                          "tensor (vec.new_zeros(n, n).diagonal().copy_(vec))",
    "tut3_deploy_seq2seq_torchscript": "jit.script of a module whose forward builds list "
                                       "literals (torch.zeros([0], device=self._device))",
}


def _chunks(items, n):
    return [items[i::n] for i in range(n) if items[i::n]]


@pytest.fixture(scope="session")
def outcomes(tmp_path_factory):
    """Run every program on both backends, in a few processes at once; {backend: {name: result}}."""
    pytest.importorskip("torch")
    if os.environ.get("LABKIT_FAKE_CUDA") == "1":
        pytest.skip("the programs run on the cpu in their own processes: the plain pass ran them")
    tmp = tmp_path_factory.mktemp("compat")
    per_backend = max(1, min(4, (os.cpu_count() or 2) // 2))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
        OMP_NUM_THREADS="1")
    jobs = []
    for backend in ("torch", "labkit"):
        for i, chunk in enumerate(_chunks(PROGRAMS, per_backend)):
            out = tmp / f"{backend}-{i}.json"
            cmd = [sys.executable, str(HERE / "run_programs.py"), backend, str(out),
                   *map(str, chunk)]
            jobs.append((backend, out, subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                                        stderr=subprocess.STDOUT, text=True)))
    results = {"torch": {}, "labkit": {}}
    for backend, out, proc in jobs:
        log, _ = proc.communicate(timeout=900)
        if proc.returncode != 0:
            raise RuntimeError(f"the {backend} runner crashed (exit {proc.returncode}):\n"
                               f"{log[-3000:]}")
        results[backend].update(json.loads(out.read_text()))
    return results


def _params():
    for backend in ("torch", "labkit"):
        for path in PROGRAMS:
            marks = []
            if backend == "labkit" and path.stem in LABKIT_LACKS:
                marks = [pytest.mark.xfail(strict=True,
                                           reason=f"labkit lacks {LABKIT_LACKS[path.stem]}")]
            yield pytest.param(backend, path.stem, marks=marks, id=f"{backend}-{path.stem}")


@pytest.mark.parametrize("backend,name", list(_params()))
def test_program(outcomes, backend, name):
    result = outcomes[backend][name]
    if not result["ok"]:
        pytest.fail(f"{name} failed on {backend}: {result['error']}\n{result['traceback']}",
                    pytrace=False)


def test_every_lacking_entry_names_a_program():
    assert sorted(set(LABKIT_LACKS) - {p.stem for p in PROGRAMS}) == []


def test_there_are_at_least_60_programs():
    assert len(PROGRAMS) >= 60
