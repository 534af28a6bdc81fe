"""Run compat programs in this process, one after another, on torch or on labkit.

    python tests/compat/run_programs.py torch|labkit OUT.json PROGRAM.py ...

Each program runs as `__main__` in a fresh namespace, in its own empty working directory, under
a time limit; its outcome (ok, or the error's last traceback lines) goes to OUT.json. With
`labkit`, tests/compat/shim comes first on sys.path, so the programs' `import torch` is labkit.
One process runs many programs, so torch (2 s to import) is imported once per process.
"""
import json
import os
import pathlib
import runpy
import signal
import sys
import tempfile
import traceback

HERE = pathlib.Path(__file__).resolve().parent
LIMIT_S = 60


class ProgramTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise ProgramTimeout(f"the program ran longer than {LIMIT_S} s")


def run_one(path, torch):
    start = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        signal.alarm(LIMIT_S)
        try:
            runpy.run_path(str(path), run_name="__main__")
            return {"ok": True}
        except BaseException as e:   # SystemExit and friends count as failures too
            lines = traceback.format_exception(type(e), e, e.__traceback__)
            return {"ok": False, "error": f"{type(e).__name__}: {e}",
                    "traceback": "".join(lines[-12:])}
        finally:
            signal.alarm(0)
            os.chdir(start)
            if hasattr(torch, "set_default_dtype"):   # undo what a program may have changed
                torch.set_default_dtype(torch.float32)
            if hasattr(torch, "set_printoptions"):
                torch.set_printoptions(profile="default")
            torch.set_grad_enabled(True)


def main(backend, out, *programs):
    if backend == "labkit":
        sys.path.insert(0, str(HERE / "shim"))
    elif backend != "torch":
        raise SystemExit(f"backend must be torch or labkit, not {backend!r}")
    import torch
    torch.set_num_threads(1) if hasattr(torch, "set_num_threads") else None
    signal.signal(signal.SIGALRM, _alarm)
    results = {pathlib.Path(p).stem: run_one(pathlib.Path(p).resolve(), torch) for p in programs}
    pathlib.Path(out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(*sys.argv[1:])
