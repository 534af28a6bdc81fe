"""torch.__version__: labkit reports the torch API it follows (2.13.0, its own release as the
local part), a string that orders as a version against strings, tuples and packaging
Versions, as torch's does, so programs' version gates take the modern branches."""
import pytest
from packaging.version import Version

import labkit

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("other", ["'2.0'", "'1.7.1'", "'2.13'", "'2.13.0'", "'2.13.1'", "'3'",
                                   "(1, 8)", "(2, 13)", "(2, 13, 0)", "(2, 14)"])
@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_orders_as_torchs(other, op):
    mine = eval(f"labkit.__version__ {op} {other}")
    theirs = eval(f"torch.__version__ {op} {other}")
    assert mine == theirs, (op, other)


def test_release_and_form():
    v = labkit.__version__
    assert isinstance(v, str) and v.startswith("2.13.0+labkit.")
    assert Version(v).release == Version(torch.__version__).release
    assert v != "2.13.0" and v == str(v) and labkit.version.__version__ == v
    assert v.split("+")[0] == torch.__version__.split("+")[0]
