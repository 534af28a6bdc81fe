"""The instructor's edition: `make student` and `make grade` (tools/instructor.py, nbgrader).

The no-solution check runs on every lecture. Grading runs on the exercise sections of the
lectures that have graded exercises (their first code cell, the imports, and everything from
"## Exercises" on), which keeps one autograding batch of 18 notebooks to about a minute.
"""
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("nbgrader")

if os.environ.get("LABKIT_FAKE_CUDA"):       # make test-fake-cuda: nothing here uses a device
    pytest.skip("runs once, in make test (no device code here)", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
LECTURES = ROOT / "course" / "lectures"
TOOL = ROOT / "tools" / "instructor.py"
TIMEOUT = 15          # seconds per cell while grading here

#: one known wrong answer per exercise (from its checker's known mistakes), as an edit of the
#: instructor's solution: (text in the solution, what a student wrote instead)
WRONG = {
    "l01_ex1": ("grad_t * (1 - t**2)", "grad_t * (1 - t)"),
    "l01_ex2": ("grad_s * s * (1 - s)", "grad_s"),
    "l01_ex3": ('grads["h_relu"] * (h > 0)', 'grads["h_relu"]'),
    "l02_ex1": (".tanh().pow(2).sum()", ".tanh().sum()"),
    "l02_ex2": ("(second,) = labkit.autograd.grad(first, v)", "second = first"),
    "l02_ex3": ("predicted = 19.0", "predicted = 12.0"),
    "l02_ex4": ("for v in reversed(topological_order(root)):",
                "for v in topological_order(root):"),
    "l02b_ex1": ("strides = tuple(reversed(strides))", "strides = tuple(strides)"),
    "l02b_ex2": ('"x[:, 1]": (12, 1)', '"x[:, 1]": (4, 1)'),
    "l03_ex1": ("grad_x = grad_y * x.sigmoid()", "grad_x = grad_y * x.exp()"),
    "l03_ex2": ("grad_x = -ctx.lam * grad_y", "grad_x = -grad_y"),
}


def _load(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _src(cell):
    s = cell["source"]
    return s if isinstance(s, str) else "".join(s)


def _meta(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


def _regions(text, begin, end):
    """The lines between `### BEGIN x` and `### END x` markers, and the text outside them."""
    inside, outside, active = [], [], False
    for line in text.splitlines():
        if line.strip() == begin:
            active = True
        elif line.strip() == end:
            active = False
        elif active:
            inside.append(line)
        else:
            outside.append(line)
    return inside, outside


def _all_text(nb):
    """Every source and every text output of a notebook, one string."""
    parts = []
    for cell in nb["cells"]:
        parts.append(_src(cell))
        for out in cell.get("outputs", []):
            t = out.get("text") or out.get("data", {}).get("text/plain") or ""
            parts.append(t if isinstance(t, str) else "".join(t))
            parts += ["".join(tb) for tb in out.get("traceback", [])]
    return "\n".join(parts)


def _strip_markers(text):
    return "\n".join(l for l in text.splitlines()
                     if l.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("student")
    out = tmp / "release"
    run = subprocess.run([sys.executable, str(TOOL), "student", "--out", str(out),
                          "--work", str(tmp / "work")], capture_output=True, text=True,
                         cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def test_every_lecture_is_released(release):
    assert sorted(p.name for p in release.glob("*.ipynb")) == \
        sorted(p.name for p in LECTURES.glob("*.ipynb"))


def test_student_copy_has_no_solution_line_and_no_hidden_test(release):
    n_solutions = n_hidden = 0
    for source_path in sorted(LECTURES.glob("*.ipynb")):
        source, student = _load(source_path), _load(release / source_path.name)
        student_text = _all_text(student)
        assert "BEGIN SOLUTION" not in student_text and "HIDDEN TESTS" not in student_text
        released = {_meta(c)["grade_id"]: c for c in student["cells"] if _meta(c)}
        outside = []            # what the lecture shows anyway (a line may also appear there)
        secrets = []            # (grade_id, line)
        for cell in source["cells"]:
            meta, text = _meta(cell), _src(cell)
            sol, rest = _regions(text, "### BEGIN SOLUTION", "### END SOLUTION")
            hidden, rest = _regions("\n".join(rest), "### BEGIN HIDDEN TESTS",
                                    "### END HIDDEN TESTS")
            outside.append("\n".join(rest))
            if meta.get("solution"):
                assert sol, f"{source_path.name}: {meta['grade_id']} has no solution markers"
                n_solutions += 1
            if meta.get("grade"):
                assert hidden, f"{source_path.name}: {meta['grade_id']} has no hidden tests"
                n_hidden += 1
            secrets += [(meta.get("grade_id"), l.strip(), "\n".join(rest))
                        for l in sol + hidden if l.strip()]
            if meta.get("solution") or meta.get("grade"):
                gid = meta["grade_id"]
                assert gid in released, f"{source_path.name}: {gid} missing from the copy"
                assert released[gid]["outputs"] == [], f"{gid}: outputs kept in the copy"
                if meta.get("solution"):
                    assert "# YOUR CODE HERE" in _src(released[gid])
        outside = "\n".join(outside)
        for gid, line, placeholder in secrets:
            if line not in placeholder:       # not part of what the student starts from
                assert line not in _src(released[gid]), (source_path.name, gid, line)
            if line not in outside:           # a line the lecture does not show elsewhere
                assert line not in student_text, (source_path.name, gid, line)
        # everything else is kept: pictures and stored outputs of the other cells
        n_images = sum("image/png" in o.get("data", {})
                       for c in source["cells"] if not _meta(c) for o in c.get("outputs", []))
        assert n_images == sum("image/png" in o.get("data", {}) for c in student["cells"]
                               for o in c.get("outputs", []))
        assert source["metadata"].get("widgets") == student["metadata"].get("widgets")
    assert n_solutions >= len(WRONG) and n_hidden >= len(WRONG)


# ---- grading ------------------------------------------------------------------------------

def _exercise_section(nb):
    """The imports cell and everything from the "## Exercises" heading on."""
    cells = nb["cells"]
    first_code = next(i for i, c in enumerate(cells) if c["cell_type"] == "code")
    start = next(i for i, c in enumerate(cells)
                 if c["cell_type"] == "markdown" and "## Exercises" in _src(c))
    return dict(nb, cells=[cells[first_code]] + cells[start:])


def _submission(release, name, edit=None):
    """A student's notebook: the student copy, with the instructor's solutions filled in and
    then `edit(grade_id, source) -> source` applied to each solution cell."""
    source = {_meta(c).get("grade_id"): _src(c) for c in _load(LECTURES / name)["cells"]}
    nb = _exercise_section(_load(release / name))
    for cell in nb["cells"]:
        meta = _meta(cell)
        if meta.get("solution"):
            text = source[meta["grade_id"]]
            if edit:
                text = edit(meta["grade_id"], text)
            cell["source"] = _strip_markers(text)
    return nb


def _save(nb, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")


GRADED = ["01_manual_gradients.ipynb", "02_autograd.ipynb", "02b_tensor_internals.ipynb",
          "03_custom_functions.ipynb"]


def _lecture_of(exercise):
    prefix = exercise.split("_")[0][1:]
    return next(n for n in GRADED if n.split("_")[0] == prefix)


@pytest.fixture(scope="module")
def graded(release, tmp_path_factory):
    subs = tmp_path_factory.mktemp("submissions")
    for name in GRADED:                        # nbgrader's layout
        _save(_submission(release, name), subs / "full" / "lectures" / name)
    for exercise, (right, wrong) in WRONG.items():      # flat: <student>.ipynb
        def edit(gid, text, exercise=exercise, right=right, wrong=wrong):
            if gid != exercise + "_solution":
                return text
            assert right in text, (exercise, right)
            return text.replace(right, wrong)
        _save(_submission(release, _lecture_of(exercise), edit), subs / f"wrong_{exercise}.ipynb")
    small = "02b_tensor_internals.ipynb"
    _save(_exercise_section(_load(release / small)), subs / "unstarted" / small)

    def first_raises(gid, text):
        return "import a_module_that_does_not_exist\n" + text if gid == "l02b_ex1_solution" else text

    def first_loops(gid, text):
        return "while True:\n    pass\n" + text if gid == "l02b_ex1_solution" else text
    _save(_submission(release, small, first_raises), subs / "raises" / small)
    _save(_submission(release, small, first_loops), subs / "loops" / small)

    out = tmp_path_factory.mktemp("grading")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, str(TOOL), "grade", str(subs), "--out", str(out),
                          "--timeout", str(TIMEOUT), "--work", str(out / "work")],
                         capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    with open(out / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return {r["student"]: r for r in rows}, out, run.stdout


def _points(graded):
    table = graded[0]
    maximum = {k: float(v) for k, v in table["(max points)"].items()
               if k not in ("student", "total")}
    return table, maximum


def test_filled_in_solutions_score_full_marks(graded):
    table, maximum = _points(graded)
    assert len(maximum) == len(WRONG)
    for cell, points in maximum.items():
        assert float(table["full"][cell]) == points, (cell, table["full"])
    assert float(table["full"]["total"]) == sum(maximum.values())


@pytest.mark.parametrize("exercise", sorted(WRONG))
def test_a_known_wrong_answer_loses_exactly_that_exercise(graded, exercise):
    table, maximum = _points(graded)
    row = table[f"wrong_{exercise}"]
    lecture = _lecture_of(exercise).split("_")[0]
    for cell, points in maximum.items():
        if cell == exercise + "_tests":
            assert float(row[cell]) == 0, (cell, row)
        elif cell.startswith(f"l{lecture}_"):
            assert float(row[cell]) == points, (cell, row)
        else:
            assert row[cell] == "", (cell, row)          # not submitted: no grade
    assert float(row["total"]) == sum(p for c, p in maximum.items()
                                      if c.startswith(f"l{lecture}_")) - maximum[exercise + "_tests"]


def test_an_erroring_and_an_endless_notebook_are_graded_and_the_batch_goes_on(graded):
    table, maximum = _points(graded)
    for who in ("raises", "loops"):
        assert float(table[who]["l02b_ex1_tests"]) == 0
        assert float(table[who]["l02b_ex2_tests"]) == maximum["l02b_ex2_tests"]
    assert float(table["unstarted"]["total"]) == 0
    feedback = graded[1] / "feedback"
    loops = (feedback / "loops" / "02b_tensor_internals.html").read_text(encoding="utf-8")
    assert "CellTimeoutError" in loops or "Timeout" in loops
    full = (feedback / "full" / "01_manual_gradients.html").read_text(encoding="utf-8")
    assert "l01_ex3_tests" in full
    assert "09_" not in graded[2]      # stdout names the students, not other files


def test_student_branch_has_student_copies_and_no_solution_in_its_history(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)

    def git(*args):
        return subprocess.run(["git", *args], cwd=clone, check=True, capture_output=True,
                              text=True).stdout

    for _ in range(2):                          # a second release adds a commit on top
        run = subprocess.run([sys.executable, "tools/instructor.py", "student-branch",
                              "--work", str(tmp_path / "work")], cwd=clone,
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
    files = git("ls-tree", "-r", "--name-only", "student").split()
    lectures = sorted(f for f in files if f.startswith("course/lectures/"))
    assert lectures == sorted(f"course/lectures/{p.name}" for p in LECTURES.glob("*.ipynb"))
    assert "tests/test_instructor.py" not in files and "labkit/__init__.py" in files
    for f in lectures:
        text = git("show", f"student:{f}")
        assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text, f
    assert len(git("rev-list", "student").split()) == 2          # only student commits
    merge_base = subprocess.run(["git", "merge-base", "student", "HEAD"], cwd=clone,
                                capture_output=True, text=True)
    assert merge_base.returncode != 0                            # nothing shared with main
