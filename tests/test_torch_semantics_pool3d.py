"""max_pool3d, avg_pool3d, adaptive_avg_pool3d (functional and nn modules) against torch:
values and gradients over stride/padding/dilation/count_include_pad/divisor_override, unbatched
input, reprs and errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")
F, LF = torch.nn.functional, labkit.nn.functional


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": (2, 3, 2), "stride": (1, 2, 1), "dilation": (2, 1, 1)},
                                {"kernel_size": (3, 1, 2), "padding": (1, 0, 1)}])
def test_max_pool3d(kw, device):
    check_op(lambda a: LF.max_pool3d(a, **kw), lambda a: F.max_pool3d(a, **kw),
             [rand_array((2, 3, 5, 6, 5), 1)], device=device)


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
                                {"kernel_size": (3, 2, 2), "padding": (1, 1, 0), "count_include_pad": False},
                                {"kernel_size": 2, "padding": 1, "divisor_override": 3},
                                {"kernel_size": (2, 1, 3), "stride": (2, 1, 1)}])
def test_avg_pool3d(kw, device):
    check_op(lambda a: LF.avg_pool3d(a, **kw), lambda a: F.avg_pool3d(a, **kw),
             [rand_array((2, 3, 5, 6, 5), 1)], device=device)


@pytest.mark.parametrize("out", [1, 2, (3, 2, 4), (None, 3, 1), 5])
def test_adaptive_avg_pool3d(out, device):
    check_op(lambda a: LF.adaptive_avg_pool3d(a, out), lambda a: F.adaptive_avg_pool3d(a, out),
             [rand_array((2, 3, 5, 6, 5), 1)], device=device)
    check_op(lambda a: LF.adaptive_avg_pool3d(a, out), lambda a: F.adaptive_avg_pool3d(a, out),
             [rand_array((3, 5, 6, 5), 2)], device=device)


def test_modules_and_errors():
    for make in (lambda nn: nn.MaxPool3d(2, padding=1), lambda nn: nn.AvgPool3d((2, 1, 2)),
                 lambda nn: nn.AdaptiveAvgPool3d((1, 2, 3))):
        m, t = make(labkit.nn), make(torch.nn)
        assert repr(m) == repr(t)
        check_op(lambda a: m(a), lambda a: t(a), [rand_array((2, 2, 4, 4, 5), 3)])
    for lib, f in ((torch, F), (labkit, LF)):
        with pytest.raises(RuntimeError):
            f.max_pool3d(lib.ones(2, 3, 4), 2)
        with pytest.raises(RuntimeError):
            f.max_pool3d(lib.ones(1, 1, 4, 4, 4), 2, padding=2)
        with pytest.raises(RuntimeError):
            f.avg_pool3d(lib.ones(1, 1, 4, 4, 4), 2, padding=2)
