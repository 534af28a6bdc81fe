"""Optimizers on complex parameters, as torch: each real and imaginary part is updated as a
parameter of its own (torch steps on view_as_real), the state stays complex."""
import numpy as np
import pytest

import labkit
from complex_oracle import crand

torch = pytest.importorskip("torch")

CASES = [("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
         ("Adam", {"lr": 0.1}), ("Adam", {"lr": 0.1, "amsgrad": True}),
         ("AdamW", {"lr": 0.1, "weight_decay": 0.1}), ("RMSprop", {"lr": 0.01}),
         ("Adagrad", {"lr": 0.1}), ("Adamax", {"lr": 0.1}), ("NAdam", {"lr": 0.1})]


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{sorted(k)}" for n, k in CASES])
def test_optimizer_on_complex_parameter_matches_torch(name, kw):
    w0 = crand((3, 2), 0)
    out, states = [], []
    for m in (labkit, torch):
        w = m.nn.Parameter(m.tensor(w0))
        b = m.nn.Parameter(m.tensor([0.5, -0.5], dtype=m.float64))    # a real one beside it
        opt = getattr(m.optim, name)([w, b], **kw)
        for _ in range(6):
            opt.zero_grad()
            loss = ((w * (1 + 2j) - 1).abs() ** 2).sum() + (w.real.sum(0) * b).square().sum()
            loss.backward()
            opt.step()
        out.append((w.detach().resolve_conj().numpy(), b.detach().numpy()))
        states.append({k: str(v.dtype).split(".")[-1] for k, v in opt.state[w].items()
                       if hasattr(v, "dtype") and v.dim() > 0})
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-10, atol=1e-12)
    assert states[0] == states[1]
