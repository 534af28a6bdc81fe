"""Run All per lecture on one core: how long a student waits for a whole lecture.

    PYTHONPATH=$PWD python benchmarks/lecture_run_all.py [--cores 0] [lecture ...]

Each lecture runs top to bottom in a fresh kernel, the kernel and this driver pinned to the
given cores (`taskset -c 0`: one core), as Run All Cells does in JupyterLab. Printed: the
time of the cells alone (Run All) and of the kernel's start, per lecture, and the total.
Nothing is saved: the lectures' stored outputs are not touched.

Goals (issue 21): Run All <= 30 s per lecture on one core, <= 3 min for all lectures.
"""
import argparse
import json
import os
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LECTURE_GOAL_S, TOTAL_GOAL_S = 30, 180


def run_one(path):
    """In this (pinned) process: run the lecture's cells in a fresh kernel; print the times."""
    import nbformat
    from nbclient import NotebookClient
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(path)}})
    t0 = time.perf_counter()
    with client.setup_kernel():
        started = time.perf_counter()
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        done = time.perf_counter()
    print(json.dumps({"kernel_start_s": started - t0, "run_all_s": done - started}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("lectures", nargs="*", help="lecture names (default: all)")
    parser.add_argument("--cores", default="0", help="taskset's CPU list (default: 0, one core)")
    parser.add_argument("--repo", action="append",
                        help="a checkout whose lectures and labkit to run (default: this one); "
                             "give it twice (e.g. main, then this one) for a before/after "
                             "comparison, the two run one after the other per lecture")
    parser.add_argument("--one", help=argparse.SUPPRESS)   # the pinned child's entry point
    args = parser.parse_args()
    if args.one:
        return run_one(args.one)
    repos = [os.path.abspath(r) for r in args.repo or [REPO]]
    lectures = os.path.join(repos[0], "course", "lectures")
    names = sorted(f[:-6] for f in os.listdir(lectures) if f.endswith(".ipynb"))
    chosen = [n for n in names if not args.lectures or any(a in n for a in args.lectures)]
    print(f"Run All on CPU(s) {args.cores} (taskset), {len(chosen)} lectures, "
          f"load average {os.getloadavg()[0]:.2f}\n")
    print(f"{'lecture':<34} {'checkout':<24} {'run all s':>10} {'kernel start s':>15}  goal")
    total = dict.fromkeys(repos, 0.0)
    for name in chosen:
        for repo in repos:
            t = run_pinned(repo, name, args.cores)
            total[repo] += t["run_all_s"]
            verdict = "pass" if t["run_all_s"] <= LECTURE_GOAL_S else "FAIL"
            print(f"{name:<34} {os.path.basename(repo):<24} {t['run_all_s']:>10.1f} "
                  f"{t['kernel_start_s']:>15.1f}  {verdict}", flush=True)
    for repo, seconds in total.items():
        verdict = "pass" if seconds <= TOTAL_GOAL_S else "FAIL"
        print(f"{'all lectures':<34} {os.path.basename(repo):<24} {seconds:>10.1f} {'':>15}  "
              f"{verdict} (goals: <= {LECTURE_GOAL_S} s each, <= {TOTAL_GOAL_S} s in all)")


def run_pinned(repo, name, cores):
    """Run one lecture of `repo` (with its labkit) in a child pinned to `cores`."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [repo, os.environ.get("PYTHONPATH")])))
    done = subprocess.run(["taskset", "-c", cores, sys.executable, __file__, "--one",
                           os.path.join(repo, "course", "lectures", name + ".ipynb")],
                          env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{name} ({repo}) failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
