"""What the lecture checker modules share: calling a student's function safely, and
reporting the first problem over several test cases."""
from . import Verdict


def not_done(name):
    return Verdict(False, f"not done yet: `{name}` still gives the placeholder None; write "
                          "your code where it says `# your code`, and run the cell again.")


def call(name, fn, *args):
    """(result, None), or (None, a Verdict saying why there is no result)."""
    if fn is None or fn is Ellipsis or not callable(fn):
        return None, Verdict(False, f"`{name}` should be a function; got {fn!r}.")
    try:
        return fn(*args), None
    except Exception as err:  # noqa: BLE001 (any error is a student-facing message)
        return None, Verdict(False, f"{name}(...) raised {type(err).__name__}: {err}")


def show(verdict):
    """Print a Verdict as `check` does, and return it."""
    mark = "✓ " if verdict.ok else "… " if verdict.message.startswith("not done") else "✗ "
    print(mark + verdict.message)
    return verdict


def first_failure(verdicts):
    """The first Verdict that is not ok, else the last (ok) one; works lazily on a generator."""
    last = Verdict(True, "correct.")
    for v in verdicts:
        if not v:
            return v
        last = v
    return last
