"""The instructor's edition: student copies and autograding, done by nbgrader.

    python tools/instructor.py student [--out course/release]
    python tools/instructor.py student-branch [--branch student]
    python tools/instructor.py grade SUBMISSIONS [--out grading] [--timeout 60]

`student` runs nbgrader's own `generate_assignment` on every lecture: solution regions become
`# YOUR CODE HERE`, hidden tests are removed, test cells are locked. Unlike nbgrader's default,
stored outputs are kept (pictures, sliders, printed results) except those of solution and test
cells, which would give the answers away.

`student-branch` commits the same copies, in place of the lectures, to a branch whose history
has no solutions, for a public repository that Binder serves to students.

`grade` autogrades a folder of submitted notebooks with nbgrader's `autograde` (hidden tests
put back from the instructor's copy) and `generate_feedback`. SUBMISSIONS is either nbgrader's
layout, SUBMISSIONS/<student>/[lectures/]<lecture>.ipynb, or a flat folder of
<student>.ipynb files (the lecture is recognised by its exercise ids). It writes
OUT/grades.csv (points per exercise and student) and OUT/feedback/<student>/<lecture>.html.
A cell that runs longer than --timeout seconds is interrupted and graded as failed; a broken
notebook never stops the batch.

nbgrader keeps its working tree (source/, release/, submitted/, autograded/, feedback/ and
gradebook.db) in build/nbgrader; nothing there is committed.
"""
import argparse
import csv
import json
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LECTURES = ROOT / "course" / "lectures"
WORK = ROOT / "build" / "nbgrader"
ASSIGNMENT = "lectures"            # nbgrader's name for the set of notebooks we hand out
# nbgrader runs `alembic` (its database migrations) as a program: find it beside this Python,
# also when the virtual environment is not activated.
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def _config(work, timeout=None):
    from traitlets.config import Config
    from nbgrader import preprocessors as pp

    from nbgrader.preprocessors import NbGraderPreprocessor

    class ClearGradedOutput(NbGraderPreprocessor):
        """Clear the outputs of solution and test cells only: they would show the answers."""

        def preprocess_cell(self, cell, resources, index):
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "code" and (meta.get("solution") or meta.get("grade")):
                cell.outputs, cell.execution_count = [], None
            return cell, resources

    c = Config()
    c.CourseDirectory.root = str(work)
    c.CourseDirectory.course_id = "labkit"
    # the student copy must still run top to bottom: a comment, not `raise NotImplementedError`
    c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE"}
    c.GenerateAssignment.preprocessors = [
        pp.IncludeHeaderFooter, pp.LockCells, pp.ClearSolutions, ClearGradedOutput,
        pp.CheckCellMetadata, pp.ComputeChecksums, pp.SaveCells, pp.ClearHiddenTests,
        pp.ComputeChecksums, pp.CheckCellMetadata]
    if timeout is not None:
        c.Execute.timeout = timeout
        c.Execute.interrupt_on_timeout = True
    c.Exchange.root = str(work / "exchange")
    return c


def _api(work, timeout=None):
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    config = _config(work, timeout)
    return NbGraderAPI(CourseDirectory(config=config), config=config)


def _run(step, result):
    if not result.get("success"):
        sys.exit(f"nbgrader {step} failed:\n{result.get('log', '')}\n{result.get('error', '')}")


