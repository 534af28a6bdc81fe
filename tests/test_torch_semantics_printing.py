"""repr(tensor) and set_printoptions as torch prints; finfo/iinfo; the process-wide switches
(torch.backends flags, use_deterministic_algorithms, thread counts) and constants (torch.pi)."""
import math

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

VALUES = [[1.0, 2000.0], [0.001, 2.5], [1e-5, 1.0], [1.0, 2.0, 3.0], [1.5, -2.25],
          [float("nan"), 1.5], [float("inf"), -1.0, 2.0], [1e9, 1.0], [0.0, 0.0], [-0.5, 100.25],
          [123456.7], [3.14159]]


def both(make):
    return make(labkit), make(torch)


def same_text(a, b):
    assert a.replace("labkit.", "torch.") == b


@pytest.mark.parametrize("values", VALUES, ids=str)
def test_float_repr_chooses_notation_like_torch(values):
    same_text(*both(lambda lib: repr(lib.tensor(values))))


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor(2.5), lambda lib: lib.arange(2000.0), lambda lib: lib.arange(2000).view(2, 1000),
    lambda lib: lib.arange(2000.0).view(40, 50) / 7, lambda lib: lib.zeros(2, 0),
    lambda lib: lib.zeros(0, dtype=lib.int32), lambda lib: lib.zeros(0, 3, dtype=lib.int64),
    lambda lib: lib.tensor([1.5], dtype=lib.float64), lambda lib: lib.ones(2, requires_grad=True),
    lambda lib: lib.tensor([True, False]), lambda lib: lib.arange(4.0).view(2, 2)[:, 1:],
], ids=["0d", "summarised", "summarised-int", "summarised-2d", "empty-2d", "empty-int32",
        "empty-int64", "float64", "requires-grad", "bool", "view"])
def test_repr_shapes_dtypes_and_summaries_like_torch(make):
    same_text(*both(lambda lib: repr(make(lib))))


@pytest.mark.parametrize("options", [
    dict(precision=2), dict(sci_mode=False), dict(sci_mode=True), dict(threshold=5, edgeitems=1),
    dict(profile="short"), dict(profile="full")], ids=str)
def test_set_printoptions_like_torch(options):
    texts = []
    for lib in (labkit, torch):
        lib.set_printoptions(**options)
        try:
            # (long rows wrap as torch wraps them: tests/test_torch_semantics_programs.py)
            texts.append([repr(lib.tensor(v)) for v in ([1.23456, 2.0], [1e-6, 1.0], [0.5, 1.0])]
                         + [repr(lib.arange(1200.0)[-4:])]
                         + ([repr(lib.arange(20))] if "threshold" in options else []))
        finally:
            lib.set_printoptions(profile="default")
    assert [t.replace("labkit.", "torch.") for t in texts[0]] == texts[1]


def test_set_printoptions_rejects_an_unknown_profile():
    with pytest.raises(ValueError, match="profile"):
        labkit.set_printoptions(profile="tiny")


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_finfo_like_torch(name):
    mine, theirs = labkit.finfo(getattr(labkit, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(mine, field) == getattr(theirs, field), field
    assert type(mine.eps) is float and mine.dtype == theirs.dtype


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_like_torch(name):
    mine, theirs = labkit.iinfo(getattr(labkit, name)), torch.iinfo(getattr(torch, name))
    assert (mine.bits, mine.min, mine.max) == (theirs.bits, theirs.min, theirs.max)
    assert type(mine.max) is int and repr(mine) == repr(theirs)


def test_finfo_default_and_wrong_kinds():
    assert labkit.finfo().dtype == torch.finfo().dtype == "float32"
    for lib in (labkit, torch):
        with pytest.raises(TypeError):
            lib.finfo(lib.int32)
        with pytest.raises(TypeError):
            lib.iinfo(lib.float32)


def test_backends_flags_and_switches_read_back():
    import torch.backends.cudnn  # noqa: F401  (torch loads it lazily)
    from labkit.backends import cudnn
    for lib in (labkit, torch):
        lib.backends.cudnn.deterministic = True
        lib.backends.cudnn.benchmark = False
        assert lib.backends.cudnn.deterministic and not lib.backends.cudnn.benchmark
        lib.backends.cudnn.deterministic = False
        assert lib.backends.mps.is_available() is False
    assert cudnn.is_available() is False
    labkit.backends.cuda.matmul.allow_tf32 = True
    labkit.backends.cuda.matmul.allow_tf32 = False
    try:
        labkit.use_deterministic_algorithms(True, warn_only=True)
        assert labkit.are_deterministic_algorithms_enabled()
        assert labkit.is_deterministic_algorithms_warn_only_enabled()
    finally:
        labkit.use_deterministic_algorithms(False)
    assert not labkit.are_deterministic_algorithms_enabled()
    with pytest.raises(TypeError):
        labkit.use_deterministic_algorithms("yes")
    n = labkit.get_num_threads()
    labkit.set_num_threads(1)
    assert labkit.get_num_threads() == 1
    labkit.set_num_threads(n)
    with pytest.raises(RuntimeError):
        labkit.set_num_threads(0)


def test_constants_are_pythons_floats_as_in_torch():
    for name in ("pi", "e", "inf", "nan"):
        mine, theirs = getattr(labkit, name), getattr(torch, name)
        assert type(mine) is type(theirs) is float
        assert mine == theirs or (math.isnan(mine) and math.isnan(theirs))
    assert labkit.newaxis is torch.newaxis is None
    x = labkit.zeros(2, 2).masked_fill(labkit.eye(2).bool(), -labkit.inf)
    assert np.isneginf(x.numpy()).sum() == 2
