"""Checkers for lecture 07 (compilers and function transforms). `check_*` prints what is wrong
(never raises), `*_ok(..., hidden=False)` says whether it is right, and with hidden=True also
tries other inputs, which the student does not see.
"""
import numpy as np

from . import Verdict, compare
from ._support import call, first_failure, not_done, show


# Exercise 1: how many traces does jit.compile make?

#: (shape, k) of each call of fn(labkit.ones(*shape), k), in order
CALLS = [((3, 4), 2), ((3, 4), 2), ((5, 4), 2), ((3, 4), 5), ((5, 4), 2), ((3, 4), 2)]


def _count_traces(calls):
    """The number of traces a fresh jit.compile makes for these calls (measured, not assumed)."""
    import labkit
    from labkit import jit

    @jit.compile
    def fn(x, k):
        return x * k
    for shape, k in calls:
        fn(labkit.ones(*shape), k)
    return fn.traces


def _traces_verdicts(n_traces, hidden):
    if n_traces is None or n_traces is Ellipsis:
        yield not_done("n_traces")
        return
    want = _count_traces(CALLS)
    yield compare("n_traces", n_traces, want,
                  mistakes={"a Python number is part of the signature: k=5 needs its own trace":
                            want - 1,
                            "each shape and each k is traced once, not each call": len(CALLS)})
    if hidden and not isinstance(n_traces, (int, np.integer)):
        yield Verdict(False, f"n_traces should be a whole number, got {n_traces!r}.")


def check_n_traces(n_traces):
    """Print whether n_traces is the number of traces the calls cause."""
    return show(first_failure(_traces_verdicts(n_traces, False)))


def n_traces_ok(n_traces, hidden=False):
    return bool(first_failure(_traces_verdicts(n_traces, hidden)))


# Exercise 2: Clip with its branch as labkit.cond, so that export keeps both sides

def clip(x):
    """What Clip computes, eagerly: x rescaled to norm 1 when its norm is above 1."""
    n2 = (x * x).sum()
    return x / n2.sqrt() if n2.item() > 1.0 else x


def exercise2_inputs(hidden=False):
    import labkit
    values = [[0.3, -0.2, 0.1], [3.0, -4.0, 12.0]]
    if hidden:
        values += [[0.6, 0.8, 0.1], [-0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [10.0, 0.0, -1.0]]
    return [labkit.tensor(v) for v in values]


def _export_case(cls, example, inputs):
    from labkit.export import export
    model, err = call("ClipCond", cls)
    if err is not None:
        return err
    eager, err = call("ClipCond.forward", model, example.clone())
    if err is not None:
        return err
    if eager is None:
        return not_done("ClipCond.forward")
    try:
        program = export(model, (example,)).module()
    except Exception as e:  # noqa: BLE001 (a student-facing message)
        return Verdict(False, f"export(ClipCond(), ...) refused: {type(e).__name__}: "
                              f"{str(e).splitlines()[0] if str(e) else ''}")
    got = []
    with np.errstate(all="ignore"):          # rescaling the zero input divides 0 by 0
        for x in inputs:
            out, err = call("the exported ClipCond", program, x.clone())
            if err is not None:
                return err
            got.append(out.detach().numpy())
        stuck_large = np.concatenate([(x / (x * x).sum().sqrt()).numpy() for x in inputs])
    want = np.concatenate([clip(x).numpy() for x in inputs])
    stuck_small = np.concatenate([x.numpy() for x in inputs])
    side = "small" if (example * example).sum().item() <= 1.0 else "large"
    return compare(f"the ClipCond exported from a {side} input, on {len(inputs)} inputs",
                   np.concatenate(got), want,
                   mistakes={"the large input was not rescaled: the branch is stuck on one side":
                             stuck_small,
                             "the small input was rescaled too: the branch is stuck on one side":
                             stuck_large})


def _clip_verdicts(cls, hidden):
    if cls is None or cls is Ellipsis:
        yield not_done("ClipCond")
        return
    inputs = exercise2_inputs(hidden)
    yield _export_case(cls, inputs[0], inputs)
    if hidden:
        yield _export_case(cls, inputs[1], inputs)      # exported from the other side


def check_clip_cond(cls):
    """Print whether the exported ClipCond is right on small and large inputs."""
    return show(first_failure(_clip_verdicts(cls, False)))


def clip_cond_ok(cls, hidden=False):
    return bool(first_failure(_clip_verdicts(cls, hidden)))


# Exercise 3: per-example gradient norms with vmap and grad

def _norms_case(fn, loss_fn, params, xs, ys, key):
    import labkit.func as func
    got, err = call("per_example_grad_norms", fn, loss_fn, params, xs, ys)
    if err is not None:
        return err
    if got is None:
        return not_done("per_example_grad_norms")
    grads = [func.grad(loss_fn)(params, xs[i], ys[i])[key].numpy() for i in range(len(xs))]
    want = np.array([np.sqrt((g ** 2).sum()) for g in grads])
    summed = np.full(len(xs), np.sqrt((sum(grads) ** 2).sum()))
    return compare(f"per_example_grad_norms for {len(xs)} examples", got, want, rtol=1e-4,
                   mistakes={"this is the norm of the summed gradient, not one norm per example":
                             summed})


def _norms_verdicts(fn, loss_fn, params, xs, ys, hidden, key):
    yield _norms_case(fn, loss_fn, params, xs[:16], ys[:16], key)
    if hidden:
        yield _norms_case(fn, loss_fn, params, xs[16:41], ys[16:41], key)
        yield _norms_case(fn, loss_fn, params, xs[-1:], ys[-1:], key)


def check_grad_norms(fn, loss_fn, params, xs, ys, key="0.weight"):
    """Print whether fn(loss_fn, params, xs[:16], ys[:16]) is each example's gradient norm."""
    return show(first_failure(_norms_verdicts(fn, loss_fn, params, xs, ys, False, key)))


def grad_norms_ok(fn, loss_fn, params, xs, ys, hidden=False, key="0.weight"):
    return bool(first_failure(_norms_verdicts(fn, loss_fn, params, xs, ys, hidden, key)))