def generate(work=WORK, lectures=LECTURES):
    """nbgrader's generate_assignment on a fresh copy of the lectures; returns its release dir."""
    if work.exists():
        shutil.rmtree(work)
    source = work / "source" / ASSIGNMENT
    shutil.copytree(lectures, source, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    _run("generate_assignment", _api(work).generate_assignment(ASSIGNMENT, force=True))
    return work / "release" / ASSIGNMENT


def student(out, work=WORK, lectures=LECTURES):
    start = time.perf_counter()
    release = generate(work, lectures)
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(release, out)
    names = sorted(p.name for p in out.glob("*.ipynb"))
    print(f"student copies of {len(names)} lectures in {out} "
          f"({time.perf_counter() - start:.1f} s): no solutions, no hidden tests")


#: files that hold solutions outside the lectures: left out of the student branch
NOT_FOR_STUDENTS = ("tests/test_instructor.py", "tests/test_lecture_exercises.py")


def student_branch(branch="student", work=WORK, lectures=LECTURES, repo=ROOT):
    """Commit the student copies to `branch`: the tree of HEAD with course/lectures replaced by
    the student copies and NOT_FOR_STUDENTS left out. Its history holds only such commits
    (each one's parent is the branch's previous commit, never a commit with solutions), so the
    branch can be pushed to a public repository for Binder."""
    import subprocess
    import tempfile

    release = generate(work, lectures)

    def git(*args, **kw):
        return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                              text=True, **kw).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=str(Path(tmp) / "index"))
        git("read-tree", "HEAD", env=env)
        rel_lectures = lectures.resolve().relative_to(Path(repo).resolve()).as_posix()
        for old in git("ls-files", rel_lectures, env=env).splitlines():
            if old.endswith(".ipynb"):
                git("rm", "--cached", "-q", old, env=env)
        for nb in sorted(release.glob("*.ipynb")):
            blob = git("hash-object", "-w", str(nb))
            git("update-index", "--add", "--cacheinfo", f"100644,{blob},{rel_lectures}/{nb.name}",
                env=env)
        for path in NOT_FOR_STUDENTS:
            git("rm", "--cached", "-q", "--ignore-unmatch", path, env=env)
        tree = git("write-tree", env=env)
    parent = subprocess.run(["git", "rev-parse", "-q", "--verify", f"refs/heads/{branch}"],
                            cwd=repo, capture_output=True, text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD")
    commit = git("commit-tree", tree, *(["-p", parent] if parent else []),
                 "-m", f"Student copies of the course at {head} (make student-branch)")
    git("update-ref", f"refs/heads/{branch}", commit)
    print(f"branch {branch} -> {commit[:10]}: the course at {head} with student copies of the "
          f"lectures; push it to the public repository Binder serves "
          f"(git push <remote> {branch})")
    return commit


def _grade_ids(path):
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    return {c["metadata"]["nbgrader"]["grade_id"] for c in nb["cells"]
            if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")}


def _collect(submissions, release):
    """{(student, lecture file name): submitted path}, from either layout."""
    lectures = {p.name: _grade_ids(p) for p in release.glob("*.ipynb")}
    found = {}
    for path in sorted(Path(submissions).rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        rel = path.relative_to(submissions)
        if len(rel.parts) == 1:                         # flat: <student>.ipynb
            ids = _grade_ids(path)
            match = [name for name, want in lectures.items() if want and ids & want]
            if len(match) != 1:
                print(f"skipped {rel}: cannot tell which lecture it is (exercise ids {sorted(ids)})")
                continue
            found[(path.stem, match[0])] = path
        elif path.name in lectures:                     # <student>/[lectures/]<lecture>.ipynb
            found[(rel.parts[0], path.name)] = path
        else:
            print(f"skipped {rel}: not a lecture of this course")
    return found


def grade(submissions, out, timeout=60, work=WORK, lectures=LECTURES):
    from nbgrader.api import Gradebook

    start = time.perf_counter()
    release = generate(work, lectures)                  # fills the gradebook with the tests
    found = _collect(Path(submissions), release)
    if not found:
        sys.exit(f"no submissions found in {submissions}")
    for (who, lecture), path in found.items():
        dest = work / "submitted" / who / ASSIGNMENT / lecture
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, dest)
    api = _api(work, timeout)
    students = sorted({who for who, _ in found})
    for who in students:
        t0 = time.perf_counter()
        result = api.autograde(ASSIGNMENT, who, force=True, create=True)
        status = "graded" if result.get("success") else "FAILED to grade (see log below)"
        print(f"{who}: {status} ({time.perf_counter() - t0:.1f} s)")
        if not result.get("success"):
            print(result.get("log", ""), result.get("error", ""))
            continue
        api.generate_feedback(ASSIGNMENT, who, force=True)

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    db = f"sqlite:///{work / 'gradebook.db'}"
    with Gradebook(db) as gb:
        cells = []                                      # every graded cell, lecture order
        for nb in sorted(gb.find_assignment(ASSIGNMENT).notebooks, key=lambda n: n.name):
            if any(lec == nb.name + ".ipynb" for _, lec in found):
                cells += [(nb.name, c.name, c.max_score) for c in nb.grade_cells
                          if c.cell_type == "code"]
        cells.sort()
        rows = []
        for who in students:
            row = {"student": who}
            for nb_name, cell, _ in cells:
                if (who, nb_name + ".ipynb") not in found:
                    row[cell] = ""                      # not submitted: no grade
                    continue
                try:
                    g = gb.find_grade(cell, nb_name, ASSIGNMENT, who)
                    row[cell] = g.score
                except Exception:  # noqa: BLE001 (not submitted / not graded: no points)
                    row[cell] = ""
            row["total"] = sum(v for k, v in row.items() if k not in ("student",)
                               and isinstance(v, (int, float)))
            rows.append(row)
    header = ["student"] + [cell for _, cell, _ in cells] + ["total"]
    with open(out / "grades.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        w.writerow({"student": "(max points)", **{c: m for _, c, m in cells},
                    "total": sum(m for _, _, m in cells)})
        w.writerows(rows)
    feedback = out / "feedback"
    if feedback.exists():
        shutil.rmtree(feedback)
    for who in students:
        src = work / "feedback" / who / ASSIGNMENT
        if src.exists():
            shutil.copytree(src, feedback / who)
    print(f"graded {len(found)} notebooks of {len(students)} students in "
          f"{time.perf_counter() - start:.1f} s: {out / 'grades.csv'}, {feedback}/<student>/")
    return out / "grades.csv"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("student", help="build the student copies")
    s.add_argument("--out", default=str(ROOT / "course" / "release"))
    b = sub.add_parser("student-branch", help="commit the student copies to a branch")
    b.add_argument("--branch", default="student")
    g = sub.add_parser("grade", help="autograde a folder of submissions")
    g.add_argument("submissions")
    g.add_argument("--out", default=str(ROOT / "grading"))
    g.add_argument("--timeout", type=int, default=60, help="seconds per cell (default 60)")
    for p in (s, b, g):
        p.add_argument("--work", default=str(WORK), help="nbgrader's working folder")
    args = parser.parse_args(argv)
    if args.command == "student":
        student(args.out, Path(args.work))
    elif args.command == "student-branch":
        student_branch(args.branch, Path(args.work))
    else:
        grade(args.submissions, args.out, args.timeout, Path(args.work))


if __name__ == "__main__":
    main()
