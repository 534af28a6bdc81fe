"""torch.autograd's submodules and names programs import from: grad_mode (no_grad,
enable_grad, set_grad_enabled, inference_mode, set_multithreading_enabled), variable
(Variable), autograd.inference_mode; each behaves as the engine's own."""
import pytest

import labkit

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name", ["grad_mode.no_grad", "grad_mode.enable_grad",
                                  "grad_mode.set_grad_enabled", "grad_mode.inference_mode",
                                  "grad_mode.set_multithreading_enabled", "variable.Variable",
                                  "inference_mode", "set_multithreading_enabled"])
def test_names_exist_in_both(name):
    for lib in (torch, labkit):
        obj = lib.autograd
        for part in name.split("."):
            obj = getattr(obj, part)


def test_they_work():
    x = labkit.ones(2, requires_grad=True)
    with labkit.autograd.grad_mode.no_grad():
        assert not (x * 2).requires_grad
    with labkit.autograd.inference_mode():
        assert labkit.is_inference_mode_enabled() and not (x * 2).requires_grad
    with labkit.autograd.set_multithreading_enabled(False):
        (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    assert labkit.autograd.grad_mode.no_grad is labkit.no_grad
