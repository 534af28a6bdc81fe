"""Small fidelity fixes found while probing common idioms, each against torch 2.13: factories
called with no size at all, and kl_div with targets that are not probabilities."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_a_factory_without_a_size_is_a_type_error_as_torch(name):
    for L in (labkit, torch):
        with pytest.raises(TypeError):
            getattr(L, name)()
    assert tuple(getattr(labkit, name)(()).shape) == ()


@pytest.mark.parametrize("target", [[-0.5, 0.5, 0.0, 0.2], [0.0, 0.0, 1.0, 0.0],
                                    [0.1, 0.2, 0.3, 0.4]])
@pytest.mark.parametrize("reduction", ["sum", "none", "batchmean"])
def test_kl_div_follows_torchs_xlogy_for_zero_and_negative_targets(target, reduction):
    out = []
    for L in (labkit, torch):
        x = L.tensor([-1.0, -2.0, -0.3, -4.0], requires_grad=True)
        loss = L.nn.functional.kl_div(x, L.tensor(target), reduction=reduction)
        loss.sum().backward()
        out.append((loss.detach().numpy(), x.grad.numpy()))
    for mine, ref in zip(*out):
        np.testing.assert_allclose(mine, ref, rtol=1e-6, equal_nan=True)
