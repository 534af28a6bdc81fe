"""A fidelity fix found while probing common idioms, against torch 2.13: kl_div with targets
that are not probabilities (torch's xlogy: 0 for a zero target, nan for a negative one)."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


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
