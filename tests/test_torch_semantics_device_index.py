"""An int where torch takes a device is an accelerator index: x.to(x.get_device()) on a cpu
tensor (STAT 453's VAE reparameterize does it) is torch's RuntimeError 'Device index must not be
negative', not a dtype error; torch.device(0) / x.to(0) without a GPU is torch's RuntimeError."""
import pytest

import labkit

torch = pytest.importorskip("torch")


def test_negative_index_is_refused():
    for lib in (torch, labkit):
        x = lib.zeros(2, 3)
        assert x.get_device() == -1
        with pytest.raises(RuntimeError, match="Device index must not be negative"):
            lib.randn(2, 3).to(x.get_device())
        with pytest.raises(RuntimeError, match="Device index must not be negative"):
            lib.device(-1)


@pytest.mark.skipif(labkit.cuda.is_available() or torch.cuda.is_available(),
                    reason="a GPU makes index 0 valid")
def test_index_without_an_accelerator():
    for lib in (torch, labkit):
        with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
            lib.device(0)
        with pytest.raises(RuntimeError):
            lib.zeros(1).to(0)


def test_an_int_dtype_type_is_still_a_dtype():
    for lib in (torch, labkit):
        assert lib.zeros(2).to(int).dtype == lib.int64
        assert lib.zeros(2).to(bool).dtype == lib.bool
